import { HOUR, MINUTE, SECOND } from "./clock.ts";

/**
 * The simulated cluster's fixed shape: two brokers, the topics and consumer groups, each group's dedup stack
 * (with its defect, if any) and the producer applications. Scenarios pick the groups they need.
 */

export const BROKER_NAMES = ["broker-a", "broker-b"] as const;
export type BrokerName = (typeof BROKER_NAMES)[number];
export const BROKER_IPS: Record<BrokerName, string> = { "broker-a": "10.0.0.2", "broker-b": "10.0.0.3" };
export const BROKER_PORT = 10911;
export const QUEUES_PER_BROKER = 4;
export const REGION = "DefaultRegion";
export const CLUSTER = "DefaultCluster";

/** RocketMQ defaults (formats.md §3). */
export const DEFAULTS = {
  sendMsgTimeoutMs: 3000,
  retryTimesWhenSendFailed: 2,
  rebalanceIntervalMs: 20 * SECOND,
  persistOffsetIntervalMs: 5 * SECOND,
  heartbeatIntervalMs: 30 * SECOND,
  channelExpiredMs: 120 * SECOND,
  brokerScanIntervalMs: 10 * SECOND,
  consumeTimeoutMs: 15 * MINUTE,
  maxReconsumeTimes: 16,
  traceFlushMs: 5 * SECOND,
  traceBatch: 10,
  delayOffsetPersistMs: 10 * SECOND,
  transactionCheckIntervalMs: 60 * SECOND,
  transactionTimeoutMs: 6 * SECOND,
  /** The delay level a consume-timeout send-back uses (10 s). */
  expireDelayLevel: 3,
} as const;

/** messageDelayLevel `1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h`, level n at index n-1. */
export const DELAY_LEVELS_MS: readonly number[] = [1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200].map(
  (s) => s * SECOND,
);

export function delayOfLevel(level: number): number {
  const ms = DELAY_LEVELS_MS[level - 1];
  if (ms === undefined) throw new Error(`no delay level ${level}`);
  return ms;
}

/**
 * One dedup layer as the consuming application configured it. The defects of DEFECTS are configurations here:
 * a Redis marker keyed on msgId, a short TTL, GET-then-SET instead of SET NX, no DEL after a failure, a Redis
 * without persistence and nothing durable behind it.
 */
export type LayerSpec =
  | { layer: "bloom"; scope: "shared" | "local"; skipOnPositive: boolean }
  | {
      layer: "redis";
      keyOn: "bizKey" | "msgId";
      ttlMs: number;
      /** SET NX EX at check time; false: GET at check time, SET after the side effect committed. */
      atomic: boolean;
      releaseOnFailure: boolean;
    }
  | { layer: "db" }
  | { layer: "state" };

export interface GroupSpec {
  name: string;
  topic: string;
  tags: string;
  /** Business keys of this topic start with it (`PAY-20261130-000042`). */
  keyPrefix: string;
  /** Prefix of the dedup keys the application writes. */
  markerPrefix: string;
  /** Consumer hosts are 10.0.<subnet>.11, .12, … */
  subnet: number;
  instances: number;
  stack: LayerSpec[];
  /** False: the application writes no dedup log, so whether a duplicate was caught is unknown. */
  dedupLog: boolean;
  /** Consume time of the listener in ms. */
  businessMs: readonly [number, number];
  /** The listener returns CONSUME_SUCCESS at once and a worker runs the business this much later (async ack). */
  asyncBusinessMs?: readonly [number, number];
  producer: string;
  error: string;
  /** BROADCASTING: every instance takes every queue and consumes every message (default CLUSTERING). */
  messageModel?: "BROADCASTING";
}

const REDIS_DAY = { layer: "redis", keyOn: "bizKey", ttlMs: 24 * HOUR, atomic: true, releaseOnFailure: true } as const;

