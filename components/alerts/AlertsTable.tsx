import Link from "next/link";
import { labelsText, type Labels } from "@/lib/alerts/labels.ts";
import { formatMatchers } from "@/lib/alerts/matchers-text.ts";
import type { AlertView } from "@/lib/alerts/repo.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { AlertRows } from "./AlertRows.tsx";
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
  const d = dictionary(locale);
  const t = d.alerts;
  const c = t.alertsTable.cols;
  if (alerts.length === 0) return <p className="muted">{t.alertsTable.empty}</p>;
  const setOf = (a: AlertRow) => labelsText(a.labels);
  const what = (a: AlertRow) => `${a.ruleName} ${setOf(a) ? `{${setOf(a)}}` : t.alertsTable.wholeRule}`;
  const columns: Column<AlertRow>[] = [
    { id: "state", header: c.state, cell: (a) => <StateBadge state={a.state} locale={locale} handled={a.silencedBy ? "silenced" : a.ack ? "acknowledged" : undefined} /> },
    { id: "rule", data: true, header: c.rule, wrap: "text", cell: (a) => <a href={`#rule-${encodeURIComponent(a.ruleId)}`}>{a.ruleName}</a> },
    { id: "labels", header: c.labels, mono: true, wrap: "id", minWidth: "16ch", maxWidth: "32rem", cell: (a) => (setOf(a) ? <span translate="no">{setOf(a)}</span> : <span className="muted">{t.alertsTable.wholeRule}</span>) },
    { id: "value", header: c.value, num: true, priority: 2, cell: (a) => (a.lastValue === null ? "–" : Number(a.lastValue.toFixed(2))) },
    { id: "since", header: c.since, mono: true, cell: (a) => (a.activeSince ? when(a.activeSince) : "–") },
    {
      id: "notes",
      header: c.notes,
      wrap: "text",
      maxWidth: "32rem",
      cell: (a) => (
        <>
          {a.silencedBy ? <div className="alerts-tag">{t.alertsTable.silenced(a.silencedBy.createdBy, when(a.silencedBy.endsAt))}</div> : null}
          {a.ack ? <div className="alerts-tag">{t.alertsTable.acknowledged(a.ack.by, a.ack.comment)}</div> : null}
        </>
      ),
    },
  ];
  // The acknowledge form's row spans every column: the table's, the fold's and the actions'.
  const span = columns.length + (columns.some((col) => (col.priority ?? 1) > 1) ? 1 : 0) + 1;
  return (
    <DataTable
      columns={columns}
      rows={alerts}
      rowKey={(a) => `${a.ruleId} ${setOf(a)}`}
      more={d.table.more}
      label={t.alertsTable.label}
      trailingColumn={{ id: "actions", header: null }}
      renderRow={(a, cells, key) => (
        <AlertRows
          key={key}
          what={what(a)}
          columns={span}
          locale={locale}
          ack={a.state === "firing" ? { ruleId: a.ruleId, labels: a.labels, acked: a.ack !== null } : null}
          silence={
            <Link href={`/alerts?silence=${encodeURIComponent(silenceMatchersFor(a.ruleName, a.labels))}#silence-form`} aria-label={t.alertsTable.silenceLabel(what(a))}>
              {t.alertsTable.silence}
            </Link>
          }
          cells={cells}
        />
      )}
    />
  );
}
