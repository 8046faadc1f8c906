import Link from "next/link";
import { labelsText, type Labels } from "@/lib/alerts/labels.ts";
import { formatMatchers } from "@/lib/alerts/matchers-text.ts";
import type { AlertView } from "@/lib/alerts/repo.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { AckControl } from "./AckControl.tsx";
import { StateBadge } from "./StateBadge.tsx";

export interface AlertRow extends AlertView {
  ruleId: string;
  ruleName: string;
}

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
              <tr key={`${a.ruleId} ${set}`} data-alert={what}>
                <td>
                  <StateBadge state={a.state} locale={locale} handled={a.silencedBy ? "silenced" : a.ack ? "acknowledged" : undefined} />
                </td>
                <td>
                  <a href={`#rule-${encodeURIComponent(a.ruleId)}`} translate="no">
                    {a.ruleName}
                  </a>
                </td>
                <td className="mono alerts-wrap">{set ? <span translate="no">{set}</span> : <span className="muted">{t.alertsTable.wholeRule}</span>}</td>
                <td>{a.lastValue === null ? "–" : Number(a.lastValue.toFixed(2))}</td>
                <td className="mono">{a.activeSince ? when(a.activeSince) : "–"}</td>
                <td className="alerts-wrap">
                  {a.silencedBy ? <div className="alerts-tag">{t.alertsTable.silenced(a.silencedBy.createdBy, when(a.silencedBy.endsAt))}</div> : null}
                  {a.ack ? <div className="alerts-tag">{t.alertsTable.acknowledged(a.ack.by, a.ack.comment)}</div> : null}
                </td>
                <td className="alerts-actions">
                  <Link href={`/alerts?silence=${encodeURIComponent(silenceMatchersFor(a.ruleName, a.labels))}#silence-form`} aria-label={t.alertsTable.silenceLabel(what)}>
                    {t.alertsTable.silence}
                  </Link>{" "}
                  {a.state === "firing" ? <AckControl ruleId={a.ruleId} labels={a.labels} what={what} acked={a.ack !== null} locale={locale} /> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
