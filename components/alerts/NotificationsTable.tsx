export interface NotificationRow {
  id: string;
  ruleName: string;
  channelName: string;
  channelType: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
}

/** Notifications that failed or are being retried, with the reason the receiver or the network gave. */
export function NotificationsTable({ notifications }: { notifications: NotificationRow[] }) {
  if (notifications.length === 0) return <p className="muted">No failed notifications.</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label="Failed notifications">
        <thead>
          <tr>
            <th>created (UTC)</th>
            <th>rule</th>
            <th>channel</th>
            <th>event</th>
            <th>status</th>
            <th>attempts</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          {notifications.map((n) => (
            <tr key={n.id}>
              <td className="mono">{n.createdAt.replace("T", " ").slice(0, 19)}</td>
              <td>{n.ruleName}</td>
              <td>
                {n.channelName} <span className="muted">({n.channelType})</span>
              </td>
              <td>{n.event}</td>
              <td>{n.status === "pending" ? `retrying at ${n.nextAttemptAt.slice(11, 19)}` : n.status}</td>
              <td>{n.attempts}</td>
              <td className="alerts-wrap">{n.lastError}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
