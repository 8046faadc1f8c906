import type { NormalizedEvent } from "../events/model.ts";
import { gatherEpisodes, GROUP_LEVEL, type Episode, type EpisodeMember } from "./episodes.ts";
import type { KeyDiagnosis, Verdict } from "./types.ts";
import { CAUSES, countsAsDuplicate, DEDUP_LAYERS, DEFECTS, gapClass, type Cause, type DedupLayer, type Defect } from "./vocabulary.ts";

/**
 * Aggregates over many keys, per consumer group and topic: how often keys are duplicated, why, whether the dedup
 * layers held, how often the group rebalances, how far apart duplicates are per cause — and advice drawn from
 * those numbers. Advice is data (a code and its values); lib/i18n/diagnosis-text.ts words it.
 */

export interface DeliveredKeys {
  group: string | null;
  /** null: the count covers every topic of the group (give per-topic counts when a group reads several). */
  topic: string | null;
  /** Distinct business keys delivered to the group in the period: the denominator of the duplicate rate. */
  keys: number;
}

export interface FindingsInput {
  diagnoses: readonly KeyDiagnosis[];
  delivered: readonly DeliveredKeys[];
  /** Rebalance events of the period, for the rebalance frequency. */
  rebalances?: readonly NormalizedEvent[];
  period?: { from: number; to: number };
}

export interface GapStats {
  count: number;
  ms: number;
  seconds: number;
  minutes: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface AdviceValues {
  marker_ttl_short: { ttlMs: number; sharePct: number; longestGapMs: number; peakConsumeMs: number | null };
  non_atomic_check: { count: number };
  key_not_business_key: { count: number };
  marker_not_released: { count: number };
  async_ack: { count: number };
  no_durable_layer: { count: number };
  rebalance_duplicates: { count: number; sharePct: number; perHour: number | null };
  ack_lost_duplicates: { count: number };
  consume_timeouts: { count: number; peakConsumeMs: number | null };
  commit_failures: { count: number };
  offset_rollbacks: { count: number };
  shared_client_ids: { count: number };
  producer_retries: { count: number };
  upstream_resends: { count: number };
  dlq_replays: { count: number };
  double_commits: { count: number };
  delayed_double_writes: { count: number };
  no_dedup_log: { count: number };
}

export type AdviceCode = keyof AdviceValues;
export type Advice = { [C in AdviceCode]: { code: C; group: string | null; topic: string | null; values: AdviceValues[C] } }[AdviceCode];

export interface GroupFindings {
  group: string | null;
  topic: string | null;
  keysDelivered: number | null;
  keysWithDuplicates: number;
  /** keysWithDuplicates / keysDelivered; null without a delivered count. */
  duplicateRate: number | null;
  duplicates: number;
  causes: Record<Cause, number>;
  outcomes: { caught: number; caughtBy: Record<DedupLayer, number>; leaked: number; unknown: number };
  defects: Record<Defect, number>;
  lost: number;
  normalRetries: number;
  rebalances: { episodes: number; perHour: number | null };
  gaps: Partial<Record<Cause, GapStats>>;
  /** Group-level causes (offset rollback), one entry per incident with the keys it explains, newest first. */
  episodes: Episode[];
  advice: Advice[];
}

/** Rebalance lines of one change arrive from every member within seconds; lines closer than this are one episode. */
const EPISODE_GAP_MS = 10_000;

interface Row {
  group: string | null;
  topic: string | null;
  verdicts: Verdict[];
  keys: Set<string>;
  lost: number;
  lostToMarker: number;
  normalRetries: number;
  ttls: number[];
  consumeMs: number[];
  episodeMembers: EpisodeMember[];
}

export function summarizeFindings(input: FindingsInput): GroupFindings[] {
  const rows = new Map<string, Row>();
  const rowFor = (group: string | null, topic: string | null) => {
    const id = JSON.stringify([group, topic]);
    let row = rows.get(id);
    if (row === undefined) rows.set(id, (row = { group, topic, verdicts: [], keys: new Set(), lost: 0, lostToMarker: 0, normalRetries: 0, ttls: [], consumeMs: [], episodeMembers: [] }));
    return row;
  };
  for (const k of input.diagnoses) {
    for (const g of k.groups) {
      const row = rowFor(g.group, g.topic);
      row.normalRetries += g.normalRetries;
      if (g.ttlMs !== null) row.ttls.push(g.ttlMs);
      if (g.maxConsumeMs !== null) row.consumeMs.push(g.maxConsumeMs);
    }
    const topicOf = (group: string | null) => k.groups.find((g) => g.group === group)?.topic ?? null;
    for (const v of k.duplicates) {
      if (!countsAsDuplicate(v)) continue;
      const row = rowFor(v.group, topicOf(v.group));
      row.verdicts.push(v);
      row.keys.add(k.bizKey);
      if (GROUP_LEVEL[v.cause] !== undefined) row.episodeMembers.push({ bizKey: k.bizKey, verdict: v, second: k.deliveries.find((d) => d.id === v.deliveries[1]) });
    }
    for (const l of k.lost) {
      const row = rowFor(l.group, topicOf(l.group));
      row.lost++;
      if (l.defect === "marker_not_released") row.lostToMarker++;
    }
  }
  return [...rows.values()].map((row) => summarizeRow(row, input));
}

function summarizeRow(row: Row, input: FindingsInput): GroupFindings {
  const delivered =
    input.delivered.find((d) => d.group === row.group && d.topic === row.topic) ?? input.delivered.find((d) => d.group === row.group && d.topic === null);
  const count = <T extends string>(all: readonly T[], pick: (v: Verdict) => T | undefined) => {
    const out = Object.fromEntries(all.map((x) => [x, 0])) as Record<T, number>;
    for (const v of row.verdicts) {
      const key = pick(v);
      if (key !== undefined) out[key]++;
    }
    return out;
  };
  const causes = count(CAUSES, (v) => v.cause);
  const defects = count(DEFECTS, (v) => v.defect);
  const caughtBy = count(DEDUP_LAYERS, (v) => (v.outcome === "caught" ? v.layer : undefined));
  const gaps: Partial<Record<Cause, GapStats>> = {};
  for (const cause of CAUSES) {
    const list = row.verdicts.filter((v) => v.cause === cause).map((v) => Math.abs(v.gapMs));
    if (list.length > 0) gaps[cause] = gapStats(list);
  }
  const rebalances = rebalanceFrequency(row.group, input);
  const findings: GroupFindings = {
    group: row.group,
    topic: row.topic,
    keysDelivered: delivered?.keys ?? null,
    keysWithDuplicates: row.keys.size,
    duplicateRate: delivered !== undefined && delivered.keys > 0 ? row.keys.size / delivered.keys : null,
    duplicates: row.verdicts.length,
    causes,
    outcomes: {
      caught: row.verdicts.filter((v) => v.outcome === "caught").length,
      caughtBy,
      leaked: row.verdicts.filter((v) => v.outcome === "leaked").length,
      unknown: row.verdicts.filter((v) => v.outcome === "unknown").length,
    },
    defects,
    lost: row.lost,
    normalRetries: row.normalRetries,
    rebalances,
    gaps,
    episodes: gatherEpisodes(row.episodeMembers),
    advice: [],
  };
  findings.advice = advise(row, findings);
  return findings;
}

function gapStats(values: number[]): GapStats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    count: sorted.length,
    ms: sorted.filter((g) => gapClass(g) === "ms").length,
    seconds: sorted.filter((g) => gapClass(g) === "seconds").length,
    minutes: sorted.filter((g) => gapClass(g) === "minutes").length,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    maxMs: sorted[sorted.length - 1]!,
  };
}

