import type { HoldingInterval } from "./holdings.ts";
import type { MemberInterval } from "./members.ts";
import type { SourceKind } from "../events/formats.ts";
import type { Broker, NormalizedEvent, TsPrecision } from "../events/model.ts";
import type { Evidence } from "./evidence.ts";
import type { Cause, DedupLayer, Defect, GapClass, Outcome } from "./vocabulary.ts";

/**
 * What diagnosis reads and writes. Everything here is plain data (JSON-serialisable), so the API can return it
 * as is and the simulator's evaluation can compare it with truth.json field by field.
 */

export interface DiagnosisInput {
  bizKey: string;
  /**
   * The key's events: those filed under `bizKey`, plus events without a bizKey that name one of its msgIds (client
   * log lines carry the message's KEYS only in `detail.keys`). Events of other keys are ignored.
   */
  events: NormalizedEvent[];
  /**
   * Rebalance, lifecycle, send_attempt and transaction events of the same group(s), queue(s) and instances in a
   * window around the key's events. Diagnosis looks up what it needs; extra events do no harm.
   */
  context: readonly NormalizedEvent[];
  /**
   * The key's groups' members over its time (members.ts), as the store keeps them beyond the raw lines' retention.
   * Absent: derived from the membership lines in `context`.
   */
  members?: readonly MemberInterval[];
  /**
   * Who held the queues the key was delivered from, over its time (holdings.ts), as the store keeps them beyond the raw
   * lines' retention. Absent: derived from the rebalance and membership lines in `context`.
   */
  holdings?: readonly HoldingInterval[];
}

/** RocketMQ defaults (formats.md §3); override when a deployment changed them. */
export interface DiagnosisOptions {
  /** How far two hosts' clocks may disagree. Every cross-host comparison allows this much either way. */
  clockSkewMs: number;
  /** Producer `sendMsgTimeout`; with `sendAttempts` it bounds how far apart two copies of a producer retry are. */
  sendTimeoutMs: number;
  /** 1 + `retryTimesWhenSendFailed` (3 by default). */
  sendAttempts: number;
  /** Consumer `consumeTimeout` (15 min). */
  consumeTimeoutMs: number;
  /** `maxReconsumeTimes`: a delivery with this many retries that fails goes to the DLQ. */
  maxReconsumeTimes: number;
  /** Delay before retry n (index n-1): delay levels 3.. of the broker, 10 s, 30 s, 1 min … 2 h. */
  retryDelaysMs: readonly number[];
  /** The periodic rebalance interval: how long before the old owner's consumption a queue move still counts. */
  rebalanceIntervalMs: number;
  /** The broker drops a consumer channel that sent no heartbeat for this long. */
  channelExpiryMs: number;
}

const MIN = 60_000;

export const DEFAULT_OPTIONS: DiagnosisOptions = {
  clockSkewMs: 3000,
  sendTimeoutMs: 3000,
  sendAttempts: 3,
  consumeTimeoutMs: 15 * MIN,
  maxReconsumeTimes: 16,
  retryDelaysMs: [10_000, 30_000, MIN, 2 * MIN, 3 * MIN, 4 * MIN, 5 * MIN, 6 * MIN, 7 * MIN, 8 * MIN, 9 * MIN, 10 * MIN, 20 * MIN, 30 * MIN, 60 * MIN, 120 * MIN],
  rebalanceIntervalMs: 20_000,
  channelExpiryMs: 120_000,
};

/**
 * Which kind of record an event came from; decides what its fields can be trusted for. `firehose` is RabbitMQ's
 * trace and event exchange: broker-side, but with no end records and, for traces, no time of its own.
 */
export type { SourceKind };

/** How one consume attempt ended, as the consumer reported it. */
export type ConsumeStatus = "success" | "failed" | "timeout" | "unknown";

/**
 * What the business side effect did in one delivery, from the dedup log when it covers the delivery:
 * `executed` (committed; also when a row of the business table read by `dupscope probe` is attached to the delivery,
 * see effect-rows.ts), `failed` (failed cleanly, no side effect), `skipped` (a dedup layer said hit),
 * `unfinished` (passed the layers, but neither an `executed` line nor a success report followed: the process died
 * or the call hung before the commit, which the application logs right after it), `ran` (no dedup line, but the
 * consumer reported success, so the business ran), `unknown` (no dedup line and no success: nobody can tell).
 */
