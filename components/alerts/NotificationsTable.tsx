import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { AlertMessage } from "@/lib/alerts/channels/message.ts";
import type { NOTIFICATION_STATUSES, NotificationView } from "@/lib/alerts/history.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/** What the table shows of a notification: the history's own view of it. */
export type NotificationRow = Pick<
  NotificationView,
  "id" | "ruleName" | "channelName" | "channelType" | "event" | "status" | "attempts" | "nextAttemptAt" | "lastError" | "createdAt"
>;

/** Notifications that failed or are being retried, with the reason the receiver or the network gave. */
export function NotificationsTable({ notifications, locale }: { notifications: NotificationRow[]; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const c = t.notificationsTable.cols;
  if (notifications.length === 0) return <p className="muted">{t.notificationsTable.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.notificationsTable.label}>
        <thead>
          <tr>
            <th>{c.created}</th>
            <th>{c.rule}</th>
            <th>{c.channel}</th>
            <th>{c.event}</th>
            <th>{c.status}</th>
            <th>{c.attempts}</th>
            <th>{c.error}</th>
          </tr>
        </thead>
        <tbody>
          {notifications.map((n) => (
            <tr key={n.id}>
              <td className="mono">{formatTime(Date.parse(n.createdAt), { precision: "s" })}</td>
              <td translate="no">{n.ruleName}</td>
              <td>
                {n.channelName} <span className="muted">({t.channelTypes[n.channelType as ChannelType] ?? n.channelType})</span>
              </td>
              <td>{t.events[n.event as AlertMessage["event"]] ?? n.event}</td>
              <td>
                {n.status === "pending"
                  ? t.notificationsTable.retryingAt(formatTime(Date.parse(n.nextAttemptAt), { precision: "s", date: "none", zone: true }))
                  : (t.statuses[n.status as (typeof NOTIFICATION_STATUSES)[number]] ?? n.status)}
              </td>
              <td>{n.attempts}</td>
              <td className="alerts-wrap">{n.lastError}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
