import { copyRelation } from "./pair.ts";
import type { Delivery } from "./types.ts";

/**
 * Consumer retry chains. An attempt that fails or expires sends its message back once: a new copy in the group's
 * retry topic, delivered as the next round (retryTimes + 1). When a rebalance or a lost ACK hands one copy to two
 * instances and both send it back, the chain forks; the branches run on side by side and meet again as a duplicate
 * any number of rounds later. That duplicate exists because of the fork, so its cause is the fork's.
 */

/** Parent of each retry delivery: the attempt of the round before whose send-back made the copy it read. */
export type RetryParents = ReadonlyMap<Delivery, Delivery>;

/**
 * Whether the attempt sent its message back: it failed or expired, by the consumer's report or, when the report is
 * lost (a trace batch dies with its process), by the application's own `failed` line. A consumeMessageDirectly resend
 * never does: it reports its result, it does not retry.
 */
const sentBack = (d: Delivery) =>
  !d.direct && (d.consume === "failed" || d.consume === "timeout" || (d.consume === "unknown" && d.effect === "failed"));

/**
 * One round's copies are the send-backs of the round before, in the same order: every send-back of a round waits
 * the same delay level. Rounds whose copies cannot all be told apart (no offsetMsgId or queue position), or that
 * have more copies than send-backs (a source is missing), get no parents.
 */
export function retryParents(deliveries: readonly Delivery[]): RetryParents {
  const rounds = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    if (d.direct || d.msgId === null || d.retryTimes === null) continue;
    const id = roundId(d.msgId, d.retryTimes);
    rounds.set(id, [...(rounds.get(id) ?? []), d]);
  }
  const parents = new Map<Delivery, Delivery>();
  for (const round of rounds.values()) {
    const { msgId, retryTimes } = round[0]!;
    if (retryTimes === 0) continue;
    const senders = (rounds.get(roundId(msgId!, retryTimes! - 1)) ?? []).filter(sentBack);
    const copies = copiesOf(round);
    if (copies === null || copies.length > senders.length) continue;
    copies.forEach((copy, i) => copy.forEach((d) => parents.set(d, senders[i]!)));
  }
  return parents;
}

const roundId = (msgId: string, retryTimes: number) => `${msgId}\u0000${retryTimes}`;

/** A round's deliveries grouped by the copy they read, in order of first delivery; null when a relation is unknown. */
function copiesOf(round: readonly Delivery[]): Delivery[][] | null {
  const copies: Delivery[][] = [];
  for (const d of round) {
    const relations = copies.map((copy) => copyRelation(copy[0]!, d).relation);
    if (relations.includes("unknown")) return null;
    const same = relations.indexOf("same");
    if (same >= 0) copies[same]!.push(d);
    else copies.push([d]);
  }
  return copies;
}

/**
 * Where the chains of `a` and `b` split: the two deliveries of one copy that their ancestries pass through, in
 * order, at the latest round where the ancestries read the same copy. null when they never do (different copies
 * down to the first round), when one descends from the other, when a parent is not known, or when the split is
 * `a` and `b` themselves (one copy delivered twice: no chain between them to trace).
 */
export function forkOf(a: Delivery, b: Delivery, parents: RetryParents): [Delivery, Delivery] | null {
  if (a.msgId === null || a.msgId !== b.msgId || a.retryTimes === null || b.retryTimes === null) return null;
  const lineA = ancestry(a, parents);
  const lineB = ancestry(b, parents);
  for (let round = Math.min(a.retryTimes, b.retryTimes); round >= 0; round--) {
    const x = lineA.get(round);
    const y = lineB.get(round);
    if (x === undefined || y === undefined || x === y) return null;
    if (copyRelation(x, y).relation !== "same") continue;
    if ((x === a || x === b) && (y === a || y === b)) return null;
    return x.start <= y.start ? [x, y] : [y, x];
  }
  return null;
}

/** The delivery and its ancestors, by round. */
function ancestry(d: Delivery, parents: RetryParents): Map<number, Delivery> {
  const line = new Map<number, Delivery>();
  for (let at: Delivery | undefined = d; at !== undefined && at.retryTimes !== null; at = parents.get(at)) line.set(at.retryTimes, at);
  return line;
}
