import { states } from "../events/facts.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { contextIndex, instanceLines, timeSlice } from "./context-index.ts";
import { hostOf, instanceRelation } from "./identity.ts";
import type { HoldingInterval } from "./holdings.ts";
import type { Pair } from "./pair.ts";
import {
  ASSIGNMENT,
  isCommitFailed,
  isConsumerTimeout,
  isJoined,
  isLeft,
  isPartitionLost,
  isPollTimeout,
  isQueueAdded,
  isQueueDropped,
  isQueueRemoved,
  isResultSet,
  isVanished,
  REJOIN,
  strings,
} from "./sources.ts";
import { placeWithin, SECOND_SLACK_MS, type Placement } from "./time.ts";

/**
 * Lookups in the context events around a pair of deliveries: who owned the queue and when it moved (ownership),
 * and what became of the first consumer (fate). Windows are widened by the clock skew and each hit keeps its
 * placement, so evidence can say when it rests on a coarse or skewed timestamp.
 */

export interface Hit {
  event: NormalizedEvent;
  at: Placement;
}

export interface Ownership {
  /** The queue both deliveries came from, when any source named it. */
  queue: string | null;
  /** `processQueue is dropped without process consume result` on either instance, naming this message. */
  droppedMessage: Hit[];
  /** The same line for the queue, without naming the message (a batch). */
  droppedQueue: Hit[];
  /** One of the two instances gave the queue up (remove, revoke, gRPC drop), or any queue of the topic if unknown. */
  removed: Hit[];
  /** One of the two instances took the queue before its delivery. */
  added: Hit[];
  /** Result lines: one instance's new set lacks the queue / the other's holds it. */
  resultWithout: Hit[];
  resultWith: Hit[];
  /** Group-level rebalance lines of either instance when the queue is unknown. */
  groupRebalanced: Hit[];
  /** Members starting, connecting, shutting down or unregistering: what triggers a rebalance. */
  membership: Hit[];
  /**
   * From the group's holdings over time: the first instance held the queue at its delivery and the second took it
   * from it before its own, while the first was still a member. Null when the holdings do not say so.
   */
  takenOver: { from: HoldingInterval; to: HoldingInterval } | null;
}

/** Shared by the rules that ask for it (fate keeps it per pair): read-only. */
export interface Fate {
  readonly vanished: readonly Hit[];
  readonly left: readonly Hit[];
  /** Another process started (or connected) on the first instance's host: the first was restarted. */
  readonly restarted: readonly Hit[];
  readonly partitionLost: readonly Hit[];
  readonly consumerTimeouts: readonly Hit[];
  /** Kafka: the first instance overran max.poll.interval.ms while (or just before) it processed the record. */
  readonly pollTimeouts: readonly Hit[];
  /** Kafka: an offset commit of the first instance for the record's partition, refused because it was no longer a member. */
  readonly commitFailures: readonly Hit[];
  /** An event of the first instance from after the second delivery began: it lived on. */
  readonly aliveAfter: Hit | null;
  /** The first instance's client log: its last line before the second delivery, when it logged nothing after. */
  readonly lastSeen: NormalizedEvent | null;
  /** Whether the first instance's client log is there at all. */
  readonly clientLogSeen: boolean;
}

function topicsOf(p: Pair): Set<string> {
  const topics = new Set<string>();
  for (const d of [p.first, p.second]) {
    if (d.topic !== null) topics.add(d.topic);
    if ((d.retryTimes ?? 0) > 0 && d.group !== null) topics.add(`%RETRY%${d.group}`);
  }
  return topics;
}

function inGroup(e: NormalizedEvent, p: Pair, topics: Set<string>): boolean {
  const group = p.second.group ?? p.first.group;
  if (e.group !== null && group !== null && e.group !== group) return false;
  return e.topic === null || topics.size === 0 || topics.has(e.topic);
}

const linesOfInstance = (context: readonly NormalizedEvent[], instance: string | null) => (instance === null ? [] : instanceLines(context, instance).all);

/**
 * Who held the queue, around both deliveries. Either delivery may be the old owner's: while two members rebalance
 * on their own (a missed notification waits for the 20 s tick) both hold the queue, and the old owner may consume
 * second and log its `remove` only afterwards. So the window reaches one rebalance interval past the second
 * delivery for lines that give a queue up, and adds count only before the adder's own delivery.
 */
