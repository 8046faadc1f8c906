/**
 * The words a verdict is made of (issue: diagnosis engine). Shared by the diagnosis engine, the simulator's
 * truth.json and the evaluation, so a cause means the same thing in all three.
 */

export const CAUSES = [
  "producer_retry", // same msgId (UNIQ_KEY), other offsetMsgId, within the send-retry window
  "upstream_resend", // new msgId, same bizKey: the producer was called twice
  "rebalance", // the queue moved between instances around the deliveries
  "ack_lost", // consumed OK, offset/ACK never committed (crash, kill, network); redelivered
  "consume_timeout", // consume took longer than consumeTimeout; sent back and redelivered
  "commit_failed", // Kafka: the consumer outlived max.poll.interval.ms, left the group, its offset commit was refused
  "offset_rollback", // the group's committed offsets went backwards (an operator's reset, a restore): consumed again
  "shared_client_id", // two processes with one RocketMQ clientId: the broker sees one member, both consume the same queues
  "broadcast_consumption", // a BROADCASTING group gives every message to every instance: by design, not a fault
  "invisible_timeout", // RocketMQ 5: the invisible duration ran out before the ack; the message came again
  "retry_after_failure", // first attempt failed after a side effect; the retry ran it again
  "dlq_replay", // a dead-lettered copy was resent (consumeMessageDirectly, shovel, x-death)
  "delayed_double_write", // a delayed/timer message was written to the real topic twice
  "transaction_checkback", // a transactional half message committed twice via check-back
  "unknown",
] as const;
export type Cause = (typeof CAUSES)[number];

/**
 * Whether a verdict counts as a duplicate in the overview, the duplicates list, alerts and findings: a broadcasting
 * group consumes each message on every instance by design, which is a duplicate only when a dedup layer let a second
 * business effect through.
 */
export function countsAsDuplicate(v: { cause: Cause; outcome: Outcome }): boolean {
  return v.cause !== "broadcast_consumption" || v.outcome === "leaked";
}

export const DEDUP_LAYERS = ["bloom", "redis", "db", "state"] as const;
export type DedupLayer = (typeof DEDUP_LAYERS)[number];

export const OUTCOMES = ["caught", "leaked", "unknown"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const DEFECTS = [
  "dedup_key_not_business_key", // dedup keyed on msgId; duplicates with new msgIds pass
  "marker_expired", // gap longer than the Redis marker TTL and no durable layer
  "non_atomic_check", // two passes within ms on two instances
  "marker_not_released", // a failed attempt left the marker, so the retry was skipped: a lost message
  "async_ack", // consume returned success before the business finished
  "no_durable_layer",
] as const;
export type Defect = (typeof DEFECTS)[number];

export const GAP_CLASSES = ["ms", "seconds", "minutes"] as const;
export type GapClass = (typeof GAP_CLASSES)[number];

/** < 1 s: concurrent consumption; < 60 s: a redelivery or retry; more: a replay, a DLQ resend, a long outage. */
export function gapClass(gapMs: number): GapClass {
  const abs = Math.abs(gapMs);
  return abs < 1000 ? "ms" : abs < 60_000 ? "seconds" : "minutes";
}