export const GROUPS: readonly GroupSpec[] = [
  {
    name: "cg_order_paid",
    topic: "order_paid",
    tags: "paid",
    keyPrefix: "PAY",
    markerPrefix: "paid",
    subnet: 11,
    instances: 3,
    stack: [{ layer: "bloom", scope: "local", skipOnPositive: false }, REDIS_DAY, { layer: "db" }],
    dedupLog: true,
    businessMs: [20, 250],
    producer: "pg_order",
    error: "org.springframework.dao.CannotAcquireLockException: PreparedStatementCallback; SQL [UPDATE points_account SET balance = balance + ? WHERE user_id = ?]; Lock wait timeout exceeded",
  },
  {
    // A second group on the same topic: the same keys, its own duplicates; it writes no dedup log.
    name: "cg_search_index",
    topic: "order_paid",
    tags: "paid",
    keyPrefix: "PAY",
    markerPrefix: "search",
    subnet: 12,
    instances: 2,
    stack: [],
    dedupLog: false,
    businessMs: [5, 30],
    producer: "pg_order",
    error: "org.elasticsearch.ElasticsearchTimeoutException: java.util.concurrent.TimeoutException: Timeout waiting for task.",
  },
  {
    name: "cg_fulfil",
    topic: "order_created",
    tags: "created",
    keyPrefix: "ORD",
    markerPrefix: "orders.fulfil_status:CREATED->FULFILLING",
    subnet: 13,
    instances: 2,
    stack: [{ layer: "state" }],
    dedupLog: true,
    businessMs: [10, 60],
    producer: "pg_order_tx",
    error: "org.springframework.dao.QueryTimeoutException: fulfil_order timed out",
  },
  {
    name: "cg_coupon",
    topic: "coupon_grant",
    tags: "grant",
    keyPrefix: "CPN",
    markerPrefix: "coupon",
    subnet: 14,
    instances: 2,
    stack: [{ layer: "bloom", scope: "shared", skipOnPositive: true }, REDIS_DAY],
    dedupLog: true,
    businessMs: [10, 50],
    producer: "pg_marketing",
    error: "java.lang.IllegalStateException: coupon template 7781 is locked",
  },
  {
    name: "cg_points",
    topic: "points_award",
    tags: "award",
    keyPrefix: "PTS",
    markerPrefix: "points",
    subnet: 15,
    instances: 2,
    stack: [{ ...REDIS_DAY, keyOn: "msgId" }],
    dedupLog: true,
    businessMs: [10, 60],
    producer: "pg_marketing",
    error: "java.net.SocketTimeoutException: Read timed out (points-ledger 10.8.5.20:8080)",
  },
  {
    name: "cg_ledger",
    topic: "ledger_post",
    tags: "post",
    keyPrefix: "LGR",
    markerPrefix: "ledger",
    subnet: 16,
    instances: 2,
    stack: [{ ...REDIS_DAY, ttlMs: 30 * SECOND }],
    dedupLog: true,
    businessMs: [20, 80],
    producer: "pg_finance",
    error: "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available",
  },
  {
    name: "cg_stock",
    topic: "stock_deduct",
    tags: "deduct",
    keyPrefix: "STK",
    markerPrefix: "stock",
    subnet: 17,
    instances: 2,
    stack: [{ ...REDIS_DAY, atomic: false }],
    dedupLog: true,
    businessMs: [20, 70],
    producer: "pg_finance",
    error: "java.lang.IllegalStateException: sku 10043 stock row locked",
  },
  {
    name: "cg_reward",
    topic: "reward_grant",
    tags: "reward",
    keyPrefix: "RWD",
    markerPrefix: "reward",
    subnet: 18,
    instances: 2,
    stack: [{ ...REDIS_DAY, releaseOnFailure: false }, { layer: "db" }],
    dedupLog: true,
    businessMs: [15, 70],
    producer: "pg_marketing",
    error: "java.net.SocketTimeoutException: Read timed out (reward-service 10.8.6.14:8080)",
  },
  {
    name: "cg_push",
    topic: "push_notify",
    tags: "push",
    keyPrefix: "PSH",
    markerPrefix: "push",
    subnet: 19,
    instances: 2,
    stack: [{ ...REDIS_DAY, atomic: false }],
    dedupLog: true,
    businessMs: [3, 8],
    asyncBusinessMs: [1500, 12 * SECOND],
    producer: "pg_marketing",
    error: "com.example.push.GatewayException: APNs 503",
  },
  {
    // Redis without persistence and nothing durable behind it: a Redis restart forgets every marker.
    name: "cg_sms",
    topic: "sms_send",
    tags: "sms",
    keyPrefix: "SMS",
    markerPrefix: "sms",
    subnet: 20,
    instances: 2,
    stack: [REDIS_DAY],
    dedupLog: true,
    businessMs: [30, 120],
    producer: "pg_marketing",
    error: "com.example.sms.ProviderException: rate limited",
  },
  {
    // The hard negative of broadcast_consumption: a CLUSTERING group on the topic a BROADCASTING group reads.
    name: "cg_config_audit",
    topic: "config_changed",
    tags: "config",
    keyPrefix: "CFG",
    markerPrefix: "config_audit",
    subnet: 21,
    instances: 2,
    stack: [REDIS_DAY, { layer: "db" }],
    dedupLog: true,
    businessMs: [5, 40],
    producer: "pg_marketing",
    error: "org.springframework.dao.QueryTimeoutException: config_audit insert timed out",
  },
  {
    // Each instance refreshes its local cache from every change: BROADCASTING, no dedup (a refresh is idempotent).
    name: "cg_config_cache",
    topic: "config_changed",
    tags: "config",
    keyPrefix: "CFG",
    markerPrefix: "config_cache",
    subnet: 22,
    instances: 2,
    stack: [],
    dedupLog: false,
    businessMs: [1, 5],
    producer: "pg_marketing",
    error: "java.lang.IllegalStateException: cache reload failed",
    messageModel: "BROADCASTING",
  },
];

export interface ProducerSpec {
  group: string;
  hosts: readonly string[];
}

export const PRODUCERS: readonly ProducerSpec[] = [
  { group: "pg_order", hosts: ["10.0.2.21", "10.0.2.22"] },
  { group: "pg_order_tx", hosts: ["10.0.2.23"] },
  { group: "pg_marketing", hosts: ["10.0.2.31"] },
  { group: "pg_finance", hosts: ["10.0.2.41"] },
];

export function producerSpec(group: string): ProducerSpec {
  const spec = PRODUCERS.find((p) => p.group === group);
  if (!spec) throw new Error(`no producer group ${group}`);
  return spec;
}

export function retryTopic(group: string): string {
  return `%RETRY%${group}`;
}

export function dlqTopic(group: string): string {
  return `%DLQ%${group}`;
}