export type Effect = "executed" | "failed" | "skipped" | "unfinished" | "ran" | "unknown";

export type DedupDecisionKind = "pass" | "hit" | "released" | "executed" | "failed";

export interface DedupDecision {
  eventId: string;
  ts: number;
  layer: DedupLayer | "none";
  decision: DedupDecisionKind;
  instance: string | null;
  dedupKey: string | null;
  ttlMs: number | null;
}

/** One consume attempt of one message copy by one instance of one group, put together from every source. */
export interface Delivery {
  /** `d1`, `d2`… in causal order within the key. */
  id: string;
  group: string | null;
  broker: Broker;
  msgId: string | null;
  offsetMsgId: string | null;
  topic: string | null;
  queue: string | null;
  queueOffset: number | null;
  /** The most specific identity any source gave (`ip@pid` over a trace's bare host). */
  instance: string | null;
  start: number;
  startPrecision: TsPrecision;
  end: number | null;
  retryTimes: number | null;
  /** consumeMessageDirectly (dashboard resend, DLQ resend): no consume trace exists for it. */
  direct: boolean;
  redelivered: boolean | null;
  consume: ConsumeStatus;
  contextName: string | null;
  /** Consume duration from the trace (`costTime`) or start/end. */
  costMs: number | null;
  /** When the consumer reported the outcome (SubAfter, ack), to compare with the business effect's time. */
  ackTs: number | null;
  dedup: DedupDecision[];
  effect: Effect;
  sources: SourceKind[];
  eventIds: string[];
  startEventId: string;
  endEventId: string | null;
  /** Placed after the previous delivery although its clock said earlier: within the skew, causality decided. */
  reordered?: "retry_times" | "dedup_order" | "failure_first";
  /** The business-table row (`dupscope probe`) this delivery wrote, by time and instance: its event id. */
  effectRows?: string[];
}

export interface Verdict {
  group: string | null;
  topic: string | null;
  cause: Cause;
  /** 0..1: how strongly the evidence singles this cause out. */
  confidence: number;
  evidence: Evidence[];
  /** How far apart the two consumptions' starts are: never negative (clock-order.ts). */
  gapMs: number;
  /**
   * How far the repeat's start is stamped before the first's: the hosts' clocks put them the other way round and
   * disagree by at least this much. 0 when the clocks agree with the order the diagnosis chose.
   */
  clockSkewMs: number;
  gapClass: GapClass;
  instances: { first: string | null; second: string | null };
  sameInstance: boolean;
  outcome: Outcome;
  layer?: DedupLayer;
  defect?: Defect;
  /** Delivery ids: the earlier consumption whose effect may already have happened, and the duplicate. */
  deliveries: [string, string];
  msgIds: { first: string | null; second: string | null };
}

/** A message whose business never ran although it was delivered: skipped by a marker that should not be there. */
export interface LostMessage {
  group: string | null;
  msgId: string | null;
  defect?: Defect;
  confidence: number;
  evidence: Evidence[];
  deliveries: string[];
}

/** A retry after a clean failure: expected at-least-once behaviour, counted but not a duplicate. */
export interface NormalRetry {
  group: string | null;
  delivery: string;
  after: string;
}

export type MissingCode =
  | "no_pub_trace"
  | "no_consume_trace"
  | "no_dedup_log"
  | "no_dedup_line"
  | "no_client_log"
  | "no_broker_log"
  | "host_only_identity"
  | "service_only_identity"
  | "no_consume_end"
  | "no_msg_id"
  | "no_event_exchange";

export interface MissingData {
  code: MissingCode;
  group?: string | null;
  instance?: string | null;
  msgId?: string | null;
  ts?: number;
}

/** Per-group facts of one key that the aggregates need and a single verdict does not carry. */
export interface GroupFacts {
  group: string | null;
  topic: string | null;
  deliveries: number;
  duplicates: number;
  normalRetries: number;
  dedupCovered: boolean;
  /** Layers the group's dedup log named for this key. */
  layers: DedupLayer[];
  /** Shortest marker TTL logged with a pass, if any. */
  ttlMs: number | null;
  /** Longest consume duration seen for this key. */
  maxConsumeMs: number | null;
}

export interface KeyDiagnosis {
  bizKey: string;
  deliveries: Delivery[];
  duplicates: Verdict[];
  normalRetries: NormalRetry[];
  lost: LostMessage[];
  missing: MissingData[];
  groups: GroupFacts[];
}
