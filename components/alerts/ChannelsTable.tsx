import Link from "next/link";
import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DeleteButton } from "./DeleteButton.tsx";

export interface ChannelRow {
  id: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  target: string;
}

export function ChannelsTable({ channels, locale }: { channels: ChannelRow[]; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const c = t.channelsTable.cols;
  if (channels.length === 0) return <p className="muted">{t.channelsTable.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.channelsTable.label}>
        <thead>
          <tr>
            <th>{c.channel}</th>
            <th>{c.type}</th>
            <th>{c.target}</th>
            <th>{c.enabled}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {channels.map((ch) => (
            <tr key={ch.id}>
              <td translate="no">{ch.name}</td>
              <td>{t.channelTypes[ch.type]}</td>
              <td className="mono alerts-wrap" translate="no">
                {ch.target}
              </td>
              <td>{ch.enabled ? t.channelsTable.yes : t.channelsTable.no}</td>
              <td className="alerts-actions">
                <Link href={`/alerts?editChannel=${encodeURIComponent(ch.id)}#channel-form`}>{t.edit}</Link>{" "}
                <DeleteButton url={`/api/v1/alerts/channels/${ch.id}`} question={t.confirmDeleteChannel(ch.name)} locale={locale} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
