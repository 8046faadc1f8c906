import type { DetailValue, NormalizedEvent } from "../events/model.ts";
import { FactSet, states, type Fact } from "../events/facts.ts";
import { FORMAT_KINDS, type SourceKind } from "../events/formats.ts";

/**
 * Which collector wrote an event, and what its lifecycle and rebalance actions mean for ownership. Collector event
 * ids start with the format (`<format>:<hash>`, collectors/record-fingerprint.ts) whatever source name the ingest was
 * given; collectors set `source` to `<format>:<file>` by default; events posted by hand may carry any id and
 * source, so the detail markers each collector leaves (traceRecord, brokerLine, template, layer) decide last.
 */

const PREFIX_KINDS = new Map<string, SourceKind>(
  Object.entries(FORMAT_KINDS).flatMap(([format, kind]): [string, SourceKind][] => (kind === null ? [] : [[format, kind]])),
);

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
 * What diagnosis makes of each fact a collector may emit (lib/events/facts.ts): one row per fact, checked by the
 * compiler (a fact without a row, or a row for no fact, does not compile) and by tests/contract/facts.test.ts (a
 * fact no format emits). The predicates below are built from it.
 *
 * - `vanished`: the broker saw the consumer's connection die (closed without unregistering, or silent past the
 *   heartbeat expiry), or a RabbitMQ connection/channel closed. A consumer that shuts down cleanly unregisters first,
 *   so none of these follows a clean shutdown. RabbitMQ requeues a channel's unacknowledged deliveries however it
 *   closes (formats.md §4), so its closes count whatever the reason.
 * - `left`: the consumer left on purpose and persisted its offsets on the way out; `joined`: a member started.
 * - `queue_removed` / `queue_added`: ownership changed on this instance; `queue_dropped`: a queue dropped without a
 *   result to say where it went; `result_set`: the instance's whole new set of queues; `partition_lost`: the member
 *   lost its partitions (all of them, when it was fenced or forgotten by the coordinator). The four also make who held
 *   which queue over time (holdings.ts), which outlives the raw lines.
 * - `consumer_timeout`: the consumer took too long and lost the message (Kafka's poll timeout, RabbitMQ's ack timeout);
 *   `poll_timeout_reason`: a line whose reason may say the poll timeout (2.4–2.8 LeaveGroup, 3.7+ rejoin).
 * - `rejoin` / `assignment`: the Kafka member rejoined, or got its assignment, around a pair (context.ts).
 * - `rebalance_line`: counted as a rebalance of the group (findings.ts, its episodes and frequency).
 * - `offset_reset`, `commit_failed`, `message_model`, `receipt_handle`, `client_connect`, `client_close`: read by the
 *   offset-rollback, commit-failed, broadcast, invisible-timeout and shared-clientId rules.
 * - `member_opens`, `member_closes`, `group_emptied`: a member of the line's group connected or started, went away, or
 *   the broker removed the group with no connection left: the group's state over time (members.ts), which outlives
 *   the raw lines.
 * - `shown`: kept with the key's context and shown with its evidence; no rule weighs it. Each says why.
 */
type Use =
  | "vanished"
  | "left"
  | "joined"
  | "queue_removed"
  | "queue_added"
  | "queue_dropped"
  | "result_set"
  | "partition_lost"
  | "consumer_timeout"
  | "poll_timeout_reason"
  | "rejoin"
  | "assignment"
  | "rebalance_line"
  | "offset_reset"
  | "commit_failed"
  | "message_model"
  | "receipt_handle"
  | "client_connect"
  | "client_close"
  | "member_opens"
  | "member_closes"
  | "group_emptied"
  | "shown";

