import Link from "next/link";
import { DeleteButton } from "./DeleteButton.tsx";

export interface ChannelRow {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  target: string;
}

export function ChannelsTable({ channels }: { channels: ChannelRow[] }) {
  if (channels.length === 0) return <p className="muted">No channels yet.</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label="Notification channels">
        <thead>
          <tr>
            <th>channel</th>
            <th>type</th>
            <th>target</th>
            <th>enabled</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {channels.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{c.type}</td>
              <td className="mono alerts-wrap">{c.target}</td>
              <td>{c.enabled ? "yes" : "no"}</td>
              <td className="alerts-actions">
                <Link href={`/alerts?editChannel=${encodeURIComponent(c.id)}#channel-form`}>Edit</Link> <DeleteButton url={`/api/v1/alerts/channels/${c.id}`} what={`channel "${c.name}"`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
