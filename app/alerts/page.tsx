import type { Metadata } from "next";
import Link from "next/link";
import { AlertsLive } from "@/components/alerts/AlertsLive.tsx";
import { AlertsTable } from "@/components/alerts/AlertsTable.tsx";
import { ChannelForm } from "@/components/alerts/ChannelForm.tsx";
import { ChannelsTable } from "@/components/alerts/ChannelsTable.tsx";
import { FiringsTable } from "@/components/alerts/FiringsTable.tsx";
import { NotificationsTable } from "@/components/alerts/NotificationsTable.tsx";
import { RuleForm } from "@/components/alerts/RuleForm.tsx";
import { RulesTable } from "@/components/alerts/RulesTable.tsx";
import { SilenceForm } from "@/components/alerts/SilenceForm.tsx";
import { SilencesTable } from "@/components/alerts/SilencesTable.tsx";
import { CONDITION_KINDS } from "@/lib/alerts/conditions.ts";
import { listFirings, listNotifications } from "@/lib/alerts/history.ts";
import { listChannels, listRules, type ChannelView } from "@/lib/alerts/repo.ts";
import { SEVERITIES } from "@/lib/alerts/schema.ts";
import { listSilences } from "@/lib/alerts/silences.ts";
import { CAUSES, DEDUP_LAYERS } from "@/lib/diagnosis/vocabulary.ts";
import { parseFilters } from "@/lib/queries/filters.ts";
import { conditionText } from "@/lib/i18n/condition.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { getStore } from "@/lib/store/index.ts";
import { filterChoices } from "@/lib/views/filters.ts";
import "./alerts.css";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<{ edit?: string; editChannel?: string; silence?: string; lang?: string | string[] }> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.alerts.title };
}

/** What a channel sends to, without its secrets or the token in a robot URL's query. */
function target(channel: ChannelView): string {
  const config = channel.config as Record<string, unknown>;
  if (typeof config.url === "string") return config.url.replace(/\?.*$/, "?…");
  return `${String(config.host)}:${String(config.port)} → ${(config.to as string[] | undefined)?.join(", ") ?? ""}`;
}

export default async function AlertsPage({ searchParams }: Props) {
  const { edit, editChannel, silence, lang } = await searchParams;
  const { locale, t: d } = await requestText(lang);
  const t = d.alerts;
  const store = await getStore();
  const [rules, channels, firings, notifications, silences, known] = await Promise.all([
    listRules(store),
    listChannels(store),
    listFirings(store, { limit: 50 }),
    listNotifications(store, { limit: 200 }),
    listSilences(store.driver),
    // The groups and topics of the longest window a rule may have: the ones a rule can see.
    filterChoices(store.driver, parseFilters({ range: "7d" }, Date.now())),
  ]);
  const alerts = rules.flatMap((r) =>
    r.enabled ? r.alerts.filter((a) => a.state === "firing" || a.state === "pending").map((a) => ({ ...a, ruleId: r.id, ruleName: r.name })) : [],
  );
  const channelName = new Map(channels.map((c) => [c.id, c.name]));
  const editing = rules.find((r) => r.id === edit);
  const editingChannel = channels.find((c) => c.id === editChannel);
  const failures = notifications.filter((n) => n.status === "failed" || (n.status === "pending" && n.lastError !== null)).slice(0, 50);
  const options = { kinds: CONDITION_KINDS, causes: CAUSES, layers: DEDUP_LAYERS, severities: SEVERITIES, channels: channels.map((c) => ({ id: c.id, name: c.name, type: c.type })), groups: known.groups, topics: known.topics };
  const states = [t.states.inactive, t.states.pending, t.states.firing, t.states.resolved].join(" → ");
  return (
    <>
      <h1>{t.title}</h1>
      <p className="muted">
        {t.intro.evaluation}
        <code>DUPSCOPE_ALERT_INTERVAL_MS</code>
        {t.intro.cycle(states)}
        {t.intro.exportLead}
        <a href="/api/v1/alerts/prometheus-rules">
          <code>prometheus-rules</code>
        </a>
        {t.intro.exportOver}
        <a href="/api/metrics">/api/metrics</a>
        {t.intro.exportEnd}
      </p>

      <h2>{t.alerts}</h2>
      <p className="muted">{t.alertsIntro}</p>
      <AlertsLive locale={locale} />
      <AlertsTable alerts={alerts} locale={locale} />

      <h2 id="silences">{t.silences}</h2>
      <SilencesTable silences={silences} locale={locale} />
      <h3 id="silence-form">{t.silenceForm.label}</h3>
      <SilenceForm key={silence ?? "new-silence"} locale={locale} {...(silence ? { matchers: silence } : {})} />

      <h2>{t.rules}</h2>
      <RulesTable
        locale={locale}
        rules={rules.map((r) => ({ ...r, conditionText: conditionText(r.condition, locale), channelNames: r.channelIds.map((id) => channelName.get(id) ?? id) }))}
      />
      <h3 id="rule-form">{editing ? t.editRule(editing.name) : t.newRule}</h3>
      {editing ? <Link href="/alerts">{t.cancelEditing}</Link> : null}
      <RuleForm key={editing?.id ?? "new-rule"} options={options} locale={locale} {...(editing ? { initial: editing } : {})} />

      <h2>{t.firings}</h2>
      <FiringsTable firings={firings} locale={locale} />

      <h2>{t.failedNotifications}</h2>
      <NotificationsTable notifications={failures} locale={locale} />

      <h2>{t.channels}</h2>
      <ChannelsTable channels={channels.map((c) => ({ ...c, target: target(c) }))} locale={locale} />
      <h3 id="channel-form">{editingChannel ? t.editChannel(editingChannel.name) : t.newChannel}</h3>
      {editingChannel ? <Link href="/alerts">{t.cancelEditing}</Link> : null}
      <ChannelForm key={editingChannel?.id ?? "new-channel"} locale={locale} {...(editingChannel ? { initial: editingChannel } : {})} />
    </>
  );
}