export function ownership(p: Pair): Ownership {
  const { clockSkewMs, rebalanceIntervalMs } = p.options;
  const topics = topicsOf(p);
  const queue = p.first.queue ?? p.second.queue;
  const from = p.first.start - rebalanceIntervalMs;
  const to = p.second.start + rebalanceIntervalMs;
  const { sorted, memberChanges } = contextIndex(p.context);
  // Only lines of the two instances and members coming and going are read, each list's window found by bisection;
  // placeWithin takes a line up to the skew, and a whole second for a seconds-precision stamp, before `from`.
  const hitsIn = (lines: readonly NormalizedEvent[]): Hit[] => {
    const hits: Hit[] = [];
    for (const event of timeSlice(lines, sorted, from - clockSkewMs - SECOND_SLACK_MS, to + clockSkewMs)) {
      if (event.kind !== "rebalance" && event.kind !== "instance_lifecycle") continue;
      if (!inGroup(event, p, topics)) continue;
      const at = placeWithin(event, from, to, clockSkewMs);
      if (at.inside) hits.push({ event, at });
    }
    return hits;
  };
  const onFirst = hitsIn(linesOfInstance(p.context, p.first.instance));
  const onSecond = hitsIn(linesOfInstance(p.context, p.second.instance));
  const onEither = [...onFirst, ...onSecond];
  const sameQueue = (e: NormalizedEvent) => queue === null || e.queue === queue;
  const before = (ts: number) => (h: Hit) => h.event.ts <= ts + clockSkewMs;
  const msgId = p.first.msgId;
  const holds = (h: Hit) => queue !== null && strings(h.event.detail.queues).includes(queue);
  return {
    queue,
    droppedMessage: onEither.filter((h) => isQueueDropped(h.event) && msgId !== null && (h.event.msgId === msgId || strings(h.event.detail.msgIds).includes(msgId))),
    droppedQueue: onEither.filter((h) => isQueueDropped(h.event) && queue !== null && h.event.queue === queue),
    removed: onEither.filter((h) => isQueueRemoved(h.event) && sameQueue(h.event)),
    added: [...onFirst.filter(before(p.first.start)), ...onSecond.filter(before(p.second.start))].filter((h) => isQueueAdded(h.event) && sameQueue(h.event)),
    resultWithout: queue === null ? [] : onEither.filter((h) => isResultSet(h.event) && !holds(h)),
    resultWith: queue === null ? [] : onEither.filter((h) => isResultSet(h.event) && holds(h)),
    groupRebalanced: queue !== null ? [] : onEither.filter((h) => h.event.kind === "rebalance" && before(p.second.start)(h)),
    membership: hitsIn(memberChanges).filter(before(p.second.start)),
    takenOver: takenOver(p, queue, topics),
  };
}

/**
 * The queue's holdings say it passed from the first instance to the second: the second's take (within one rebalance
 * interval before the first delivery, up to its own) ended the first's holding, which had begun by the first delivery.
 * A holding ended by its holder's close or its own remove is no take-over: the queue was free when it was taken.
 */
function takenOver(p: Pair, queue: string | null, topics: ReadonlySet<string>): Ownership["takenOver"] {
  if (queue === null) return null;
  const { clockSkewMs, rebalanceIntervalMs } = p.options;
  const group = p.second.group ?? p.first.group;
  const ofQueue = p.holdings.filter((i) => i.queue === queue && (group === null || i.group === group) && (topics.size === 0 || topics.has(i.topic)));
  for (const to of ofQueue) {
    if (to.since === null || to.since < p.first.start - rebalanceIntervalMs - clockSkewMs || to.since > p.second.start + clockSkewMs) continue;
    if (instanceRelation(to.holder, p.second.instance) !== "same") continue;
    const from = ofQueue.find(
      (i) => i.closedBy === "taken" && i.untilEvent === to.sinceEvent && (i.since === null || i.since <= p.first.start + clockSkewMs) && instanceRelation(i.holder, p.first.instance) === "same",
    );
    if (from !== undefined) return { from, to };
  }
  return null;
}

/**
 * Kafka's default max.poll.interval.ms. A member that overran it keeps processing the records it already has until it
 * next polls or commits, so records it began up to one interval after the timeout line were still lost with it.
 */
const MAX_POLL_INTERVAL_MS = 300_000;
/** How long after the redelivery the old member may still be finishing its batch and logging the refused commit. */
const LATE_COMMIT_MS = 2 * MAX_POLL_INTERVAL_MS;

/**
 * The first instance's poll timeouts and refused commits around a Kafka pair. The timeout (heartbeat thread) is
 * printed when the member is dropped, before the partition moves; the refused commit and the 3.7+ rejoin line come
 * when the slow batch finally ends, often after the new owner has processed the record again. A timeout before the
 * first delivery counts only if the member was not given partitions again in between.
 */
