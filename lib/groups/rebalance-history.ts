import type { NormalizedEvent } from "../events/model.ts";

/**
 * A group's rebalances as episodes and queue moves: every member logs its own part of one rebalance (the queues it
 * gave up, the queues it took) within seconds, so lines closer than EPISODE_GAP_MS are one episode, and within it
 * a queue given up by A and taken by B moved from A to B. Pure: events in, history out.
 */

export const EPISODE_GAP_MS = 10_000;

export interface QueueMove {
  topic: string | null;
  queue: string;
  /** Instances that gave the queue up (none: it was new to the group, or its owner vanished without a word). */
  from: string[];
  /** Instances that took it (none: nobody yet, or the taker logged nothing). */
  to: string[];
  ts: number;
}

export interface RebalanceEpisode {
  start: number;
  end: number;
  /** Instances that logged a part of it. */
  instances: string[];
  moves: QueueMove[];
  /** Rebalance lines in the episode, moves or not (result sets, notifications). */
  lines: number;
}

const REMOVE = new Set(["remove", "revoke", "lost"]);
const ADD = new Set(["add", "assign"]);

export function rebalanceHistory(events: readonly NormalizedEvent[]): RebalanceEpisode[] {
  const lines = events.filter((e) => e.kind === "rebalance").sort((a, b) => a.ts - b.ts);
  const episodes: NormalizedEvent[][] = [];
  for (const e of lines) {
    const current = episodes.at(-1);
    if (current && e.ts - current.at(-1)!.ts <= EPISODE_GAP_MS) current.push(e);
    else episodes.push([e]);
  }
  return episodes.map((group) => {
    const moves = new Map<string, QueueMove>();
    for (const e of group) {
      const action = typeof e.detail.action === "string" ? e.detail.action : "";
      if (e.queue === null || e.instance === null || !(REMOVE.has(action) || ADD.has(action))) continue;
      const id = `${e.topic ?? ""}@${e.queue}`;
      const move = moves.get(id) ?? { topic: e.topic, queue: e.queue, from: [], to: [], ts: e.ts };
      const side = REMOVE.has(action) ? move.from : move.to;
      if (!side.includes(e.instance)) side.push(e.instance);
      moves.set(id, move);
    }
    return {
      start: group[0]!.ts,
      end: group.at(-1)!.ts,
      instances: [...new Set(group.map((e) => e.instance).filter((i): i is string => i !== null))].sort(),
      moves: [...moves.values()].sort((a, b) => a.ts - b.ts || (a.queue < b.queue ? -1 : 1)),
      lines: group.length,
    };
  });
}
