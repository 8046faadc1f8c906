import Link from "next/link";
import type { FiringView } from "@/lib/alerts/history.ts";
import type { RuleInput } from "@/lib/alerts/schema.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { firingSummary } from "@/lib/i18n/condition.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { StateBadge } from "./StateBadge.tsx";

/** What the table shows of a firing: the history's own view of it. */
export type FiringRow = Pick<FiringView, "id" | "ruleName" | "severity" | "summary" | "condition" | "labels" | "value" | "keys" | "firedAt" | "resolvedAt">;

/** The firing history, newest first, each with the keys that made it fire. */
export function FiringsTable({ firings, locale }: { firings: FiringRow[]; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts;
  const c = t.firingsTable.cols;
  if (firings.length === 0) return <p className="muted">{t.firingsTable.empty}</p>;
  const columns: Column<FiringRow>[] = [
    { id: "time", header: c.fired, mono: true, cell: (f) => formatTime(Date.parse(f.firedAt), { precision: "s" }) },
    { id: "resolved", header: c.resolved, mono: true, cell: (f) => (f.resolvedAt ? formatTime(Date.parse(f.resolvedAt), { precision: "s" }) : <StateBadge state="firing" locale={locale} />) },
    { id: "rule", data: true, header: c.rule, wrap: "text", cell: (f) => f.ruleName },
    // The severity the rule had when it fired, as stored.
    { id: "severity", header: c.severity, priority: 2, cell: (f) => t.severities[f.severity as RuleInput["severity"]] ?? f.severity },
    { id: "what", header: c.what, wrap: "text", maxWidth: "32rem", cell: (f) => firingSummary(f, locale) },
    {
      id: "keys",
      header: c.keys,
      wrap: "text",
      maxWidth: "32rem",
      cell: (f) =>
        f.keys.map((k, i) => (
          <span key={k}>
            {i > 0 ? ", " : ""}
            <Link href={`/keys/${encodeURIComponent(k)}`} className="mono">
              {k}
            </Link>
          </span>
        )),
    },
  ];
  return <DataTable columns={columns} rows={firings} rowKey={(f) => String(f.id)} more={d.table.more} label={t.firingsTable.label} />;
}
