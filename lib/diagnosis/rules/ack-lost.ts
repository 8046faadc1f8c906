import { fate, type Hit } from "../context.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { hostOf } from "../identity.ts";
import { retryAdvanced, type Pair, type RuleResult } from "../pair.ts";

const at = (h: Hit) => ({ coarse: h.at.coarse, tolerant: h.at.tolerant });

/**
 * ack_lost: the first consumer finished (or was mid-way) and died — kill, crash, network loss — before its offset
 * was persisted (every 5 s) or its ACK reached the broker, so the copy was redelivered from the last committed
 * offset. The old owner vanishes without a shutdown line: the broker logs `remove not active channel` or, after
 * 120 s of silence, `SCAN: remove expired channel`; a restarted process has a new pid on the same host. RabbitMQ
 * marks the redelivery `redelivered`; Kafka logs the partitions as lost (formats.md §2, §4, §6).
 */
export function ackLost(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.copy.relation === "different" || retryAdvanced(p) || p.second.direct) return null;
  const f = fate(p);
  const found: Evidence[] = [...p.copy.evidence];
  let score = 0;
  const raise = (to: number) => (score = Math.max(score, to));

  const vanished = f.vanished[0];
  if (vanished !== undefined) {
    found.push(evidence("channel_lost", "cause", [vanished.event.id], { instance: vanished.event.instance, action: String(vanished.event.detail.action), ts: vanished.event.ts }, at(vanished)));
    raise(0.9);
  }
  // A new process on the host says the old one died only if the old one shows no life afterwards (two processes
  // may share a host).
  const restarted = f.aliveAfter === null ? f.restarted[0] : undefined;
  if (restarted !== undefined && restarted.event.instance !== null) {
    found.push(evidence("process_restarted", "cause", [restarted.event.id], { host: hostOf(restarted.event.instance), oldInstance: p.first.instance, newInstance: restarted.event.instance, ts: restarted.event.ts }, at(restarted)));
    raise(0.85);
  }
  if (p.second.redelivered === true) {
    found.push(evidence("redelivered_flag", "cause", [p.second.startEventId], { instance: p.second.instance, ts: p.second.start }));
    raise(vanished !== undefined ? 0.95 : 0.75);
  }
  const lost = f.partitionLost[0];
  if (lost !== undefined) {
    found.push(evidence("partition_lost", "cause", [lost.event.id], { queue: lost.event.queue, instance: lost.event.instance, ts: lost.event.ts }, at(lost)));
    raise(0.75);
  }
  if (f.lastSeen !== null && f.left.length === 0) {
    found.push(evidence("owner_went_silent", "cause", [f.lastSeen.id], { instance: p.first.instance, lastTs: f.lastSeen.ts }));
    raise(0.45);
  }
  if (score === 0) return null;
  // A consumer timeout also closes the channel (RabbitMQ) or the membership (Kafka): that close is the timeout's.
  if (f.consumerTimeouts.length > 0 || f.commitFailures.length > 0) score = Math.min(score, 0.5);
  if (f.left.length > 0) {
    // It shut down on purpose and persisted its offsets on the way out: a rebalance, not a lost ACK.
    score = Math.min(score, 0.3);
  } else if (f.clientLogSeen) {
    found.push(evidence("no_shutdown", "cause", [], { instance: p.first.instance }));
  }
  return { cause: "ack_lost", score, evidence: found };
}
