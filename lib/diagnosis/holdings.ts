import { states } from "../events/facts.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { instanceRelation } from "./identity.ts";
import type { MemberChange } from "./members.ts";
import { factsFor, strings } from "./sources.ts";

/**
 * Which member held which queue (or partition) of a group over time, kept apart from the raw lines like the members
 * (members.ts, docs/diagnosis.md "Group state over time"). A consumer logs `add a new mq` or `Adding newly assigned
 * partitions` when it takes a queue and may hold it for weeks, while raw events are kept for days: who owned the queue
 * before a move must be answerable after that line has expired. Each line that adds, removes or loses a queue, or
 * states an instance's whole set of queues of a topic, is a HoldingChange; foldHoldings turns a group's changes, with
 * its members' closes, into intervals. Pure and order-free: it sorts what it is given and a line given twice is one.
 */

export type HoldingChangeKind = "take" | "give" | "lost" | "set";

export interface HoldingChange {
  eventId: string;
  ts: number;
  coarse: boolean;
  group: string;
  change: HoldingChangeKind;
  /** The instance that took or gave the queue up (canonical). */
  holder: string;
  /** null only for `lost` of every partition the member held (Kafka's generation reset). */
  topic: string | null;
  /** null for `set`, and for `lost` of everything. */
  queue: string | null;
  /** `set`: the holder's whole set of queues of the topic. */
  queues: string[] | null;
}

/**
 * How a holding ended: the holder gave it up (`removed`), another holder took it (`taken`), the holder lost its
 * partitions (`lost`), or its connection closed (`closed`).
 */
export type HoldingClosedBy = "removed" | "taken" | "lost" | "closed";

export interface HoldingInterval {
  group: string;
  topic: string;
  queue: string;
  holder: string;
  /** null: the take was never seen, only the give (it predates what was ingested). */
  since: number | null;
  sinceEvent: string | null;
  sinceCoarse: boolean;
  until: number | null;
  untilEvent: string | null;
  closedBy: HoldingClosedBy | null;
  /** As MemberInterval.sinceRaw: whether the take is still among the raw events, when the store says. */
  sinceRaw?: boolean;
}

const TAKES = factsFor("queue_added");
const GIVES = factsFor("queue_removed");
const LOSES = factsFor("partition_lost");
const SETS = factsFor("result_set");

/** Whether a keyless line of a named group may change who holds a queue: what the ingest journal keeps of a batch. */
export function changesHoldings(kind: string, action: string | null, group: string | null, bizKey: string | null): boolean {
  if (bizKey !== null || group === null || group === "" || action === null) return false;
  const fact = `${kind}/${action}`;
  return TAKES.has(fact) || GIVES.has(fact) || LOSES.has(fact) || SETS.has(fact);
}

/** The holding change a stored event states, if any: a line of a named group and instance, about a queue or a topic. */
export function holdingChangeOf(e: NormalizedEvent): HoldingChange | null {
  if (e.bizKey !== null || e.group === null || e.group === "" || e.instance === null) return null;
  const base = { eventId: e.id, ts: e.ts, coarse: e.tsPrecision === "s", group: e.group, holder: e.instance, topic: e.topic };
  if (states(e, SETS)) return e.topic === null ? null : { ...base, change: "set", queue: null, queues: [...new Set(strings(e.detail.queues))].sort() };
  if (states(e, LOSES)) return { ...base, change: "lost", topic: e.queue === null ? null : e.topic, queue: e.queue, queues: null };
  const change: HoldingChangeKind | null = states(e, TAKES) ? "take" : states(e, GIVES) ? "give" : null;
  if (change === null || e.topic === null || e.queue === null) return null;
  return { ...base, change, queue: e.queue, queues: null };
}

export function holdingChangesIn(events: readonly NormalizedEvent[]): HoldingChange[] {
  return events.flatMap((e) => holdingChangeOf(e) ?? []);
}

/** One holder: the same process, as every rule compares instances (identity.ts); equal names need no lookup. */
const sameHolder = (a: string, b: string | null) => b !== null && (a === b || instanceRelation(a, b) === "same");

type Step = { ts: number; eventId: string; order: number; holding?: HoldingChange; close?: MemberChange };

/**
 * The intervals `changes` describe, with the members' closes of the same groups. The rules, in time order (ties by
 * event id, a holding line before a close of the same instant):
 * - A take of a queue its holder already holds repeats it (the broker's lock and the client's `add a new mq` of one
 *   take). A take by another holder ends every open holding of the queue (`taken`): a member that held it did not
 *   log its remove, or logs it later; the later remove then changes nothing.
 * - A give ends the holder's open holding of the queue (`removed`); with nothing open and the holder never seen on
 *   that queue, it is a holding whose start is unknown.
 * - A set (`rebalanced result changed`, gRPC assignments) takes each queue it lists and gives up every other queue of
 *   the topic the holder held.
 * - A loss ends the holder's holdings of the queue it names, or of every queue when it names none (`lost`).
 * - A close of the holder's membership (a shutdown, an unregister, a channel dropped, a Kafka member leaving or
 *   fenced) ends every holding of that process in the group (`closed`): a queue is never left open by a member that
 *   is gone, whatever order its lines arrived in.
 */