function kafkaFate(p: Pair, ofFirst: readonly NormalizedEvent[]): Pick<Fate, "pollTimeouts" | "commitFailures"> {
  if (p.first.broker !== "kafka") return { pollTimeouts: [], commitFailures: [] };
  const { clockSkewMs } = p.options;
  const from = p.first.start - MAX_POLL_INTERVAL_MS;
  const to = p.second.start + LATE_COMMIT_MS;
  const near = ofFirst.filter((e) => placeWithin(e, from, to, clockSkewMs).inside);
  const reassigned = (after: number) =>
    near.some((e) => e.ts > after && e.ts < p.first.start && states(e, ASSIGNMENT));
  const hit = (event: NormalizedEvent): Hit => ({ event, at: placeWithin(event, from, to, clockSkewMs) });
  const late = (e: NormalizedEvent) => states(e, REJOIN);
  // A timeout after the redelivery is a later stall: the lines that end a stall from then on are that one's.
  const later = near.find((e) => isPollTimeout(e) && !late(e) && e.ts > p.second.start + clockSkewMs);
  const beforeLater = (e: NormalizedEvent) => later === undefined || e.ts < later.ts;
  const pollTimeouts = near
    .filter((e) => isPollTimeout(e) && (late(e) ? beforeLater(e) : e.ts <= p.second.start + clockSkewMs) && (e.ts >= p.first.start - clockSkewMs || !reassigned(e.ts)))
    .map(hit);
  const queue = p.first.queue;
  const commitFailures = near
    .filter((e) => isCommitFailed(e) && e.detail.membershipLost === true && (e.queue === null || queue === null || e.queue === queue) && e.ts >= p.first.start - clockSkewMs && beforeLater(e))
    .map(hit);
  return { pollTimeouts, commitFailures };
}

/** The facts of a fate that lines from long after the redelivery can still change (reach.ts). */
export interface LateFacts {
  aliveAfter?: Hit | null;
  lastSeen?: NormalizedEvent | null;
  clientLogSeen?: boolean;
}

const fates = new WeakMap<Pair, { fate: Fate; read: LateFacts }>();

/** What became of the first delivery's instance. Kept per pair: four rules ask it of the same pair, and each answer walks the whole context. */
export function fate(p: Pair): Fate {
  let f = fates.get(p);
  if (f === undefined) fates.set(p, (f = tracked(fateOf(p))));
  return f.fate;
}

/**
 * Of a pair's late facts, those a rule has read so far, with their values. A rule follows the same path as long as
 * what it read stays the same, so a fact no rule read cannot change a verdict, whatever a later line would make of it.
 */
export function lateFactsRead(p: Pair): LateFacts {
  return fates.get(p)?.read ?? {};
}

function tracked(f: Fate): { fate: Fate; read: LateFacts } {
  const read: LateFacts = {};
  const fate: Fate = {
    ...f,
    get aliveAfter() {
      return (read.aliveAfter = f.aliveAfter);
    },
    get lastSeen() {
      return (read.lastSeen = f.lastSeen);
    },
    get clientLogSeen() {
      return (read.clientLogSeen = f.clientLogSeen);
    },
  };
  return { fate, read };
}

function fateOf(p: Pair): Fate {
  const { clockSkewMs } = p.options;
  const first = p.first.instance;
  const from = p.first.start;
  const to = p.second.start;
  const within = (e: NormalizedEvent) => placeWithin(e, from, to, clockSkewMs);
  const hits = (lines: readonly NormalizedEvent[], match: (e: NormalizedEvent) => boolean): Hit[] =>
    lines.filter((e) => match(e) && within(e).inside).map((event) => ({ event, at: within(event) }));
  const { sorted, joined } = contextIndex(p.context);
  const mine = first === null ? null : instanceLines(p.context, first);
  const ofFirst = (mine?.all ?? []).filter((e) => e.group === null || p.first.group === null || e.group === p.first.group);
  // The lines `within` can place, found by bisection (see ownership).
  const near = timeSlice(ofFirst, sorted, from - clockSkewMs - SECOND_SLACK_MS, to + clockSkewMs);
  const restartedOnHost = (e: NormalizedEvent) =>
    first !== null && e.instance !== null && isJoined(e) && hostOf(e.instance) === hostOf(first) && instanceRelation(e.instance, first) === "different";

  const clientLog = mine?.clientLog ?? [];
  const after = ofFirst.filter((e) => !isVanished(e) && e.ts > to + clockSkewMs).sort((a, b) => a.ts - b.ts)[0];
  const beforeSecond = clientLog.filter((e) => e.ts <= to + clockSkewMs);
  const last = beforeSecond[beforeSecond.length - 1];
  const silent = last !== undefined && last.ts < from && !clientLog.some((e) => e.ts > to + clockSkewMs);
  return {
    vanished: hits(near, isVanished),
    left: hits(near, isLeft),
    restarted: hits(joined, restartedOnHost),
    partitionLost: hits(near, isPartitionLost),
    consumerTimeouts: hits(near, isConsumerTimeout),
    ...kafkaFate(p, ofFirst),
    aliveAfter: after === undefined ? null : { event: after, at: placeWithin(after, to, Number.MAX_SAFE_INTEGER, 0) },
    lastSeen: silent ? last : null,
    clientLogSeen: clientLog.length > 0,
  };
}
