import Link from "next/link";
import type { FiringView } from "@/lib/alerts/history.ts";
import type { RuleInput } from "@/lib/alerts/schema.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { firingSummary } from "@/lib/i18n/condition.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { StateBadge } from "./StateBadge.tsx";

/** What the table shows of a firing: the history's own view of it. */
export type FiringRow = Pick<FiringView, "id" | "ruleName" | "severity" | "summary" | "condition" | "labels" | "value" | "keys" | "firedAt" | "resolvedAt">;

/** The firing history, newest first, each with the keys that made it fire. */
export function FiringsTable({ firings, locale }: { firings: FiringRow[]; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const c = t.firingsTable.cols;
  if (firings.length === 0) return <p className="muted">{t.firingsTable.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.firingsTable.label}>
        <thead>
          <tr>
            <th>{c.fired}</th>
            <th>{c.resolved}</th>
            <th>{c.rule}</th>
            <th>{c.severity}</th>
            <th>{c.what}</th>
            <th>{c.keys}</th>
          </tr>
        </thead>
        <tbody>
          {firings.map((f) => (
            <tr key={f.id}>
              <td className="mono">{formatTime(Date.parse(f.firedAt), { precision: "s" })}</td>
              <td className="mono">{f.resolvedAt ? formatTime(Date.parse(f.resolvedAt), { precision: "s" }) : <StateBadge state="firing" locale={locale} />}</td>
              <td translate="no">{f.ruleName}</td>
              {/* The severity the rule had when it fired, as stored. */}
              <td>{t.severities[f.severity as RuleInput["severity"]] ?? f.severity}</td>
              <td className="alerts-wrap">{firingSummary(f, locale)}</td>
              <td className="alerts-wrap">
                {f.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 ? ", " : ""}
                    <Link href={`/keys/${encodeURIComponent(k)}`} className="mono">
                      {k}
                    </Link>
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
