import { fate, ownership, type Hit } from "../context.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import type { Pair, RuleResult } from "../pair.ts";
import { num } from "../sources.ts";

const at = (h: Hit) => ({ coarse: h.at.coarse, tolerant: h.at.tolerant });

/**
 * commit_failed (Kafka): the consumer spent longer than max.poll.interval.ms on a batch, so its heartbeat thread
 * left the group (`consumer poll timeout has expired`); the partition went to another member, which resumed from the
 * last committed offset, and when the slow batch ended its commit was refused (`Offset commit failed on partition …:
 * The coordinator is not aware of this member`, CommitFailedException). Every record of that batch was processed
 * again. It is a rebalance in its effect, but the advice differs: smaller batches (max.poll.records), a longer
 * max.poll.interval.ms, processing that keeps up with the poll loop. A member killed before it committed is not this:
 * it logs neither line (ack_lost).
 */
export function commitFailed(p: Pair): RuleResult | null {
  if (p.first.broker !== "kafka" || p.sameMsgId === false || p.copy.relation === "different" || p.second.direct) return null;
  const f = fate(p);
  if (f.pollTimeouts.length === 0 && f.commitFailures.length === 0) return null;
  const found: Evidence[] = [...p.copy.evidence];
  let score = 0;

  const timeout = f.pollTimeouts[0];
  if (timeout !== undefined) {
    const exceededMs = num(timeout.event.detail.exceededMs) ?? num(timeout.event.detail.exceededByMs);
    found.push(evidence("poll_interval_exceeded", "cause", [timeout.event.id], { instance: timeout.event.instance, ts: timeout.event.ts, exceededMs }, at(timeout)));
    score = 0.88;
  }
  const refused = f.commitFailures.find((h) => h.event.queue !== null) ?? f.commitFailures[0];
  if (refused !== undefined) {
    const e = refused.event;
    found.push(evidence("offset_commit_failed", "cause", [e.id], { instance: e.instance, ts: e.ts, queue: e.queue, offset: num(e.detail.offset), membershipLost: true }, at(refused)));
    score = timeout !== undefined ? 0.95 : 0.9;
  }

  // Where the partition went: the old member's loss or revoke, the new owner's assignment.
  const o = ownership(p);
  const moved = [...f.partitionLost, ...o.removed, ...o.added].sort((a, b) => a.event.ts - b.event.ts);
  for (const h of moved.slice(0, 2)) {
    const e = h.event;
    const queue = e.queue ?? p.first.queue ?? "";
    const code = instanceRelation(e.instance, p.first.instance) === "same" ? "queue_removed" : "queue_added";
    found.push(evidence(code, "cause", [e.id], { topic: e.topic, queue, instance: e.instance, ts: e.ts }, at(h)));
    score = Math.min(0.97, score + 0.01);
  }
  if (moved.length === 0 && instanceRelation(p.first.instance, p.second.instance) === "different") {
    found.push(evidence("same_record_other_instance", "cause", [p.first.startEventId, p.second.startEventId], { queue: p.first.queue, offset: p.first.queueOffset, from: p.first.instance, to: p.second.instance }));
  }
  // A first attempt that threw was sought back by the error handler: that retry is the likelier story.
  if (p.first.consume === "failed") score = Math.min(score, 0.5);
  return { cause: "commit_failed", score, evidence: found };
}
