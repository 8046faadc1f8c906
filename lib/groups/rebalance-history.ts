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

/** Episodes a page of the history lists: ten one-line summaries keep the group page to a few screens. */
export const HISTORY_PAGE_SIZE = 10;

export interface HistoryPage {
  /** This page's episodes, newest first. */
  episodes: RebalanceEpisode[];
  /** 1-based; a page past the last shows the last. */
  page: number;
  pages: number;
  /** Positions (1-based, newest first) of the first and last episode shown, of `total`. */
  first: number;
  last: number;
  total: number;
}

/** The page of the history that lists the episode started at `start` (1 when none did). */
export function pageOfEpisode(episodes: readonly RebalanceEpisode[], start: number, size = HISTORY_PAGE_SIZE): number {
  const index = episodes.findIndex((e) => e.start === start);
  return index < 0 ? 1 : Math.floor((episodes.length - 1 - index) / size) + 1;
}

/** One page of the history, newest first, so a busy week's every episode is reachable and none is cut. */
export function historyPage(episodes: readonly RebalanceEpisode[], page: number, size = HISTORY_PAGE_SIZE): HistoryPage {
  const total = episodes.length;
  const pages = Math.max(1, Math.ceil(total / size));
  const current = Math.min(Math.max(1, Number.isInteger(page) ? page : 1), pages);
  const newestFirst = [...episodes].reverse().slice((current - 1) * size, current * size);
  const first = total === 0 ? 0 : (current - 1) * size + 1;
  return { episodes: newestFirst, page: current, pages, first, last: first === 0 ? 0 : first + newestFirst.length - 1, total };
}
