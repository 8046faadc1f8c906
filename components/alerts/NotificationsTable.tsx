import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { AlertMessage } from "@/lib/alerts/channels/message.ts";
import type { NOTIFICATION_STATUSES, NotificationView } from "@/lib/alerts/history.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";

/** What the table shows of a notification: the history's own view of it. */
export type NotificationRow = Pick<
  NotificationView,
  "id" | "ruleName" | "channelName" | "channelType" | "event" | "status" | "attempts" | "nextAttemptAt" | "lastError" | "createdAt"
>;

/** Notifications that failed or are being retried, with the reason the receiver or the network gave. */
export function NotificationsTable({ notifications, locale }: { notifications: NotificationRow[]; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts;
  const c = t.notificationsTable.cols;
  if (notifications.length === 0) return <p className="muted">{t.notificationsTable.empty}</p>;
  const columns: Column<NotificationRow>[] = [
    { id: "time", header: c.created, mono: true, cell: (n) => formatTime(Date.parse(n.createdAt), { precision: "s" }) },
    { id: "rule", data: true, header: c.rule, wrap: "text", cell: (n) => n.ruleName },
    {
      id: "channel",
      header: c.channel,
      wrap: "text",
      cell: (n) => (
        <>
          {n.channelName} <span className="muted">({t.channelTypes[n.channelType as ChannelType] ?? n.channelType})</span>
        </>
      ),
    },
    { id: "event", header: c.event, priority: 2, cell: (n) => t.events[n.event as AlertMessage["event"]] ?? n.event },
    {
      id: "status",
      header: c.status,
      wrap: "text",
      cell: (n) =>
        n.status === "pending"
          ? t.notificationsTable.retryingAt(formatTime(Date.parse(n.nextAttemptAt), { precision: "s", date: "none", zone: true }))
          : (t.statuses[n.status as (typeof NOTIFICATION_STATUSES)[number]] ?? n.status),
    },
    { id: "attempts", header: c.attempts, num: true, priority: 2, cell: (n) => n.attempts },
    { id: "error", header: c.error, wrap: "text", maxWidth: "32rem", cell: (n) => n.lastError },
  ];
  return <DataTable columns={columns} rows={notifications} rowKey={(n) => String(n.id)} more={d.table.more} label={t.notificationsTable.label} />;
}