export const READS = {
  "rebalance/joining": ["rebalance_line", "rejoin", "poll_timeout_reason"],
  "rebalance/joined": ["rebalance_line", "assignment", "member_opens"],
  "rebalance/revoke": ["rebalance_line", "queue_removed"],
  "rebalance/assign": ["rebalance_line", "queue_added", "assignment"],
  "rebalance/lost": ["rebalance_line", "partition_lost"],
  "rebalance/membership_lost": ["rebalance_line", "partition_lost", "member_closes"],
  "rebalance/add": ["rebalance_line", "queue_added"],
  "rebalance/remove": ["rebalance_line", "queue_removed"],
  "rebalance/result": ["rebalance_line", "result_set"],
  "rebalance/trigger": ["rebalance_line"],
  "rebalance/dropped": ["rebalance_line"],
  "rebalance/dropped_without_result": ["rebalance_line", "queue_dropped"],
  "rebalance/consumer_created": ["rebalance_line", "member_opens"],
  "rebalance/consumer_deleted": ["rebalance_line", "member_closes"],
  "rebalance/queue_deleted": ["rebalance_line"],
  "instance_lifecycle/commit_failed": ["commit_failed"],
  // Not a change of ownership: the queue could not be taken, or was held already.
  "instance_lifecycle/add_failed": ["shown"],
  "instance_lifecycle/exists": ["shown"],
  "instance_lifecycle/leave_group": ["poll_timeout_reason", "member_closes"],
  "instance_lifecycle/poll_timeout": ["consumer_timeout"],
  // The reset that follows it is the fact; this says why (the collector pairs them, kafka-client-log/offset-resets.ts).
  "instance_lifecycle/offset_out_of_range": ["shown"],
  "instance_lifecycle/offset_reset": ["offset_reset"],
  // A reset forward skips messages: a loss, not a duplicate.
  "instance_lifecycle/offset_skipped": ["shown"],
  // A Connect worker group moves connectors and tasks; its sink tasks' consumers log their own rebalances.
  "instance_lifecycle/worker_rebalance": ["shown"],
  "instance_lifecycle/channel_closed": ["vanished", "client_close", "member_closes"],
  "instance_lifecycle/channel_expired": ["vanished", "client_close", "member_closes"],
  "instance_lifecycle/channel_inactive": ["vanished", "client_close", "member_closes"],
  // Opening a channel or connection hands nothing over.
  "instance_lifecycle/channel_opened": ["shown"],
  "instance_lifecycle/connection_opened": ["shown"],
  "instance_lifecycle/connected": ["joined", "client_connect", "member_opens"],
  "instance_lifecycle/connection_closed": ["vanished", "member_closes"],
  "instance_lifecycle/connection_lost": ["vanished", "member_closes"],
  "instance_lifecycle/heartbeat_missed": ["vanished"],
  "instance_lifecycle/ack_timeout": ["consumer_timeout"],
  // The group is gone from the broker: no connection of it is left there; its members' own lines say what they held.
  "instance_lifecycle/group_removed": ["group_emptied"],
  "instance_lifecycle/unregistered": ["left", "client_close", "member_closes"],
  // A producer group is no consumer group: its channels hold no queue and are never a group's members. The broker sends
  // a transaction check-back to one channel of the producer group, so which producers were connected is shown with it.
  "instance_lifecycle/producer_connected": ["shown"],
  "instance_lifecycle/producer_disconnected": ["shown"],
  "instance_lifecycle/producer_group_removed": ["shown"],
  // The client's side of an unregister the broker logs as `unregistered`; a shutdown line accompanies it.
  "instance_lifecycle/unregister_client": ["shown"],
  "instance_lifecycle/start": ["joined", "member_opens"],
  "instance_lifecycle/starting": ["message_model", "member_opens"],
  "instance_lifecycle/shutdown": ["left", "member_closes"],
  "instance_lifecycle/receipt_handle_invalid": ["receipt_handle"],
  // Lines that name no message: the key's own consume and send events carry these facts when they do.
  "instance_lifecycle/consume_exception": ["shown"],
  "instance_lifecycle/producer_resend": ["shown"],
} as const satisfies Record<Fact, readonly Use[]>;

/** The facts diagnosis reads for `use`. */
export function factsFor(use: Use): FactSet {
  return new FactSet((Object.entries(READS) as [Fact, readonly Use[]][]).filter(([, uses]) => uses.includes(use)).map(([fact]) => fact));
}

