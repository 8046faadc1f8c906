import Link from "next/link";
import { labelsText, type Labels } from "@/lib/alerts/labels.ts";
import { formatMatchers } from "@/lib/alerts/matchers-text.ts";
import type { AlertView } from "@/lib/alerts/repo.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { AlertRows } from "./AlertRows.tsx";
import { StateBadge } from "./StateBadge.tsx";

export interface AlertRow extends AlertView {
  ruleId: string;
  ruleName: string;
}

/** The table's columns, the actions included: the acknowledge form's row spans them all. */
const COLUMNS = 7;

const when = (iso: string) => formatTime(Date.parse(iso), { precision: "s" });

/** The matchers of a silence for exactly this alert: its rule's name and its label set. */
export function silenceMatchersFor(ruleName: string, labels: Labels): string {
  return formatMatchers([{ name: "alertname", value: ruleName, isRegex: false, isEqual: true }, ...Object.entries(labels).map(([name, value]) => ({ name, value, isRegex: false, isEqual: true }))]);
}

/** Every pending or firing alert, one per label set of a rule, with what was done about it. */
export function AlertsTable({ alerts, locale }: { alerts: AlertRow[]; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const c = t.alertsTable.cols;
  if (alerts.length === 0) return <p className="muted">{t.alertsTable.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.alertsTable.label}>
        <thead>
          <tr>
            <th>{c.state}</th>
            <th>{c.rule}</th>
            <th>{c.labels}</th>
            <th>{c.value}</th>
            <th>{c.since}</th>
            <th>{c.notes}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {alerts.map((a) => {
            const set = labelsText(a.labels);
            const what = `${a.ruleName} ${set ? `{${set}}` : t.alertsTable.wholeRule}`;
            return (
              <AlertRows
                key={`${a.ruleId} ${set}`}
                what={what}
                columns={COLUMNS}
                locale={locale}
                ack={a.state === "firing" ? { ruleId: a.ruleId, labels: a.labels, acked: a.ack !== null } : null}
                silence={
                  <Link href={`/alerts?silence=${encodeURIComponent(silenceMatchersFor(a.ruleName, a.labels))}#silence-form`} aria-label={t.alertsTable.silenceLabel(what)}>
                    {t.alertsTable.silence}
                  </Link>
                }
                cells={
                  <>
                    <td>
                      <StateBadge state={a.state} locale={locale} handled={a.silencedBy ? "silenced" : a.ack ? "acknowledged" : undefined} />
                    </td>
                    <td>
                      <a href={`#rule-${encodeURIComponent(a.ruleId)}`}>{a.ruleName}</a>
                    </td>
                    <td className="mono alerts-wrap">{set || <span className="muted">{t.alertsTable.wholeRule}</span>}</td>
                    <td>{a.lastValue === null ? "–" : Number(a.lastValue.toFixed(2))}</td>
                    <td className="mono">{a.activeSince ? when(a.activeSince) : "–"}</td>
                    <td className="alerts-wrap">
                      {a.silencedBy ? <div className="alerts-tag">{t.alertsTable.silenced(a.silencedBy.createdBy, when(a.silencedBy.endsAt))}</div> : null}
                      {a.ack ? <div className="alerts-tag">{t.alertsTable.acknowledged(a.ack.by, a.ack.comment)}</div> : null}
                    </td>
                  </>
                }
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
