import { fate, ownership, type Hit } from "../context.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { holdingSinceExpired } from "../holdings.ts";
import { instanceRelation } from "../identity.ts";
import { retryAdvanced, sameInstance, type Pair, type RuleResult } from "../pair.ts";
import { isLeft } from "../sources.ts";
import { resetBetween } from "./offset-rollback.ts";

const at = (h: Hit) => ({ coarse: h.at.coarse, tolerant: h.at.tolerant });

/**
 * rebalance: the queue moved to another instance while the old owner still held consumed-but-uncommitted
 * messages; the new owner pulled from the last committed offset. The same copy is delivered again with the same
 * retryTimes, and the client logs show the move for that queue (old owner `remove unnecessary mq` / `processQueue
 * is dropped…`, new owner `add a new mq`) around the deliveries — while the old owner lives on (formats.md §2, §6).
 * Members rebalance on their own, so for a while both may hold the queue and either may consume first. A crash
 * also makes the new owner log `add a new mq`, so that line alone is weak: what separates a rebalance from
 * ack_lost is the old owner's own account of giving the queue up, and the absence of a dead connection. When the
 * context holds no such account, the group's holdings over time (holdings.ts) may still say the old owner held the
 * queue, since long before the raw lines kept, until the new owner took it while it was still a member.
 */
