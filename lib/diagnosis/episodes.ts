import type { EvidenceCode } from "./evidence.ts";
import type { Delivery, Verdict } from "./types.ts";
import type { Cause } from "./vocabulary.ts";

/**
 * Causes that strike a whole group at once, and the evidence every key's verdict cites for it: all keys whose
 * verdict rests on the same reset line are one episode. The findings gather them so the group page and the API can
 * say "the offsets of cg_order_paid were reset at 12:00:05: 31 keys on 4 queues consumed again", with the keys.
 */
export const GROUP_LEVEL: Partial<Record<Cause, EvidenceCode>> = {
  offset_rollback: "offset_reset",
  shared_client_id: "client_id_shared",
};

/** How many of an episode's keys it lists; `keys` counts them all. */
export const EPISODE_SAMPLE_KEYS = 50;

export interface EpisodeQueue {
  queue: string;
  /** The lowest and highest queue offset consumed again, when the deliveries carry one. */
  fromOffset: number | null;
  toOffset: number | null;
  keys: number;
}

export interface Episode {
  cause: Cause;
  /** The event the verdicts cite (the broker's or client's reset line). */
  eventId: string;
  /** When that event happened. */
  ts: number;
  /** The cited evidence's values (for offset_reset: resetTo, by). */
  values: Record<string, unknown>;
  keys: number;
  duplicates: number;
  sampleKeys: string[];
  queues: EpisodeQueue[];
  /** The span of the repeated deliveries. */
  firstTs: number;
  lastTs: number;
}

/** One verdict of a group-level cause, with the key and the delivery that repeated. */
export interface EpisodeMember {
  bizKey: string;
  verdict: Verdict;
  second: Delivery | undefined;
}

export function gatherEpisodes(members: readonly EpisodeMember[]): Episode[] {
  const byAnchor = new Map<string, { cause: Cause; ts: number; values: Record<string, unknown>; members: EpisodeMember[] }>();
  for (const m of members) {
    const code = GROUP_LEVEL[m.verdict.cause];
    const cited = code === undefined ? undefined : m.verdict.evidence.find((e) => e.code === code);
    const eventId = cited?.eventIds[0];
    if (cited === undefined || eventId === undefined) continue;
    let entry = byAnchor.get(eventId);
    if (entry === undefined) {
      const values = cited.values as Record<string, unknown>;
      byAnchor.set(eventId, (entry = { cause: m.verdict.cause, ts: typeof values.ts === "number" ? values.ts : 0, values, members: [] }));
    }
    entry.members.push(m);
  }
  return [...byAnchor.entries()]
    .map(([eventId, e]) => {
      const sorted = [...e.members].sort((a, b) => (a.second?.start ?? 0) - (b.second?.start ?? 0));
      const keys = [...new Set(sorted.map((m) => m.bizKey))];
      const queues = new Map<string, { offsets: number[]; keys: Set<string> }>();
      for (const m of sorted) {
        const queue = m.second?.queue;
        if (queue === null || queue === undefined) continue;
        let q = queues.get(queue);
        if (q === undefined) queues.set(queue, (q = { offsets: [], keys: new Set() }));
        q.keys.add(m.bizKey);
        if (m.second?.queueOffset !== null && m.second?.queueOffset !== undefined) q.offsets.push(m.second.queueOffset);
      }
      const starts = sorted.map((m) => m.second?.start).filter((t): t is number => t !== undefined);
      const values = Object.fromEntries(Object.entries(e.values).filter(([name]) => name !== "ts"));
      return {
        cause: e.cause,
        eventId,
        ts: e.ts,
        values,
        keys: keys.length,
        duplicates: sorted.length,
        sampleKeys: keys.slice(0, EPISODE_SAMPLE_KEYS),
        queues: [...queues.entries()]
          .map(([queue, q]) => ({ queue, fromOffset: q.offsets.length > 0 ? Math.min(...q.offsets) : null, toOffset: q.offsets.length > 0 ? Math.max(...q.offsets) : null, keys: q.keys.size }))
          .sort((a, b) => (a.queue < b.queue ? -1 : 1)),
        firstTs: starts.length > 0 ? Math.min(...starts) : e.ts,
        lastTs: starts.length > 0 ? Math.max(...starts) : e.ts,
      };
    })
    .sort((a, b) => b.ts - a.ts);
}
