import { instanceRelation } from "./identity.ts";
import { DEFAULT_OPTIONS } from "./types.ts";

/**
 * A key delivered once per consumer group, told from its events' fields alone. Nearly every key is: a publish, and
 * in each group that consumes it one attempt with its dedup lines. Its diagnosis has nothing to show (no duplicate,
 * no normal retry, nothing lost), whatever its context: every rule that reads the context judges a pair of
 * deliveries of one group (docs/performance-log.md#keys-delivered-once). The ingest journal sums each key's events into a
 * PlainSummary as they are stored, and the fold writes such a key's row without the diagnosis worker reading its
 * events back (lib/store/plain-keys.ts).
 *
 * The conditions follow how the engine joins a delivery from its sources (deliveries.ts), narrowed to what these
 * fields decide; anything else is left to the engine (tests/unit/diagnosis/plain.test.ts checks them against
 * diagnoseKey, on drawn events and on the simulator's parsed files):
 * - every event names the same msgId, and is a publish, a consume start or end, a dedup line that passed or
 *   executed, or a business effect that executed (a dedup log's `executed`, not a row of the business table);
 * - the consume side names its group; per group at most one start, one end and one dedup run: lines of one instance,
 *   retry round and queue position, passes and then at most one `executed`;
 * - an end pairs with its group's start: the same requestId, or (with one group only, where nothing else can claim
 *   it) not before the start and from a process that can be the start's; no two groups' starts share a requestId;
 * - the run falls within its group's attempt (within the clock skew), of a compatible instance and retry round.
 * A consume end in a client-log template that reports how an attempt ended is a status note, another kind of line.
 */

/** The fields of one stored event that decide it, as the journal has them (lib/store/ingest-journal.ts, Contribution). */
export interface PlainFacts {
  kind: string;
  ts: number;
  msgId: string | null;
  group: string | null;
  topic: string | null;
  instance: string | null;
  queue: string | null;
  queueOffset: number | null;
  retryTimes: number | null;
  /** detail.requestId when it is a non-empty string, else null. */
  requestId: string | null;
  /** detail.decision as text (undefined: no such key). */
  decision: string | null | undefined;
  /** detail.template when it is a string, else null. */
  template: string | null;
}

/** ts, requestId, instance, retry round */
export type Start = [number, string | null, string | null, number | null];
/** ts, requestId, instance */
export type End = [number, string | null, string | null];
/**
 * A dedup run: its lines' instance, retry round, queue, queue offset; the earliest line's ts, the latest pass's (null:
 * none), the `executed` line's ts (null: none) and whether that line is a business_effect (ordered after a dedup line
 * of the same millisecond; false without one).
 */
export type Run = [string | null, number | null, string | null, number | null, number, number | null, number | null, boolean];
/** group, start, end, run */
export type Side = [string, Start | null, End | null, Run | null];

export interface PlainSummary {
  msgId: string;
  /** As the key's row lists them (key_diagnoses.groups, .topics): every event's, sorted. */
  groups: string[];
  topics: string[];
  first: number;
  last: number;
  /** Per consumer group, sorted by group. */
  sides: Side[];
}

/** The part of a summary the key's row does not hold already: what key_diagnoses.plain stores. */
export type StoredPlain = [msgId: string, sides: Side[]];

/** Client-log consume ends that report how an attempt ended (deliveries.ts, isStatusNote). */
const STATUS_NOTE_TEMPLATES = new Set(["consume_exception", "send_expire_msg_back"]);

const unionSorted = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])].sort();

/** One event as a summary; null when it is not an event of a key delivered once as defined above. */
export function plainOf(f: PlainFacts): PlainSummary | null {
  if (f.msgId === null) return null;
  const summary: PlainSummary = { msgId: f.msgId, groups: [], topics: [], first: f.ts, last: f.ts, sides: [] };
  return addTo(summary, f) ? summary : null;
}

function insertSorted(list: string[], value: string | null): void {
  if (value === null || list.includes(value)) return;
  list.push(value);
  list.sort();
}

/**
 * Adds one event to a summary in place, as mergePlain(summary, plainOf(f)) would make it, without the new objects
 * per event that a writer would keep alive until its batch is stored (the garbage collector copies such objects
 * and promotes them). False when the key is then not one delivery per group; the summary is left half-changed, to be
 * dropped.
 */
function addTo(s: PlainSummary, f: PlainFacts): boolean {
  if (f.msgId !== s.msgId) return false;
  insertSorted(s.groups, f.group);
  insertSorted(s.topics, f.topic);
  if (f.ts < s.first) s.first = f.ts;
  if (f.ts > s.last) s.last = f.ts;
  if (f.kind === "publish") return true;
  if (f.group === null) return false;
  let side = s.sides.find((x) => x[0] === f.group);
  if (side === undefined) {
    side = [f.group, null, null, null];
    s.sides.push(side);
    s.sides.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  }
  if (f.kind === "consume_start") {
    if (side[1] !== null) return false;
    side[1] = [f.ts, f.requestId, f.instance, f.retryTimes];
    return true;
  }
  if (f.kind === "consume_end" && (f.template === null || !STATUS_NOTE_TEMPLATES.has(f.template))) {
    if (side[2] !== null) return false;
    side[2] = [f.ts, f.requestId, f.instance];
    return true;
  }
  // A business effect is ordered after every dedup line of its millisecond (deliveries.ts, STAGE), which settles
  // where its `executed` falls; one stating any other decision has no such place and is left to the engine.
  if (f.kind === "business_effect" ? f.decision !== "executed" : f.kind !== "dedup" || (f.decision !== "pass" && f.decision !== "executed")) return false;
  const pass = f.decision === "pass";
  const run = side[3];
  if (run === null) {
    side[3] = [f.instance, f.retryTimes, f.queue, f.queueOffset, f.ts, pass ? f.ts : null, pass ? null : f.ts, !pass && f.kind === "business_effect"];
    return true;
  }
  if (run[0] !== f.instance || run[1] !== f.retryTimes || run[2] !== f.queue || run[3] !== f.queueOffset) return false;
  if (f.ts < run[4]) run[4] = f.ts;
  if (pass) run[5] = later(run[5], f.ts);
  else {
    if (run[6] !== null) return false;
    run[6] = f.ts;
    run[7] = f.kind === "business_effect";
  }
  return true;
}

