import Link from "next/link";
import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
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
  const columns: Column<ChannelRow>[] = [
    { id: "channel", data: true, header: c.channel, wrap: "text", cell: (ch) => ch.name },
    { id: "type", header: c.type, cell: (ch) => t.channelTypes[ch.type] },
    { id: "target", data: true, header: c.target, mono: true, wrap: "id", maxWidth: "32rem", title: (ch) => ch.target, cell: (ch) => ch.target },
    { id: "enabled", header: c.enabled, cell: (ch) => (ch.enabled ? t.channelsTable.yes : t.channelsTable.no) },
    {
      id: "actions",
      header: null,
      cell: (ch) => (
        <>
          <Link href={`/alerts?editChannel=${encodeURIComponent(ch.id)}#channel-form`}>{t.edit}</Link>{" "}
          <DeleteButton url={`/api/v1/alerts/channels/${ch.id}`} question={t.confirmDeleteChannel(ch.name)} locale={locale} />
        </>
      ),
    },
  ];
  return <DataTable columns={columns} rows={channels} rowKey={(ch) => ch.id} label={t.channelsTable.label} />;
}