export function rebalance(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.copy.relation === "different" || retryAdvanced(p) || p.second.direct) return null;
  const o = ownership(p);
  const f = fate(p);
  const found: Evidence[] = [...p.copy.evidence];
  let score = 0;
  const raise = (to: number) => (score = Math.max(score, to));
  const topic = p.first.topic ?? p.second.topic;

  const dropped = o.droppedMessage[0] ?? o.droppedQueue[0];
  if (dropped !== undefined) {
    const named = o.droppedMessage.length > 0 ? p.first.msgId : null;
    found.push(evidence("queue_dropped_mid_consume", "cause", [dropped.event.id], { queue: dropped.event.queue, instance: dropped.event.instance, ts: dropped.event.ts, msgId: named }, at(dropped)));
    raise(o.droppedMessage.length > 0 ? 0.95 : 0.85);
  }
  // The move itself: one of the two gave the queue up and the other took it (in either order, see ownership()).
  const other = (a: Hit, b: Hit) => instanceRelation(a.event.instance, b.event.instance) === "different";
  const move = o.removed.flatMap((r) => o.added.filter((a) => other(a, r)).map((a) => [r, a] as const))[0];
  const removed = move?.[0] ?? o.removed[0];
  const added = move?.[1] ?? o.added[0];
  if (move !== undefined && removed !== undefined && added !== undefined && o.queue !== null) {
    const position = added.event.ts >= p.first.start ? "between" : "before";
    found.push(evidence("queue_moved", "cause", [removed.event.id, added.event.id], { topic, queue: o.queue, from: removed.event.instance, to: added.event.instance, ts: added.event.ts, position }, at(added)));
    raise(0.9);
  } else if (removed !== undefined) {
    found.push(evidence("queue_removed", "cause", [removed.event.id], { topic: removed.event.topic, queue: removed.event.queue ?? "", instance: removed.event.instance, ts: removed.event.ts }, at(removed)));
    raise(o.queue !== null ? 0.85 : 0.6);
  } else if (added !== undefined) {
    found.push(evidence("queue_added", "cause", [added.event.id], { topic: added.event.topic, queue: added.event.queue ?? "", instance: added.event.instance, ts: added.event.ts }, at(added)));
    raise(o.queue !== null ? 0.5 : 0.4);
  }
  const without = o.resultWithout[0];
  if (without !== undefined && removed === undefined && o.queue !== null) {
    found.push(evidence("queue_removed", "cause", [without.event.id], { topic: without.event.topic, queue: o.queue, instance: without.event.instance, ts: without.event.ts }, at(without)));
    raise(0.8);
  }
  const withQueue = o.resultWith.find((h) => without === undefined || other(h, without));
  if (withQueue !== undefined && added === undefined && o.queue !== null) {
    found.push(evidence("queue_added", "cause", [withQueue.event.id], { topic: withQueue.event.topic, queue: o.queue, instance: withQueue.event.instance, ts: withQueue.event.ts }, at(withQueue)));
    raise(0.5);
  }
  // No line in the context tells of the old owner giving the queue up, but the group's holdings say it held the queue
  // (often since long before the raw lines kept) until the second instance took it. Not the old owner's own account,
  // so below a logged move; a crash of the old owner ends its holding by its close and never counts here.
  const taken = o.takenOver;
  if (taken !== null && move === undefined && o.removed.length === 0 && without === undefined) {
    const { from, to } = taken;
    const expired = holdingSinceExpired(from, p.context) ? { expired: true as const } : {};
    const position = to.since! >= p.first.start ? "between" : "before";
    const cited = [from.sinceEvent, to.sinceEvent].filter((id): id is string => id !== null);
    found.push(evidence("queue_taken_over", "cause", cited, { topic: to.topic, queue: to.queue, from: from.holder, since: from.since, ...expired, to: to.holder, ts: to.since!, position }, { coarse: to.sinceCoarse }));
    raise(0.8);
  }
  const groupLine = o.groupRebalanced[0];
  if (groupLine !== undefined && score === 0) {
    found.push(evidence("group_rebalanced", "cause", [groupLine.event.id], { group: groupLine.event.group, instance: groupLine.event.instance, ts: groupLine.event.ts }, at(groupLine)));
    raise(0.45);
  }

  // What triggers a rebalance: a member joined or left on purpose. Supporting, or a weak cause by itself.
  // The text says how far before the first delivery the change was, so "within the clock tolerance" is not
  // needed to explain a join that lies just outside the rebalance interval: the reader sees the distance.
  for (const h of o.membership.slice(0, 2)) {
    const code = isLeft(h.event) ? "member_left" : "member_joined";
    const values = { instance: h.event.instance, ts: h.event.ts, beforeFirstMs: p.first.start - h.event.ts, intervalMs: p.options.rebalanceIntervalMs };
    found.push(evidence(code, "cause", [h.event.id], values, { coarse: h.at.coarse }));
  }
  if (o.membership.length > 0) score = score > 0 ? Math.min(0.97, score + 0.05) : 0.35;
  if (f.aliveAfter !== null && score > 0) {
    found.push(evidence("owner_still_alive", "cause", [f.aliveAfter.event.id], { instance: f.aliveAfter.event.instance, ts: f.aliveAfter.event.ts }, at(f.aliveAfter)));
    score = Math.min(0.97, score + 0.03);
  }
  // Spans alone (no client log): a Kafka record names itself by partition and offset, so another member of the group
  // processing the very record the first had processed without an error means the partition was reassigned before
  // the first's offset commit landed. Weak beside a logged move, and beaten by any sign of a crash.
  if (score === 0 && p.first.broker === "kafka" && p.sameMsgId === true && p.first.consume !== "failed" && instanceRelation(p.first.instance, p.second.instance) === "different") {
    found.push(evidence("same_record_other_instance", "cause", [p.first.startEventId, p.second.startEventId], { queue: p.first.queue, offset: p.first.queueOffset, from: p.first.instance, to: p.second.instance }));
    score = 0.6;
  }
  // The old owner's connection died without a shutdown: the queue moved because of the crash.
  if (f.vanished.length > 0 && f.left.length === 0) score = Math.min(score, 0.5);
  // Kafka: the old member overran its poll interval or had its commit refused: that is why the partition moved.
  if (f.pollTimeouts.length > 0 || f.commitFailures.length > 0) score = Math.min(score, 0.5);
  // An offset reset drops and re-adds the group's queues: those lines are the reset's, not a rebalance's.
  if (resetBetween(p) !== undefined) score = Math.min(score, 0.5);
  if (sameInstance(p)) score *= 0.5;
  return score === 0 ? null : { cause: "rebalance", score, evidence: found };
}
