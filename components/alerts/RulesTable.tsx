import Link from "next/link";
import type { RuleInput } from "@/lib/alerts/schema.ts";
import type { AlertStateName } from "@/lib/alerts/state-machine.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { DeleteButton } from "./DeleteButton.tsx";
import { StateBadge } from "./StateBadge.tsx";

export interface RuleRow {
  id: string;
  name: string;
  enabled: boolean;
  conditionText: string;
  forSeconds: number;
  severity: RuleInput["severity"];
  state: AlertStateName;
  /** The summary template; null: the generated summary (lib/alerts/conditions.ts summaryOf). */
  summary: string | null;
  lastValue: number | null;
  lastEvalAt: string | null;
  lastError: string | null;
  channelNames: string[];
}

export function RulesTable({ rules, locale }: { rules: RuleRow[]; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts;
  const c = t.rulesTable.cols;
  if (rules.length === 0) return <p className="muted">{t.rulesTable.empty}</p>;
  const columns: Column<RuleRow>[] = [
    { id: "state", header: c.state, cell: (r) => <StateBadge state={r.enabled ? r.state : "disabled"} locale={locale} /> },
    { id: "rule", data: true, header: c.rule, wrap: "text", cell: (r) => r.name },
    {
      id: "condition",
      header: c.condition,
      wrap: "text",
      maxWidth: "32rem",
      cell: (r) => (
        <>
          {r.conditionText}
          <div className="alerts-summary">
            {t.rulesTable.summary} {r.summary ? <span className="mono">{r.summary}</span> : t.rulesTable.defaultSummary}
          </div>
          {r.lastError ? (
            <div role="alert" className="alerts-error">
              {r.lastError}
            </div>
          ) : null}
        </>
      ),
    },
    // The form asks whole seconds; the duration formatter's zero is "0 ms".
    { id: "for", header: c.for, priority: 2, cell: (r) => (r.forSeconds === 0 ? t.rulesTable.forZero : formatDuration(r.forSeconds * 1000, locale)) },
    { id: "severity", header: c.severity, cell: (r) => t.severities[r.severity] },
    {
      id: "value",
      header: c.lastValue,
      num: true,
      priority: 2,
      title: (r) => (r.lastEvalAt ? t.rulesTable.evaluatedAt(formatTime(Date.parse(r.lastEvalAt), { precision: "s", zone: true })) : t.rulesTable.notEvaluated),
      cell: (r) => (r.lastValue === null ? "–" : Number(r.lastValue.toFixed(2))),
    },
    { id: "channels", header: c.channels, wrap: "text", cell: (r) => (r.channelNames.length > 0 ? <span translate="no">{r.channelNames.join(", ")}</span> : <span className="muted">{t.none}</span>) },
    {
      id: "actions",
      header: null,
      cell: (r) => (
        <>
          <Link href={`/alerts?edit=${encodeURIComponent(r.id)}#rule-form`}>{t.edit}</Link>{" "}
          <DeleteButton url={`/api/v1/alerts/rules/${r.id}`} question={t.confirmDeleteRule(r.name)} locale={locale} />
        </>
      ),
    },
  ];
  return <DataTable columns={columns} rows={rules} rowKey={(r) => r.id} rowAttributes={(r) => ({ id: `rule-${r.id}`, "data-rule": r.name })} more={d.table.more} label={t.rulesTable.label} />;
}
