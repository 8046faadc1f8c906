import type { Metadata } from "next";
import Link from "next/link";
import { ChannelForm } from "@/components/alerts/ChannelForm.tsx";
import { ChannelsTable } from "@/components/alerts/ChannelsTable.tsx";
import { FiringsTable } from "@/components/alerts/FiringsTable.tsx";
import { NotificationsTable } from "@/components/alerts/NotificationsTable.tsx";
import { RuleForm } from "@/components/alerts/RuleForm.tsx";
import { RulesTable } from "@/components/alerts/RulesTable.tsx";
import { CONDITION_KINDS } from "@/lib/alerts/conditions.ts";
import { listFirings, listNotifications } from "@/lib/alerts/history.ts";
import { listChannels, listRules, type ChannelView } from "@/lib/alerts/repo.ts";
import { SEVERITIES } from "@/lib/alerts/schema.ts";
import { CAUSES, DEDUP_LAYERS } from "@/lib/diagnosis/vocabulary.ts";
import { getStore } from "@/lib/store/index.ts";
import "./alerts.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts" };

type Props = { searchParams: Promise<{ edit?: string; editChannel?: string }> };

/** What a channel sends to, without its secrets or the token in a robot URL's query. */
function target(channel: ChannelView): string {
  const config = channel.config as Record<string, unknown>;
  if (typeof config.url === "string") return config.url.replace(/\?.*$/, "?…");
  return `${String(config.host)}:${String(config.port)} → ${(config.to as string[] | undefined)?.join(", ") ?? ""}`;
}

export default async function AlertsPage({ searchParams }: Props) {
  const { edit, editChannel } = await searchParams;
  const store = await getStore();
  const [rules, channels, firings, notifications] = await Promise.all([
    listRules(store),
    listChannels(store),
    listFirings(store, { limit: 50 }),
    listNotifications(store, { limit: 200 }),
  ]);
  const channelName = new Map(channels.map((c) => [c.id, c.name]));
  const editing = rules.find((r) => r.id === edit);
  const editingChannel = channels.find((c) => c.id === editChannel);
  const failures = notifications.filter((n) => n.status === "failed" || (n.status === "pending" && n.lastError !== null)).slice(0, 50);
  const options = { kinds: CONDITION_KINDS, causes: CAUSES, layers: DEDUP_LAYERS, severities: SEVERITIES, channels: channels.map((c) => ({ id: c.id, name: c.name, type: c.type })) };
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        Rules are evaluated every 30 s (<code>DUPSCOPE_ALERT_INTERVAL_MS</code>): inactive → pending → firing → resolved, one notification when a rule fires
        and one when it resolves. The same rules for Prometheus: <a href="/api/v1/alerts/prometheus-rules">prometheus-rules</a>, over{" "}
        <a href="/api/metrics">/api/metrics</a>.
      </p>

      <h2>Rules</h2>
      <RulesTable rules={rules.map((r) => ({ ...r, channelNames: r.channelIds.map((id) => channelName.get(id) ?? id) }))} />
      <h3 id="rule-form">{editing ? `Edit rule "${editing.name}"` : "New rule"}</h3>
      {editing ? <Link href="/alerts">cancel editing</Link> : null}
      <RuleForm key={editing?.id ?? "new-rule"} options={options} {...(editing ? { initial: editing } : {})} />

      <h2>Firing history</h2>
      <FiringsTable firings={firings} />

      <h2>Failed notifications</h2>
      <NotificationsTable notifications={failures} />

      <h2>Channels</h2>
      <ChannelsTable channels={channels.map((c) => ({ ...c, target: target(c) }))} />
      <h3 id="channel-form">{editingChannel ? `Edit channel "${editingChannel.name}"` : "New channel"}</h3>
      {editingChannel ? <Link href="/alerts">cancel editing</Link> : null}
      <ChannelForm key={editingChannel?.id ?? "new-channel"} {...(editingChannel ? { initial: editingChannel } : {})} />
    </>
  );
}
