import { lateFactsRead } from "./context.ts";
import type { Pair } from "./pair.ts";
import type { MissingCode, MissingData } from "./types.ts";

/**
 * How late a keyless line of the key's groups (a rebalance, a lifecycle line), or one without a group from its hosts (a
 * producer's resend), can be stamped and still change a key's diagnosis. The worker re-diagnoses a key with duplicates
 * when such a line arrives (lib/diagnosis-queue): without a bound, every line of the group up to the end of the key's
 * context (three minutes after its last event), and a busy group logs one every second or so. Past this bound a line
 * changes nothing, because every read of the context after the second delivery either stops at a fixed distance from
 * it or is already answered:
 *
 * - who held the queue (context.ts `ownership`): one rebalance interval past the second delivery, plus the skew;
 * - the first instance's fate between the deliveries, offset resets, shared client ids, the group's consumption model:
 *   up to the second delivery, plus the skew;
 * - the late facts of a fate (context.ts `lateFactsRead`), as far as a rule read them: whether the first instance
 *   lived on (`aliveAfter`, its first line after the redelivery: a later line is not the first, an earlier one would
 *   be; unanswered, any line would answer it); whether its client log went silent (`lastSeen`: a line after the
 *   redelivery ends the silence, and a late line cannot start one) or is there at all (`clientLogSeen`: once seen,
 *   always). A fact no rule read cannot have decided anything;
 * - Kafka's poll timeouts and refused commits reach ten minutes past the redelivery: no bound;
 * - the missing-data notes that look for a client log, the event exchange or a broker log anywhere in the context:
 *   no bound while one is missing.
 *
 * Lines naming the key or one of its messages (a refused ack, a dropped message, a failure line printing the KEYS)
 * queue the key by that name instead (lib/store/ingest-journal.ts), whatever their time.
 *
 * Of those reads, only who held the queue looks past the second delivery (plus the skew) for lines of every kind, and
 * it keeps only lines that give a queue up there: a removal, a dropped queue or message, a rebalance result
 * (sources.ts `givesQueueUp`); the lines that add a queue, members joining, lifecycle lines count only up to the
 * second delivery. So a key has a second, nearer bound, its quiet reach, for every other line: the second delivery
 * plus the skew, or the first instance's first line after the redelivery if a rule read it (an earlier line would
 * take its place). A busy group's rebalance lines are mostly adds (each member logs the queues it takes), and past its
 * quiet reach none of them queues a key again.
 * tests/unit/diagnosis/reach.test.ts checks both bounds on the simulator's scenarios: lines stamped past them, real
 * ones arriving later and any line moved there, leave the diagnosis as it was.
 */

/** Missing-data notes answered by any line of the context, wherever it lies. */
const SEEN_ANYWHERE: ReadonlySet<MissingCode> = new Set(["no_client_log", "no_event_exchange", "no_broker_log"]);

/** The latest stamp of a context line that could change what the rules read for this pair; Infinity for none. */
export function pairReach(p: Pair): number {
  if (p.first.broker === "kafka" || p.second.broker === "kafka") return Infinity;
  const read = lateFactsRead(p);
  if (read.clientLogSeen === false || (read.lastSeen !== undefined && read.lastSeen !== null) || read.aliveAfter === null) return Infinity;
  const { clockSkewMs, rebalanceIntervalMs } = p.options;
  return Math.max(p.second.start + rebalanceIntervalMs + clockSkewMs, read.aliveAfter?.event.ts ?? -Infinity);
}

/** The latest stamp of a line that gives no queue up (sources.ts `givesQueueUp`) that could change what this pair's rules read. */
export function pairQuietReach(p: Pair): number {
  const reach = pairReach(p);
  if (reach === Infinity) return Infinity;
  return Math.max(p.second.start + p.options.clockSkewMs, lateFactsRead(p).aliveAfter?.event.ts ?? -Infinity);
}

export interface Reach {
  /** The latest stamp of any keyless context line that could change the diagnosis. */
  reach: number;
  /** The same for lines that give no queue up (sources.ts `givesQueueUp`): never later than `reach`. */
  quietReach: number;
}

/**
 * How late a keyless context line could still change a key's diagnosis, from the pairs its rules judged and its
 * missing-data notes: -Infinity when no pair was judged (no duplicate), Infinity when there is no bound short of the
 * context's end.
 */
export function reachOf(pairs: readonly Pair[], missing: readonly MissingData[]): Reach {
  if (pairs.length === 0) return { reach: -Infinity, quietReach: -Infinity };
  if (missing.some((m) => SEEN_ANYWHERE.has(m.code))) return { reach: Infinity, quietReach: Infinity };
  let reach = -Infinity;
  let quietReach = -Infinity;
  for (const p of pairs) {
    reach = Math.max(reach, pairReach(p));
    quietReach = Math.max(quietReach, pairQuietReach(p));
  }
  return { reach, quietReach };
}