export function foldHoldings(changes: readonly HoldingChange[], members: readonly MemberChange[] = []): HoldingInterval[] {
  const steps = new Map<string, Step>();
  for (const c of changes) steps.set(`h\u0000${c.eventId}`, { ts: c.ts, eventId: c.eventId, order: 0, holding: c });
  for (const c of members) if (c.change === "close" && c.instance !== null) steps.set(`m\u0000${c.eventId}`, { ts: c.ts, eventId: c.eventId, order: 1, close: c });
  const done: HoldingInterval[] = [];
  /** group → topic → queue → open holdings */
  const open = new Map<string, Map<string, Map<string, HoldingInterval[]>>>();
  /** group, topic, queue, holder that held (or gave up) the queue at some point */
  const seen = new Set<string>();
  const queuesOf = (group: string, topic: string) => {
    let topics = open.get(group);
    if (topics === undefined) open.set(group, (topics = new Map()));
    let queues = topics.get(topic);
    if (queues === undefined) topics.set(topic, (queues = new Map()));
    return queues;
  };
  const listOf = (group: string, topic: string, queue: string) => {
    const queues = queuesOf(group, topic);
    let list = queues.get(queue);
    if (list === undefined) queues.set(queue, (list = []));
    return list;
  };
  const end = (list: HoldingInterval[], which: (i: HoldingInterval) => boolean, at: Step, by: HoldingClosedBy) => {
    let n = 0;
    for (let k = list.length - 1; k >= 0; k--) {
      const i = list[k]!;
      if (!which(i)) continue;
      i.until = at.ts;
      i.untilEvent = at.eventId;
      i.closedBy = by;
      done.push(i);
      list.splice(k, 1);
      n++;
    }
    return n;
  };
  const seenKey = (group: string, topic: string, queue: string, holder: string) => `${group}\u0000${topic}\u0000${queue}\u0000${holder}`;
  const take = (c: HoldingChange, topic: string, queue: string, at: Step) => {
    const list = listOf(c.group, topic, queue);
    seen.add(seenKey(c.group, topic, queue, c.holder));
    if (list.some((i) => sameHolder(c.holder, i.holder))) return;
    end(list, () => true, at, "taken");
    list.push({ group: c.group, topic, queue, holder: c.holder, since: c.ts, sinceEvent: c.eventId, sinceCoarse: c.coarse, until: null, untilEvent: null, closedBy: null });
  };
  const give = (c: HoldingChange, topic: string, queue: string, at: Step) => {
    const ended = end(listOf(c.group, topic, queue), (i) => sameHolder(c.holder, i.holder), at, "removed");
    const key = seenKey(c.group, topic, queue, c.holder);
    if (ended === 0 && !seen.has(key)) {
      done.push({ group: c.group, topic, queue, holder: c.holder, since: null, sinceEvent: null, sinceCoarse: false, until: c.ts, untilEvent: c.eventId, closedBy: "removed" });
    }
    seen.add(key);
  };
  const byTimeThenId = (a: Step, b: Step) => a.ts - b.ts || a.order - b.order || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);
  for (const at of [...steps.values()].sort(byTimeThenId)) {
    if (at.close !== undefined) {
      const close = at.close;
      for (const queues of open.get(close.group)?.values() ?? []) for (const list of queues.values()) end(list, (i) => sameHolder(i.holder, close.instance), at, "closed");
      continue;
    }
    const c = at.holding!;
    if (c.change === "set") {
      const listed = new Set(c.queues);
      for (const [queue, list] of queuesOf(c.group, c.topic!)) if (!listed.has(queue) && list.some((i) => sameHolder(c.holder, i.holder))) give(c, c.topic!, queue, at);
      for (const queue of listed) take(c, c.topic!, queue, at);
    } else if (c.change === "lost") {
      for (const [topic, queues] of open.get(c.group) ?? []) {
        if (c.topic !== null && topic !== c.topic) continue;
        for (const [queue, list] of queues) if (c.queue === null || queue === c.queue) end(list, (i) => sameHolder(c.holder, i.holder), at, "lost");
      }
    } else if (c.change === "take") take(c, c.topic!, c.queue!, at);
    else give(c, c.topic!, c.queue!, at);
  }
  for (const topics of open.values()) for (const queues of topics.values()) for (const list of queues.values()) done.push(...list);
  return done.sort(
    (a, b) =>
      cmp(a.group, b.group) || cmp(a.topic, b.topic) || cmp(a.queue, b.queue) || (a.since ?? -Infinity) - (b.since ?? -Infinity) || (a.until ?? Infinity) - (b.until ?? Infinity) || cmp(a.holder, b.holder),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether the holding's take is gone from the raw events (as sinceExpired for a member). */
export function holdingSinceExpired(i: HoldingInterval, context: readonly NormalizedEvent[]): boolean {
  if (i.sinceEvent === null) return false;
  return i.sinceRaw === undefined ? !context.some((e) => e.id === i.sinceEvent) : !i.sinceRaw;
}

/** A queue a key's deliveries came from: what the key lookup reads the holdings of. */
export interface QueueProbe {
  group: string;
  topic: string;
  queue: string;
}

/** The queues the key's own events name, with their groups and topics. */
export function queuesOf(keyEvents: readonly NormalizedEvent[]): QueueProbe[] {
  const found = new Map<string, QueueProbe>();
  for (const e of keyEvents) {
    if (e.group === null || e.topic === null || e.queue === null) continue;
    found.set(`${e.group}\u0000${e.topic}\u0000${e.queue}`, { group: e.group, topic: e.topic, queue: e.queue });
  }
  return [...found.values()];
}

/** The holdings of these queues that overlap [from, to]: what the store reads for a key (lib/store/group-holdings.ts). */
export function holdingsFor(intervals: readonly HoldingInterval[], queues: readonly QueueProbe[], span: { from: number; to: number }): HoldingInterval[] {
  return intervals.filter(
    (i) => (i.since === null || i.since <= span.to) && (i.until === null || i.until >= span.from) && queues.some((q) => q.group === i.group && q.topic === i.topic && q.queue === i.queue),
  );
}