function rebalanceFrequency(group: string | null, input: FindingsInput): GroupFindings["rebalances"] {
  const times = (input.rebalances ?? [])
    .filter((e) => e.kind === "rebalance" && e.group === group)
    .map((e) => e.ts)
    .sort((a, b) => a - b);
  let episodes = 0;
  let last = -Infinity;
  for (const ts of times) {
    if (ts - last > EPISODE_GAP_MS) episodes++;
    last = ts;
  }
  const hours = input.period === undefined ? null : (input.period.to - input.period.from) / 3_600_000;
  return { episodes, perHour: hours === null || hours <= 0 ? null : Math.round((episodes / hours) * 10) / 10 };
}

/** Each piece of advice fires only when the numbers show the problem, and carries the numbers that show it. */
function advise(row: Row, f: GroupFindings): Advice[] {
  const { group, topic } = f;
  const advice: Advice[] = [];
  const push = <C extends AdviceCode>(code: C, values: AdviceValues[C]) => advice.push({ code, group, topic, values } as Advice);
  const peakConsumeMs = row.consumeMs.length > 0 ? Math.max(...row.consumeMs) : null;
  const gapsMs = row.verdicts.map((v) => Math.abs(v.gapMs));

  if (row.ttls.length > 0 && gapsMs.length > 0) {
    const ttlMs = Math.min(...row.ttls);
    const over = gapsMs.filter((g) => g > ttlMs).length;
    if (over > 0) push("marker_ttl_short", { ttlMs, sharePct: Math.round((over / gapsMs.length) * 100), longestGapMs: Math.max(...gapsMs), peakConsumeMs });
  }
  const d = f.defects;
  if (d.non_atomic_check > 0) push("non_atomic_check", { count: d.non_atomic_check });
  if (d.dedup_key_not_business_key > 0) push("key_not_business_key", { count: d.dedup_key_not_business_key });
  if (d.async_ack > 0) push("async_ack", { count: d.async_ack });
  if (d.no_durable_layer > 0) push("no_durable_layer", { count: d.no_durable_layer });
  if (row.lostToMarker > 0) push("marker_not_released", { count: row.lostToMarker });

  const c = f.causes;
  if (c.rebalance > 0) push("rebalance_duplicates", { count: c.rebalance, sharePct: Math.round((c.rebalance / f.duplicates) * 100), perHour: f.rebalances.perHour });
  if (c.ack_lost > 0) push("ack_lost_duplicates", { count: c.ack_lost });
  if (c.consume_timeout > 0) push("consume_timeouts", { count: c.consume_timeout, peakConsumeMs });
  if (c.commit_failed > 0) push("commit_failures", { count: c.commit_failed });
  if (c.offset_rollback > 0) push("offset_rollbacks", { count: c.offset_rollback });
  if (c.shared_client_id > 0) push("shared_client_ids", { count: c.shared_client_id });
  if (c.producer_retry > 0) push("producer_retries", { count: c.producer_retry });
  if (c.upstream_resend > 0) push("upstream_resends", { count: c.upstream_resend });
  if (c.dlq_replay > 0) push("dlq_replays", { count: c.dlq_replay });
  if (c.transaction_checkback > 0) push("double_commits", { count: c.transaction_checkback });
  if (c.delayed_double_write > 0) push("delayed_double_writes", { count: c.delayed_double_write });
  if (f.outcomes.unknown > 0) push("no_dedup_log", { count: f.outcomes.unknown });
  return advice;
}
