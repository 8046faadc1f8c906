import type { DetailValue, NormalizedEvent } from "../events/model.ts";
import type { SourceKind } from "./types.ts";

/**
 * Which collector wrote an event, and what its lifecycle and rebalance actions mean for ownership. Collector event
 * ids start with the format (`<format>:<hash>`, collectors/record-fingerprint.ts) whatever source name the ingest was
 * given; collectors set `source` to `<format>:<file>` by default; events posted by hand may carry any id and
 * source, so the detail markers each collector leaves (traceRecord, brokerLine, template, layer) decide last.
 */

const PREFIXES: Record<string, SourceKind> = {
  "rocketmq-trace": "trace",
  "rocketmq-client-log": "client_log",
  "rocketmq-broker-log": "broker_log",
  "dedup-log": "dedup_log",
  "kafka-client-log": "kafka_log",
  "rabbitmq-firehose": "firehose",
  "rabbitmq-server-log": "broker_log",
  "otlp-traces": "otel",
};

const PREFIX_KINDS = new Map(Object.entries(PREFIXES));

/**
 * The kind a `<format>:…` (or bare `<format>`) id or source names. No format name holds a colon, so the text before
 * the first one is the whole name: one lookup, since diagnosis asks it of every context line.
 */
function prefixKind(value: string): SourceKind | undefined {
  const colon = value.indexOf(":");
  return PREFIX_KINDS.get(colon < 0 ? value : value.slice(0, colon));
}

export function sourceKind(e: NormalizedEvent): SourceKind {
  const known = prefixKind(e.id) ?? prefixKind(e.source);
  if (known !== undefined) return known;
  if (e.kind === "dedup" || e.kind === "business_effect") return "dedup_log";
  if (typeof e.detail.traceRecord === "string") return "trace";
  if (typeof e.detail.brokerLine === "string" || typeof e.detail.brokerInstance === "string") return "broker_log";
  if (e.broker === "kafka" && typeof e.detail.clientId === "string") return "kafka_log";
  if (typeof e.detail.template === "string") return "client_log";
  return "other";
}

export function str(value: DetailValue | undefined): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

export function num(value: DetailValue | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function strings(value: DetailValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** `strings(value).includes(wanted)` without building the list: asked of every context line for every key. */
export function includesString(value: DetailValue | undefined, wanted: string): boolean {
  return Array.isArray(value) && value.includes(wanted);
}

export function action(e: NormalizedEvent): string | null {
  return str(e.detail.action);
}

/**
 * The broker saw the consumer's connection die (closed without unregistering, or silent past the heartbeat
 * expiry), or a RabbitMQ connection/channel closed. A consumer that shuts down cleanly unregisters first, so none
 * of these follows a clean shutdown. RabbitMQ requeues a channel's unacknowledged deliveries however it closes
 * (formats.md §4), so its closes count whatever the reason: `connection_lost` (the client's TCP connection went
 * away) and `heartbeat_missed` are the server log's words for the unclean ones.
 */
const VANISHED = new Set(["channel_inactive", "channel_expired", "connection_closed", "channel_closed", "connection_lost", "heartbeat_missed"]);
/** The consumer left on purpose: it persisted its offsets on the way out. */
const LEFT = new Set(["shutdown", "unregistered"]);
const JOINED = new Set(["start", "connected"]);
/** Ownership changed on this instance: a queue/partition was given up or taken. */
const REMOVED = new Set(["remove", "revoke"]);
const ADDED = new Set(["add", "assign"]);

export const isVanished = (e: NormalizedEvent) => e.kind === "instance_lifecycle" && VANISHED.has(action(e) ?? "");
export const isLeft = (e: NormalizedEvent) => e.kind === "instance_lifecycle" && LEFT.has(action(e) ?? "");
export const isJoined = (e: NormalizedEvent) => e.kind === "instance_lifecycle" && JOINED.has(action(e) ?? "");
export const isQueueRemoved = (e: NormalizedEvent) => e.kind === "rebalance" && REMOVED.has(action(e) ?? "") && e.queue !== null;
export const isQueueAdded = (e: NormalizedEvent) => e.kind === "rebalance" && ADDED.has(action(e) ?? "") && e.queue !== null;
export const isQueueDropped = (e: NormalizedEvent) => e.kind === "rebalance" && action(e) === "dropped_without_result";
export const isPartitionLost = (e: NormalizedEvent) => e.kind === "rebalance" && action(e) === "lost";
/** A result line (`rebalanced result changed`, gRPC assignments): the instance's whole new set of queues. */
export const isResultSet = (e: NormalizedEvent) => e.kind === "rebalance" && action(e) === "result";
/**
 * isQueueRemoved, isQueueDropped or isResultSet, from the fields the ingest journal keeps of a line (its kind,
 * `detail->>'action'`, queue): the lines that who held the queue reads past the second delivery (reach.ts).
 */
export const givesQueueUp = (kind: string, lineAction: string | null, queue: string | null): boolean =>
  kind === "rebalance" && ((REMOVED.has(lineAction ?? "") && queue !== null) || lineAction === "dropped_without_result" || lineAction === "result");
/** Kafka's poll timeout and RabbitMQ's ack timeout: the consumer took too long and lost the message. */
export const isConsumerTimeout = (e: NormalizedEvent) => isPollTimeout(e) || (e.kind === "instance_lifecycle" && action(e) === "ack_timeout");
/**
 * Kafka: the member went longer than max.poll.interval.ms between polls. Besides the timeout line itself, 2.4–2.8
 * print it only as the LeaveGroup's reason, and 3.7+ (`group.protocol=consumer`) as a rejoin when poll() comes back.
 */
export const isPollTimeout = (e: NormalizedEvent) => {
  const a = action(e);
  if (a === "poll_timeout") return true;
  const reason = str(e.detail.reason) ?? "";
  return (a === "leave_group" || a === "joining") && /poll timeout/i.test(reason);
};
/** The group's consumer offsets were reset (broker `[reset-offset]`, client `invoke reset offset operation from broker`). */
export const isOffsetReset = (e: NormalizedEvent) => e.kind === "instance_lifecycle" && action(e) === "offset_reset";
/** Kafka: an offset commit was refused; `detail.membershipLost` when the member had been removed from the group. */
export const isCommitFailed = (e: NormalizedEvent) => e.kind === "instance_lifecycle" && action(e) === "commit_failed";

/** A RabbitMQ message that went through a dead-letter queue (`x-death`) or was moved by a shovel (`x-shovelled`). */
export function isReplayed(e: NormalizedEvent): boolean {
  return (Array.isArray(e.detail.xDeath) && e.detail.xDeath.length > 0) || (Array.isArray(e.detail.xShovelled) && e.detail.xShovelled.length > 0);
}

/** The RocketMQ retry and dead-letter topics keep the group name, not the original topic. */
export const isRetryTopic = (topic: string | null) => topic !== null && topic.startsWith("%RETRY%");
export const isDlqTopic = (topic: string | null) => topic !== null && topic.startsWith("%DLQ%");
export const originalTopic = (topic: string | null) => (topic === null || isRetryTopic(topic) || isDlqTopic(topic) ? null : topic);