const VANISHED = factsFor("vanished");
const LEFT = factsFor("left");
const JOINED = factsFor("joined");
const REMOVED = factsFor("queue_removed");
const ADDED = factsFor("queue_added");
const DROPPED = factsFor("queue_dropped");
const LOST = factsFor("partition_lost");
const RESULT = factsFor("result_set");
const CONSUMER_TIMEOUT = factsFor("consumer_timeout");
const POLL_TIMEOUT_REASON = factsFor("poll_timeout_reason");
const OFFSET_RESET = factsFor("offset_reset");
const COMMIT_FAILED = factsFor("commit_failed");
export const REJOIN = factsFor("rejoin");
export const ASSIGNMENT = factsFor("assignment");
export const CLIENT_CLOSES = factsFor("client_close");

export const isVanished = (e: NormalizedEvent) => states(e, VANISHED);
export const isLeft = (e: NormalizedEvent) => states(e, LEFT);
export const isJoined = (e: NormalizedEvent) => states(e, JOINED);
export const isQueueRemoved = (e: NormalizedEvent) => states(e, REMOVED) && e.queue !== null;
export const isQueueAdded = (e: NormalizedEvent) => states(e, ADDED) && e.queue !== null;
export const isQueueDropped = (e: NormalizedEvent) => states(e, DROPPED);
export const isPartitionLost = (e: NormalizedEvent) => states(e, LOST);
/** A result line (`rebalanced result changed`, gRPC assignments): the instance's whole new set of queues. */
export const isResultSet = (e: NormalizedEvent) => states(e, RESULT);
/**
 * isQueueRemoved, isQueueDropped or isResultSet, from the fields the ingest journal keeps of a line (its kind,
 * `detail->>'action'`, queue): the lines that who held the queue reads past the second delivery (reach.ts).
 */
export const givesQueueUp = (kind: string, lineAction: string | null, queue: string | null): boolean => {
  const fact = `${kind}/${lineAction ?? ""}`;
  return (REMOVED.has(fact) && queue !== null) || DROPPED.has(fact) || RESULT.has(fact);
};
/** Kafka's poll timeout and RabbitMQ's ack timeout: the consumer took too long and lost the message. */
export const isConsumerTimeout = (e: NormalizedEvent) => isPollTimeout(e) || states(e, CONSUMER_TIMEOUT);
/**
 * Kafka: the member went longer than max.poll.interval.ms between polls. Besides the timeout line itself, 2.4–2.8
 * print it only as the LeaveGroup's reason, and 3.7+ (`group.protocol=consumer`) as a rejoin when poll() comes back.
 */
export const isPollTimeout = (e: NormalizedEvent) => {
  if (action(e) === "poll_timeout") return true;
  return states(e, POLL_TIMEOUT_REASON) && /poll timeout/i.test(str(e.detail.reason) ?? "");
};
/** The group's consumer offsets were reset (broker `[reset-offset]`, client `invoke reset offset operation from broker`). */
export const isOffsetReset = (e: NormalizedEvent) => states(e, OFFSET_RESET);
/** Kafka: an offset commit was refused; `detail.membershipLost` when the member had been removed from the group. */
export const isCommitFailed = (e: NormalizedEvent) => states(e, COMMIT_FAILED);

/** A RabbitMQ message that went through a dead-letter queue (`x-death`) or was moved by a shovel (`x-shovelled`). */
export function isReplayed(e: NormalizedEvent): boolean {
  return (Array.isArray(e.detail.xDeath) && e.detail.xDeath.length > 0) || (Array.isArray(e.detail.xShovelled) && e.detail.xShovelled.length > 0);
}

/** The RocketMQ retry and dead-letter topics keep the group name, not the original topic. */
export const isRetryTopic = (topic: string | null) => topic !== null && topic.startsWith("%RETRY%");
export const isDlqTopic = (topic: string | null) => topic !== null && topic.startsWith("%DLQ%");
export const originalTopic = (topic: string | null) => (topic === null || isRetryTopic(topic) || isDlqTopic(topic) ? null : topic);