const sameRunKey = (a: Run, b: Run) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
const later = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

function mergeRuns(a: Run | null, b: Run | null): Run | null | false {
  if (a === null || b === null) return a ?? b;
  if (!sameRunKey(a, b) || (a[6] !== null && b[6] !== null)) return false;
  const executed = a[6] !== null ? a : b;
  return [a[0], a[1], a[2], a[3], Math.min(a[4], b[4]), later(a[5], b[5]), executed[6], executed[7]];
}

function mergeSides(a: Side, b: Side): Side | null {
  if ((a[1] !== null && b[1] !== null) || (a[2] !== null && b[2] !== null)) return null;
  const run = mergeRuns(a[3], b[3]);
  return run === false ? null : [a[0], a[1] ?? b[1], a[2] ?? b[2], run];
}

/** The summary of both summaries' events together; null when together they are not a key delivered once. */
export function mergePlain(a: PlainSummary, b: PlainSummary): PlainSummary | null {
  if (a.msgId !== b.msgId) return null;
  const sides = new Map<string, Side>(a.sides.map((s) => [s[0], s]));
  for (const s of b.sides) {
    const was = sides.get(s[0]);
    const merged = was === undefined ? s : mergeSides(was, s);
    if (merged === null) return null;
    sides.set(s[0], merged);
  }
  return {
    msgId: a.msgId,
    groups: unionSorted(a.groups, b.groups),
    topics: unionSorted(a.topics, b.topics),
    first: Math.min(a.first, b.first),
    last: Math.max(a.last, b.last),
    sides: [...sides.values()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)),
  };
}

const compatible = (a: string | null, b: string | null) => instanceRelation(a, b) !== "different";

/**
 * Whether the events summed are one delivery per group as the engine joins them (deliveries.ts): ends pair with
 * starts (by requestId, or as a loose end with the latest open start of the message and process), and each group's
 * dedup run joins its attempt or, with no trace of the attempt, stands alone as the delivery.
 */
export function isOneDelivery(s: PlainSummary): boolean {
  const requestIds = s.sides.flatMap(([, start]) => (start?.[1] == null ? [] : [start[1]]));
  if (new Set(requestIds).size !== requestIds.length) return false;
  for (const [, start, end, run] of s.sides) {
    const byRequest = start !== null && end !== null && start[1] !== null && start[1] === end[1];
    if (end !== null && !byRequest) {
      // A loose end: paired with the latest open start of its message on a compatible process, which with more than
      // one group may be another group's.
      if (s.sides.length > 1) return false;
      if (start !== null && (end[0] < start[0] || !compatible(start[2], end[2]))) return false;
    }
    if (run === null) continue;
    const [instance, retry, , , firstTs, lastPass, executed, effectKind] = run;
    if (executed !== null && lastPass !== null && (executed < lastPass || (executed === lastPass && !effectKind))) return false;
    if (start === null && end === null) continue;
    const from = start?.[0] ?? end![0];
    const to = end?.[0] ?? from + DEFAULT_OPTIONS.consumeTimeoutMs;
    if (firstTs < from - DEFAULT_OPTIONS.clockSkewMs || firstTs > to + DEFAULT_OPTIONS.clockSkewMs) return false;
    const attemptRetry = start?.[3] ?? null;
    if (retry !== null && attemptRetry !== null && retry !== attemptRetry) return false;
    if (!compatible(start?.[2] ?? end?.[2] ?? null, instance)) return false;
  }
  return true;
}

export const storedPlain = (s: PlainSummary): StoredPlain => [s.msgId, s.sides];

/** A summary from a key's row: its columns and what key_diagnoses.plain stores. */
export function fromStored(row: { groups: string[]; topics: string[]; first: number; last: number }, [msgId, sides]: StoredPlain): PlainSummary {
  return { msgId, groups: [...row.groups].sort(), topics: [...row.topics].sort(), first: row.first, last: row.last, sides };
}

/** Sums events into summaries per key as they come: a key's summary turns null for good once one of them disqualifies it. */
export class PlainKeys {
  private readonly byKey = new Map<string, PlainSummary | null>();

  add(key: string, facts: PlainFacts): void {
    const was = this.byKey.get(key);
    if (was === undefined) this.byKey.set(key, plainOf(facts));
    else if (was !== null && !addTo(was, facts)) this.byKey.set(key, null);
  }

  /** A key the batch holds another line about (a keyless line naming it): left to the worker. */
  disqualify(key: string): void {
    this.byKey.set(key, null);
  }

  /**
   * The keys whose events so far could be of a key delivered once, with their summaries. isOneDelivery is asked of
   * the key's whole summary, when the fold has merged this one with the stored one.
   */
  entries(): [string, PlainSummary][] {
    return [...this.byKey].filter((e): e is [string, PlainSummary] => e[1] !== null);
  }
}
