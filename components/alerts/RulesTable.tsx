import Link from "next/link";
import type { RuleInput } from "@/lib/alerts/schema.ts";
import type { AlertStateName } from "@/lib/alerts/state-machine.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
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
  lastValue: number | null;
  lastEvalAt: string | null;
  lastError: string | null;
  channelNames: string[];
}

export function RulesTable({ rules, locale }: { rules: RuleRow[]; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const c = t.rulesTable.cols;
  if (rules.length === 0) return <p className="muted">{t.rulesTable.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.rulesTable.label}>
        <thead>
          <tr>
            <th>{c.state}</th>
            <th>{c.rule}</th>
            <th>{c.condition}</th>
            <th>{c.for}</th>
            <th>{c.severity}</th>
            <th>{c.lastValue}</th>
            <th>{c.channels}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id} id={`rule-${r.id}`} data-rule={r.name}>
              <td>
                <StateBadge state={r.enabled ? r.state : "disabled"} locale={locale} />
              </td>
              <td translate="no">{r.name}</td>
              <td className="alerts-wrap">
                {r.conditionText}
                {r.lastError ? (
                  <div role="alert" className="alerts-error">
                    {r.lastError}
                  </div>
                ) : null}
              </td>
              {/* The form asks whole seconds; the duration formatter's zero is "0 ms". */}
              <td>{r.forSeconds === 0 ? t.rulesTable.forZero : formatDuration(r.forSeconds * 1000, locale)}</td>
              <td>{t.severities[r.severity]}</td>
              <td title={r.lastEvalAt ? t.rulesTable.evaluatedAt(formatTime(Date.parse(r.lastEvalAt), { precision: "s", zone: true })) : t.rulesTable.notEvaluated}>{r.lastValue === null ? "–" : Number(r.lastValue.toFixed(2))}</td>
              <td>{r.channelNames.length > 0 ? <span translate="no">{r.channelNames.join(", ")}</span> : <span className="muted">{t.none}</span>}</td>
              <td className="alerts-actions">
                <Link href={`/alerts?edit=${encodeURIComponent(r.id)}#rule-form`}>{t.edit}</Link>{" "}
                <DeleteButton url={`/api/v1/alerts/rules/${r.id}`} question={t.confirmDeleteRule(r.name)} locale={locale} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
