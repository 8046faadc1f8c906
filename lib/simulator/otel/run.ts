import type { Cause } from "../../diagnosis/vocabulary.ts";
import { gmt8, SIM_EPOCH } from "../clock.ts";
import { Rng } from "../random.ts";
import type { DuplicateTruth } from "../truth.ts";
import type { SimFile } from "../writers/files.ts";
import { fileEntry, jsonFile, type Manifest, type SimulationResult, type Truth } from "../run.ts";
import { hexId, requestLine, SPAN_KIND, type SimAttributes, type SimBatch, type SimSpan } from "./otlp-json.ts";

/**
 * What a Kafka cluster and a RocketMQ 5 cluster show through OpenTelemetry: the Java agent's send and process spans
 * (collectors/otlp-traces/README.md), each process in its own deployment's attribute names (the agent's default old
 * ones, or OTEL_SEMCONV_STABILITY_OPT_IN=messaging), with each host's clock off by up to `skewMs`, and the truth of
 * every duplicate. Besides spans, only the Kafka consumers' own client logs (kafka-clients' wordings of several
 * versions, docs/field-samples/issue-17-causes.md §1), which name what spans cannot: a poll timeout, a refused commit.
 *
 *   Kafka       rebalance (the partition moved before the offset commit: another member processes the record; half
 *               of them with the members' revoke/assign lines and nothing failing),
 *               commit_failed (a member overran max.poll.interval.ms on a batch and was dropped; the batch's records
 *               go to another member, whose processing repeats them, and the slow member's commit is refused),
 *               retry_after_failure (the listener threw; the error handler runs the record again),
 *               producer_retry (a send timed out after the broker wrote the record and the app sent again; or the
 *               client retried inside one send), upstream_resend (the app sent the key twice, far apart)
 *   RocketMQ 5  invisible_timeout (the lease ran out while the first attempt ran, or after an ack that never
 *               landed), retry_after_failure (FAILURE, redelivered after the retry policy's backoff),
 *               producer_retry (one message id stored twice), upstream_resend (two message ids)
 */

/**
 * `dupscope simulate` scenarios this simulator plays: every story of both clusters (`otel`), or one cause with the
 * hard negatives that must not be taken for it — commit_failed beside logged rebalances whose commits succeeded,
 * invisible_timeout beside redeliveries after a FAILURE.
 */
export const SPAN_SCENARIOS = ["otel", "commit_failed", "invisible_timeout"] as const;
export type SpanScenario = (typeof SPAN_SCENARIOS)[number];

const ONLY: Record<Exclude<SpanScenario, "otel">, { system: "kafka" | "rocketmq"; keep: readonly string[] }> = {
  commit_failed: { system: "kafka", keep: ["clean", "rebalance", "commit_failed"] },
  invisible_timeout: { system: "rocketmq", keep: ["clean", "invisible_while_processing", "invisible_after_ack_lost", "retry_after_failure"] },
};

export function isSpanScenario(name: string): name is SpanScenario {
  return (SPAN_SCENARIOS as readonly string[]).includes(name);
}

export interface SpanSimulationOptions {
  keys: number;
  seed: number;
  /** Default `otel`: half the keys through each cluster, every story. */
  scenario?: SpanScenario;
  skewMs?: number;
  /** Epoch ms the first key's traffic starts (default the simulator's epoch). */
  startAt?: number;
}

const KAFKA_TOPIC = "orders";
const KAFKA_GROUP = "billing";
const PARTITIONS = 6;
const RMQ_TOPIC = "pay-success";
const RMQ_GROUP = "ledger";
/**
 * RocketMQ 5 (apache/rocketmq 5.x proxy and rocketmq-clients java, docs/otel.md): a push consumer's lease is the
 * proxy's default invisible time, 60 s, renewed while the consume runs; a simple consumer names its own, 10 s to
 * 12 h. A message comes back when its lease ends unacked, plus up to the broker's 1 s revive interval.
 */
const PUSH_LEASE_MS = 60_000;
const SIMPLE_LEASE_MS: readonly [number, number] = [10_000, 60_000];
const REVIVE_MS = 1000;
/** The default retry policy's delay after a first FAILURE (1 s), plus the revive interval. */
const FAILURE_BACKOFF_MS: readonly [number, number] = [1000, 1000 + REVIVE_MS];
/** A send's retries are immediate (3 attempts, a 3 s request timeout): its stored copies are at most ~3 s apart. */
const SEND_RETRY_SPREAD_MS = 3000;

interface Proc {
  resource: SimAttributes;
  /** The identity diagnosis derives from the resource (collectors/otlp-traces/map.ts instanceOf). */
  instance: string;
  names: "old" | "new";
  skew: number;
  clientId: string;
  /** The RocketMQ 5 gRPC client's id, `hostname@pid@index@nonce`, which its log lines print. */
  grpcClientId: string;
  /** Which client log the process writes: kafka-clients' or the RocketMQ 5 gRPC client's. */
  logStyle: "kafka" | "rocketmq5";
}

type Scenario = [name: string, cause: Cause | null, weight: number];

const KAFKA_SCENARIOS: readonly Scenario[] = [
  ["clean", null, 30],
  ["rebalance", "rebalance", 12],
  ["commit_failed", "commit_failed", 8],
  ["retry_after_failure", "retry_after_failure", 12],
  ["producer_retry_failed_send", "producer_retry", 7],
  ["producer_retry_in_client", "producer_retry", 6],
  ["upstream_resend", "upstream_resend", 10],
];

const ROCKETMQ_SCENARIOS: readonly Scenario[] = [
  ["clean", null, 30],
  ["invisible_while_processing", "invisible_timeout", 10],
  ["invisible_after_ack_lost", "invisible_timeout", 6],
  ["retry_after_failure", "retry_after_failure", 10],
  ["producer_retry", "producer_retry", 5],
  ["upstream_resend", "upstream_resend", 8],
];

/** One line of a Kafka consumer's client log, at the process's own clock. */
interface LogLine {
  at: number;
  level: "INFO" | "WARN" | "ERROR";
  thread: string;
  logger: string;
  message: string;
}

/**
 * A member stalled on a slow batch (commit_failed): until `back` its partitions are `heir`'s, and no other scenario
 * runs on the cluster until `quietUntil`, so no other story's lines fall among this one's.
 */
interface Stall {
  member: Proc;
  heir: Proc;
  /** When the heir took the partitions. */
  assigned: number;
  /** When the slow member rejoined and got them back. */
  back: number;
  quietUntil: number;
}

class Cluster {
  readonly batches = new Map<string, SimBatch>();
  readonly logs = new Map<Proc, LogLine[]>();
  stall: Stall | null = null;
  /** No commit_failed episode starts before this (they are rare: one member at a time, minutes apart). */
  nextStallAt = 0;
  readonly duplicates: DuplicateTruth[] = [];
  readonly offsets = new Array<number>(PARTITIONS).fill(1000);

  constructor(
    readonly rng: Rng,
    readonly skewMs: number,
  ) {}

  proc(service: string, index: number, identity: "host" | "pod"): Proc {
    const pid = 1000 + ((index * 7919) % 30000);
    const host = `${service}-${index}`;
    const pod = `${service}-7d9f8c-${"abcdefghij"[index % 10]}${index}x`;
    const resource: SimAttributes =
      identity === "pod" ? { "service.name": service, "k8s.pod.name": pod, "host.name": `node-${index % 3}`, "process.pid": 1 } : { "service.name": service, "host.name": host, "process.pid": pid };
    return {
      resource,
      instance: identity === "pod" ? pod : `${host}@${pid}`,
      names: this.rng.chance(0.5) ? "old" : "new",
      skew: this.rng.int(-this.skewMs, this.skewMs),
      clientId: `${service.startsWith("billing") ? "consumer-billing" : "producer"}-${index + 1}`,
      grpcClientId: `${identity === "pod" ? pod : host}@${identity === "pod" ? 1 : pid}@0@${(index * 104_729 + 5_838_871).toString(36)}`,
      logStyle: service === "ledger" ? "rocketmq5" : "kafka",
    };
  }

  emit(p: Proc, scope: string, span: SimSpan): SimSpan {
    const key = `${p.instance}|${scope}`;
    let batch = this.batches.get(key);
    if (batch === undefined) this.batches.set(key, (batch = { resource: p.resource, scope, spans: [] }));
    const shifted = { ...span, start: span.start + p.skew, end: span.end + p.skew };
    batch.spans.push(shifted);
    return span;
  }

  log(p: Proc, line: LogLine): void {
    let lines = this.logs.get(p);
    if (lines === undefined) this.logs.set(p, (lines = []));
    lines.push({ ...line, at: line.at + p.skew });
  }

  truth(t: Omit<DuplicateTruth, "outcome" | "offsetMsgIds" | "retryTimes" | "sameInstance">): void {
    this.duplicates.push({ ...t, outcome: "unknown", offsetMsgIds: ["", ""], retryTimes: [0, 0], sameInstance: t.firstInstance === t.secondInstance });
  }
}

// ---------------------------------------------------------------------------------------------------------- Kafka

function kafkaSend(c: Cluster, p: Proc, key: string, partition: number, offset: number | null, at: number, costMs: number, error?: string): SimSpan {
  const names = p.names;
  const attributes: SimAttributes = {
    "messaging.system": "kafka",
    "messaging.destination.name": KAFKA_TOPIC,
    "messaging.kafka.message.key": key,
    ...(names === "old" ? { "messaging.operation": "publish", "messaging.client_id": p.clientId } : { "messaging.operation.type": "send", "messaging.operation.name": "send", "messaging.client.id": p.clientId }),
    ...(offset === null ? {} : { "messaging.destination.partition.id": String(partition), [names === "old" ? "messaging.kafka.message.offset" : "messaging.kafka.offset"]: offset }),
  };
  const span: SimSpan = { traceId: hexId(c.rng, 16), spanId: hexId(c.rng, 8), name: names === "old" ? `${KAFKA_TOPIC} publish` : `send ${KAFKA_TOPIC}`, kind: SPAN_KIND.producer, start: at, end: at + costMs, attributes, ...(error === undefined ? {} : { error }) };
  return c.emit(p, "io.opentelemetry.kafka-clients-0.11", span);
}

function kafkaProcess(c: Cluster, p: Proc, key: string, partition: number, offset: number, at: number, costMs: number, parent: SimSpan | null, scope: string, error?: string): void {
  const names = p.names;
  const attributes: SimAttributes = {
    "messaging.system": "kafka",
    "messaging.destination.name": KAFKA_TOPIC,
    "messaging.destination.partition.id": String(partition),
    "messaging.kafka.message.key": key,
    ...(names === "old"
      ? { "messaging.operation": "process", "messaging.kafka.message.offset": offset, "messaging.kafka.consumer.group": KAFKA_GROUP, "messaging.client_id": p.clientId }
      : { "messaging.operation.type": "process", "messaging.operation.name": "process", "messaging.kafka.offset": offset, "messaging.consumer.group.name": KAFKA_GROUP, "messaging.client.id": p.clientId }),
  };
  c.emit(p, scope, {
    traceId: parent?.traceId ?? hexId(c.rng, 16),
    spanId: hexId(c.rng, 8),
    ...(parent === null ? {} : { parentSpanId: parent.spanId }),
    name: names === "old" ? `${KAFKA_TOPIC} process` : `process ${KAFKA_TOPIC}`,
    kind: SPAN_KIND.consumer,
    start: at,
    end: at + costMs,
    attributes,
    ...(parent !== null && names === "new" ? { links: [{ traceId: parent.traceId, spanId: parent.spanId }] } : {}),
    ...(error === undefined ? {} : { error }),
  });
}

/** max.poll.interval.ms as deployments set it: the 5 min default, and the shorter values teams pick to fail fast. */
const MAX_POLL_INTERVALS_MS: readonly number[] = [30_000, 60_000, 300_000];
const COORDINATOR = "10.0.0.2:9092 (id: 2147483646 rack: null)";
const HEARTBEAT_THREAD = `kafka-coordinator-heartbeat-thread | ${KAFKA_GROUP}`;
const LISTENER_THREAD = "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1";
const COORDINATOR_LOGGER = "o.a.k.c.c.internals.ConsumerCoordinator";
const POLL_TIMEOUT_TEXT =
  "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.";

const partitionsOf = (member: number, consumers: number) => Array.from({ length: PARTITIONS }, (_, i) => i).filter((i) => i % consumers === member);
const named = (partitions: number[]) => partitions.map((i) => `${KAFKA_TOPIC}-${i}`).join(", ");

function memberLine(c: Cluster, p: Proc, at: number, level: LogLine["level"], thread: string, message: string, logger = COORDINATOR_LOGGER): void {
  c.log(p, { at, level, thread, logger, message: `[Consumer clientId=${p.clientId}, groupId=${KAFKA_GROUP}] ${message}` });
}

/**
 * commit_failed: `member` fetched a batch of the partition and one record of it hangs (a slow downstream call), so
 * the batch outlives max.poll.interval.ms. The heartbeat thread leaves the group, `heir` gets the member's partitions
 * and processes the batch again from the last committed offset; when the slow record finally ends, the member's commit
 * is refused and it rejoins. What it logs depends on its kafka-clients version (field samples §1.1–§1.5).
 */
function commitFailedEpisode(c: Cluster, key: string, partition: number, at: number, producers: Proc[], consumers: Proc[], scope: string): void {
  const r = c.rng;
  const index = partition % consumers.length;
  const member = consumers[index]!;
  const heir = consumers[(index + 1 + r.int(0, consumers.length - 2)) % consumers.length]!;
  const maxPollMs = r.pick(MAX_POLL_INTERVALS_MS);
  const records = Array.from({ length: r.int(2, 12) }, (_, j) => {
    const k = j === 0 ? key : `${key}-${j}`;
    const offset = c.offsets[partition]!++;
    return { key: k, offset, send: kafkaSend(c, r.pick(producers), k, partition, offset, at + j * r.ms(1, 40), r.ms(2, 20)) };
  });
  const fetched = records[records.length - 1]!.send.end + r.ms(5, 400);
  const timedOut = fetched + maxPollMs + r.ms(0, 3000);
  const ended = timedOut + r.ms(1000, Math.min(maxPollMs, 60_000));
  const assigned = timedOut + r.ms(100, 3000);
  const back = ended + r.ms(500, 5000);
  let t = fetched;
  let redo = assigned + r.ms(5, 300);
  records.forEach((record, j) => {
    const slow = j === records.length - 1;
    const costMs = slow ? ended - t : r.ms(20, 400);
    kafkaProcess(c, member, record.key, partition, record.offset, t, costMs, record.send, scope);
    kafkaProcess(c, heir, record.key, partition, record.offset, redo, r.ms(2, 300), record.send, scope);
    const msgId = `${KAFKA_TOPIC}-${partition}@${record.offset}`;
    c.truth({ bizKey: record.key, group: KAFKA_GROUP, topic: KAFKA_TOPIC, cause: "commit_failed", firstInstance: member.instance, secondInstance: heir.instance, gapMs: redo - t, msgIds: [msgId, msgId], firstAt: t, secondAt: redo });
    t += costMs;
    redo += r.ms(2, 50);
  });

  const moved = partitionsOf(index, consumers.length);
  const memberId = `${member.clientId}-${hexId(r, 8).slice(0, 8)}-${hexId(r, 8).slice(0, 4)}`;
  const next = records[records.length - 1]!.offset + 1;
  const refused = `Offset commit failed on partition ${KAFKA_TOPIC}-${partition} at offset ${next}: The coordinator is not aware of this member.`;
  switch (r.pick(["2.3", "2.8", "3.x", "3.7"] as const)) {
    case "2.3":
      memberLine(c, member, timedOut, "WARN", HEARTBEAT_THREAD, `This member will leave the group because ${POLL_TIMEOUT_TEXT}`, "o.a.k.c.c.internals.AbstractCoordinator");
      memberLine(c, member, timedOut + 1, "INFO", HEARTBEAT_THREAD, `Member ${memberId} sending LeaveGroup request to coordinator ${COORDINATOR}`, "o.a.k.c.c.internals.AbstractCoordinator");
      memberLine(c, member, ended, "ERROR", LISTENER_THREAD, refused);
      memberLine(c, member, ended + 2, "INFO", LISTENER_THREAD, `Revoking previously assigned partitions [${named(moved)}]`);
      break;
    case "2.8":
      memberLine(c, member, timedOut, "INFO", HEARTBEAT_THREAD, `Member ${memberId} sending LeaveGroup request to coordinator ${COORDINATOR} due to ${POLL_TIMEOUT_TEXT}`);
      memberLine(c, member, ended, "ERROR", LISTENER_THREAD, refused);
      memberLine(c, member, ended + 2, "INFO", LISTENER_THREAD, "Giving away all assigned partitions as lost since generation has been reset,indicating that consumer is no longer part of the group");
      memberLine(c, member, ended + 3, "INFO", LISTENER_THREAD, `Lost previously assigned partitions ${named(moved)}`);
      break;
    case "3.x":
      memberLine(c, member, timedOut, "WARN", HEARTBEAT_THREAD, POLL_TIMEOUT_TEXT);
      memberLine(c, member, timedOut + 1, "INFO", HEARTBEAT_THREAD, `Member ${memberId} sending LeaveGroup request to coordinator ${COORDINATOR} due to consumer poll timeout has expired.`);
      memberLine(c, member, ended, "INFO", LISTENER_THREAD, "Failing OffsetCommit request since the consumer is not part of an active group");
      memberLine(c, member, ended + 2, "INFO", LISTENER_THREAD, "Giving away all assigned partitions as lost since generation/memberID has been reset,indicating that consumer is in old state or no longer part of the group");
      memberLine(c, member, ended + 3, "INFO", LISTENER_THREAD, `Lost previously assigned partitions ${named(moved)}`);
      break;
    case "3.7":
      memberLine(c, member, timedOut, "WARN", LISTENER_THREAD, `C${POLL_TIMEOUT_TEXT.slice(1)}`, "o.a.k.c.c.internals.HeartbeatRequestManager");
      memberLine(c, member, ended, "WARN", LISTENER_THREAD, `Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded approximately by ${ended - timedOut} ms. Member ${memberId} will rejoin the group now.`, "o.a.k.c.c.internals.HeartbeatRequestManager");
      memberLine(c, member, ended + 5, "ERROR", LISTENER_THREAD, "OffsetCommit failed with unknown member ID. The coordinator is not aware of this member.", "o.a.k.c.c.internals.CommitRequestManager");
      break;
  }
  memberLine(c, heir, assigned, "INFO", LISTENER_THREAD, `Adding newly assigned partitions: ${named(moved)}`);
  memberLine(c, heir, back, "INFO", LISTENER_THREAD, `Revoke previously assigned partitions ${named(moved)}`);
  memberLine(c, member, back + r.ms(5, 200), "INFO", LISTENER_THREAD, `Adding newly assigned partitions: ${named(moved)}`);
  c.stall = { member, heir, assigned, back, quietUntil: back + 60_000 };
  c.nextStallAt = back + r.ms(3 * 60_000, 8 * 60_000);
}

function kafkaKey(c: Cluster, picked: string, key: string, at: number, producers: Proc[], consumers: Proc[]): void {
  const r = c.rng;
  let hash = 0;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const partition = hash % PARTITIONS;
  let owner = consumers[partition % consumers.length]!;
  const other = consumers[(partition + 1 + r.int(0, consumers.length - 2)) % consumers.length]!;
  const producer = r.pick(producers);
  const scope = r.chance(0.5) ? "io.opentelemetry.spring-kafka-2.7" : "io.opentelemetry.kafka-clients-0.11";
  if (c.stall !== null && at > c.stall.quietUntil) c.stall = null;
  let scenario = picked;
  let notBefore = 0;
  if (c.stall !== null) {
    // Nothing else happens while a member is stalled; its partitions' records wait for the heir to take them.
    scenario = "clean";
    if (owner === c.stall.member && at < c.stall.back) {
      owner = c.stall.heir;
      notBefore = c.stall.assigned;
    }
  } else if (scenario === "commit_failed") {
    if (at >= c.nextStallAt) return commitFailedEpisode(c, key, partition, at, producers, consumers, scope);
    scenario = "rebalance";
  }
  const next = () => c.offsets[partition]!++;
  const lag = () => r.ms(5, 400);
  const cost = () => r.ms(2, 300);
  const msgId = (o: number) => `${KAFKA_TOPIC}-${partition}@${o}`;
  const base = { bizKey: key, group: KAFKA_GROUP, topic: KAFKA_TOPIC };

  if (scenario === "producer_retry_failed_send") {
    // The broker wrote the record, but the ack never came back: the send times out and the app sends again.
    const lost = next();
    const timeoutMs = r.ms(3000, 30_000);
    kafkaSend(c, producer, key, partition, null, at, timeoutMs, "org.apache.kafka.common.errors.TimeoutException");
    const resent = next();
    const second = kafkaSend(c, producer, key, partition, resent, at + timeoutMs + r.ms(1, 50), r.ms(2, 20));
    const t1 = at + r.ms(5, 100);
    const t2 = second.end + lag();
    kafkaProcess(c, owner, key, partition, lost, t1, cost(), null, scope);
    kafkaProcess(c, owner, key, partition, resent, t2, cost(), second, scope);
    c.truth({ ...base, cause: "producer_retry", firstInstance: owner.instance, secondInstance: owner.instance, gapMs: t2 - t1, msgIds: [msgId(lost), msgId(resent)], firstAt: t1, secondAt: t2 });
    return;
  }
  if (scenario === "producer_retry_in_client") {
    // retries > 0: the client resent the batch inside one send(); its span reports only the offset that was acked.
    const lost = next();
    const kept = next();
    const send = kafkaSend(c, producer, key, partition, kept, at, r.ms(1000, 3000));
    const t1 = at + r.ms(5, 200);
    const t2 = Math.max(t1 + r.ms(5, 50), send.end + lag());
    kafkaProcess(c, owner, key, partition, lost, t1, cost(), null, scope);
    kafkaProcess(c, owner, key, partition, kept, t2, cost(), send, scope);
    c.truth({ ...base, cause: "producer_retry", firstInstance: owner.instance, secondInstance: owner.instance, gapMs: t2 - t1, msgIds: [msgId(lost), msgId(kept)], firstAt: t1, secondAt: t2 });
    return;
  }
  if (scenario === "upstream_resend") {
    const o1 = next();
    const first = kafkaSend(c, producer, key, partition, o1, at, r.ms(2, 20));
    const t1 = first.end + lag();
    kafkaProcess(c, owner, key, partition, o1, t1, cost(), first, scope);
    const later = at + r.ms(20_000, 300_000);
    const o2 = next();
    const second = kafkaSend(c, r.pick(producers), key, partition, o2, later, r.ms(2, 20));
    const t2 = second.end + lag();
    kafkaProcess(c, owner, key, partition, o2, t2, cost(), second, scope);
    c.truth({ ...base, cause: "upstream_resend", firstInstance: owner.instance, secondInstance: owner.instance, gapMs: t2 - t1, msgIds: [msgId(o1), msgId(o2)], firstAt: t1, secondAt: t2 });
    return;
  }

  const offset = next();
  const send = kafkaSend(c, producer, key, partition, offset, at, r.ms(2, 20));
  const t1 = Math.max(send.end, notBefore) + lag();
  if (scenario === "clean") {
    kafkaProcess(c, owner, key, partition, offset, t1, cost(), send, scope);
  } else if (scenario === "rebalance") {
    // Processed, but the commit had not landed when the partition moved: the new owner starts from the last commit.
    kafkaProcess(c, owner, key, partition, offset, t1, cost(), send, scope);
    const t2 = t1 + r.ms(3000, 30_000);
    kafkaProcess(c, other, key, partition, offset, t2, cost(), send, scope);
    if (r.chance(0.5)) {
      // Logged, and every commit went through: the members' own lines show the move and nothing failing.
      memberLine(c, owner, t2 - r.ms(1000, 2500), "INFO", LISTENER_THREAD, `Revoke previously assigned partitions ${KAFKA_TOPIC}-${partition}`);
      memberLine(c, other, t2 - r.ms(20, 900), "INFO", LISTENER_THREAD, `Adding newly assigned partitions: ${KAFKA_TOPIC}-${partition}`);
    }
    c.truth({ ...base, cause: "rebalance", firstInstance: owner.instance, secondInstance: other.instance, gapMs: t2 - t1, msgIds: [msgId(offset), msgId(offset)], firstAt: t1, secondAt: t2 });
  } else if (scenario === "retry_after_failure") {
    const costMs = cost();
    kafkaProcess(c, owner, key, partition, offset, t1, costMs, send, "io.opentelemetry.spring-kafka-2.7", "java.lang.IllegalStateException: ledger write failed");
    const t2 = t1 + costMs + r.ms(0, 5000);
    kafkaProcess(c, owner, key, partition, offset, t2, cost(), send, "io.opentelemetry.spring-kafka-2.7");
    c.truth({ ...base, cause: "retry_after_failure", firstInstance: owner.instance, secondInstance: owner.instance, gapMs: t2 - t1, msgIds: [msgId(offset), msgId(offset)], firstAt: t1, secondAt: t2 });
  }
}

// ---------------------------------------------------------------------------------------------------- RocketMQ 5

const RMQ_SCOPE = "io.opentelemetry.rocketmq-client-5.0";

function messageId(c: Cluster): string {
  return `01${hexId(c.rng, 16).slice(0, 24).toUpperCase()}`;
}

function rmqSend(c: Cluster, p: Proc, key: string, id: string, at: number, costMs: number): SimSpan {
  const attributes: SimAttributes = {
    "messaging.system": "rocketmq",
    "messaging.destination.name": RMQ_TOPIC,
    "messaging.message.id": id,
    "messaging.rocketmq.message.keys": [key],
    "messaging.rocketmq.message.tag": "paid",
    "messaging.rocketmq.message.type": "normal",
    ...(p.names === "old" ? { "messaging.operation": "publish" } : { "messaging.operation.type": "send", "messaging.operation.name": "send", "messaging.rocketmq.namespace": "" }),
  };
  return c.emit(p, RMQ_SCOPE, { traceId: hexId(c.rng, 16), spanId: hexId(c.rng, 8), name: p.names === "old" ? `${RMQ_TOPIC} publish` : `send ${RMQ_TOPIC}`, kind: SPAN_KIND.producer, start: at, end: at + costMs, attributes });
}

function rmqProcess(c: Cluster, p: Proc, key: string, id: string, at: number, costMs: number, parent: SimSpan, failed = false): void {
  const attributes: SimAttributes = {
    "messaging.system": "rocketmq",
    "messaging.destination.name": RMQ_TOPIC,
    "messaging.message.id": id,
    "messaging.rocketmq.message.keys": [key],
    "messaging.rocketmq.message.tag": "paid",
    ...(p.names === "old"
      ? { "messaging.operation": "process", "messaging.rocketmq.client_group": RMQ_GROUP }
      : { "messaging.operation.type": "process", "messaging.operation.name": "process", "messaging.consumer.group.name": RMQ_GROUP, "messaging.rocketmq.namespace": "", ...(failed ? { "error.type": "FAILURE" } : {}) }),
  };
  c.emit(p, RMQ_SCOPE, {
    traceId: parent.traceId,
    spanId: hexId(c.rng, 8),
    parentSpanId: parent.spanId,
    name: p.names === "old" ? `${RMQ_TOPIC} process` : `process ${RMQ_TOPIC}`,
    kind: SPAN_KIND.consumer,
    start: at,
    end: at + costMs,
    attributes,
    ...(p.names === "new" ? { links: [{ traceId: parent.traceId, spanId: parent.spanId }] } : {}),
    ...(failed ? { error: "" } : {}),
  });
}

const RMQ_ENDPOINTS = "Endpoints{addressScheme=IPv4, addresses=[Address{host=10.0.0.20, port=8081}]}";

function requestId(c: Cluster): string {
  const h = hexId(c.rng, 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * The RocketMQ 5 gRPC client's line when the ack of a message comes after its lease ran out: the proxy refuses it
 * for the expired receipt handle (rocketmq-client-java ProcessQueueImpl, field samples issue 17 §5.1).
 */
function refusedAck(c: Cluster, p: Proc, id: string, at: number, attempt: number): void {
  c.log(p, {
    at,
    level: "ERROR",
    thread: "RocketmqClientScheduler-1",
    logger: "o.a.r.c.j.i.c.ProcessQueueImpl#lambda$ackMessage0$10:656",
    message: `Failed to ack message due to the invalid receipt handle, forgive to retry, clientId=${p.grpcClientId}, consumerGroup=${RMQ_GROUP}, messageId=${id}, attempt=${attempt}, mq=broker-a.${RMQ_TOPIC}.${c.rng.int(0, 3)}, endpoints=${RMQ_ENDPOINTS}, requestId=${requestId(c)}, status message=[receipt handle is expired]`,
  });
}

function rocketmqKey(c: Cluster, scenario: string, key: string, at: number, producers: Proc[], consumers: Proc[]): void {
  const r = c.rng;
  const producer = r.pick(producers);
  const a = r.pick(consumers);
  const someone = () => r.pick(consumers);
  const cost = () => r.ms(2, 400);
  const base = { bizKey: key, group: RMQ_GROUP, topic: RMQ_TOPIC };
  const id = messageId(c);

  if (scenario === "upstream_resend") {
    const first = rmqSend(c, producer, key, id, at, r.ms(2, 30));
    const t1 = first.end + r.ms(5, 300);
    rmqProcess(c, a, key, id, t1, cost(), first);
    const id2 = messageId(c);
    const second = rmqSend(c, r.pick(producers), key, id2, at + r.ms(20_000, 300_000), r.ms(2, 30));
    const b = someone();
    const t2 = second.end + r.ms(5, 300);
    rmqProcess(c, b, key, id2, t2, cost(), second);
    c.truth({ ...base, cause: "upstream_resend", firstInstance: a.instance, secondInstance: b.instance, gapMs: t2 - t1, msgIds: [id, id2], firstAt: t1, secondAt: t2 });
    return;
  }

  const send = rmqSend(c, producer, key, id, at, r.ms(2, 30));
  const t1 = send.end + r.ms(5, 300);
  if (scenario === "clean") {
    rmqProcess(c, a, key, id, t1, cost(), send);
  } else if (scenario === "producer_retry") {
    // The send's response was lost and the client resent within the same send(): two stored copies of one
    // message id, received by whichever consumers pull next.
    const b = someone();
    const t2 = t1 + r.ms(1, SEND_RETRY_SPREAD_MS);
    rmqProcess(c, a, key, id, t1, cost(), send);
    rmqProcess(c, b, key, id, t2, cost(), send);
    c.truth({ ...base, cause: "producer_retry", firstInstance: a.instance, secondInstance: b.instance, gapMs: t2 - t1, msgIds: [id, id], firstAt: t1, secondAt: t2 });
  } else if (scenario === "invisible_while_processing") {
    // A slow consume outlives a simple consumer's lease (or a push consumer's lease renewal failed): the message is
    // visible again and another receive gets it while the first attempt still runs.
    const lease = r.chance(0.5) ? r.ms(SIMPLE_LEASE_MS[0], SIMPLE_LEASE_MS[1]) : PUSH_LEASE_MS;
    const b = someone();
    const t2 = t1 + lease + r.ms(0, REVIVE_MS);
    const firstEnd = t2 + r.ms(1000, 30_000);
    rmqProcess(c, a, key, id, t1, firstEnd - t1, send);
    rmqProcess(c, b, key, id, t2, cost(), send);
    if (r.chance(0.6)) refusedAck(c, a, id, firstEnd + r.ms(5, 200), 1);
    c.truth({ ...base, cause: "invisible_timeout", firstInstance: a.instance, secondInstance: b.instance, gapMs: t2 - t1, msgIds: [id, id], firstAt: t1, secondAt: t2 });
  } else if (scenario === "invisible_after_ack_lost") {
    const b = someone();
    // Consumed, but the ack never reached the broker: the message comes back when its lease ends.
    rmqProcess(c, a, key, id, t1, cost(), send);
    const lease = r.chance(0.5) ? r.ms(SIMPLE_LEASE_MS[0], SIMPLE_LEASE_MS[1]) : PUSH_LEASE_MS;
    const t2 = t1 + lease + r.ms(0, REVIVE_MS);
    rmqProcess(c, b, key, id, t2, cost(), send);
    // The client re-acks later ("would attempt to re-ack later"); by then the lease is gone.
    if (r.chance(0.5)) refusedAck(c, a, id, t2 + r.ms(200, 5000), 2);
    c.truth({ ...base, cause: "invisible_timeout", firstInstance: a.instance, secondInstance: b.instance, gapMs: t2 - t1, msgIds: [id, id], firstAt: t1, secondAt: t2 });
  } else if (scenario === "retry_after_failure") {
    const costMs = cost();
    rmqProcess(c, a, key, id, t1, costMs, send, true);
    c.log(a, {
      at: t1 + costMs + r.ms(0, 3),
      level: "ERROR",
      thread: "RocketmqMessageConsumption-0-1",
      logger: "o.a.r.c.j.i.c.ConsumeTask#call:86",
      message: `Message listener raised an exception while consuming messages, clientId=${a.grpcClientId}, mq=broker-a.${RMQ_TOPIC}.${r.int(0, 3)}, messageId=${id}`,
    });
    const b = someone();
    const t2 = t1 + costMs + r.ms(FAILURE_BACKOFF_MS[0], FAILURE_BACKOFF_MS[1]);
    rmqProcess(c, b, key, id, t2, cost(), send);
    c.truth({ ...base, cause: "retry_after_failure", firstInstance: a.instance, secondInstance: b.instance, gapMs: t2 - t1, msgIds: [id, id], firstAt: t1, secondAt: t2 });
  }
}

// ---------------------------------------------------------------------------------------------------------- run

/** `2026-11-30 12:00:01,234`: log4j/logback's default date, the host's local time (UTC here). */
function logStamp(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
}

/**
 * One client log per consumer process, with the process it belongs to: kafka-clients' `%d %-5p [%t] %c{1.} - %m`,
 * or the RocketMQ 5 client's `%d{yyy-MM-dd HH:mm:ss.SSS,GMT+8} %-5p [%pid] [%t] [%logger{12}#%M:%L] - %m`.
 */
function clientLogFiles(c: Cluster): SimFile[] {
  return [...c.logs.entries()]
    .map(([p, lines]): SimFile => {
      const rocketmq = p.logStyle === "rocketmq5";
      const text = [...lines]
        .sort((a, b) => a.at - b.at)
        .map((l) => (rocketmq ? `${gmt8(l.at, "ms")} ${l.level.padEnd(5)} [${p.resource["process.pid"]}] [${l.thread}] [${l.logger}] - ${l.message}` : `${logStamp(l.at)} ${l.level.padEnd(5)} [${l.thread}] ${l.logger} - ${l.message}`));
      const name = p.instance.replace(/[^A-Za-z0-9.-]+/g, "_");
      return rocketmq
        ? { path: `rocketmq/${name}.log`, format: "rocketmq-client-log", instance: p.instance, lines: text.length, text: `${text.join("\n")}\n` }
        : { path: `kafka/${name}.log`, format: "kafka-client-log", instance: p.instance, lines: text.length, text: `${text.join("\n")}\n` };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

const FILE = "otel.ndjson";

/** Half the keys go through the Kafka cluster, half through the RocketMQ 5 one; same options, same output. */
export function runSpanSimulation(options: SpanSimulationOptions): SimulationResult {
  const rng = new Rng(options.seed).fork("otel");
  const skewMs = options.skewMs ?? 200;
  const c = new Cluster(rng, skewMs);
  const kafkaProducers = [0, 1].map((i) => c.proc("order-api", i, "host"));
  const kafkaConsumers = [0, 1, 2].map((i) => c.proc("billing", i, i === 2 ? "pod" : "host"));
  const rmqProducers = [0, 1].map((i) => c.proc("pay-api", i, "host"));
  const rmqConsumers = [0, 1, 2].map((i) => c.proc("ledger", i, i === 0 ? "pod" : "host"));
  const scenario = options.scenario ?? "otel";
  const only = scenario === "otel" ? null : ONLY[scenario];
  const weights = (list: readonly Scenario[]) => list.filter(([n]) => only === null || only.keep.includes(n)).map(([n, , w]) => [n, w] as const);
  const kafkaWeights = weights(KAFKA_SCENARIOS);
  const rocketmqWeights = weights(ROCKETMQ_SCENARIOS);
  let at = options.startAt ?? SIM_EPOCH;
  for (let i = 0; i < options.keys; i++) {
    at += rng.ms(50, 1500);
    const kafka = only === null ? i % 2 === 0 : only.system === "kafka";
    if (kafka) kafkaKey(c, rng.weighted(kafkaWeights), `ORD-${String(i + 1).padStart(8, "0")}`, at, kafkaProducers, kafkaConsumers);
    else rocketmqKey(c, rng.weighted(rocketmqWeights), `PAY-${String(i + 1).padStart(8, "0")}`, at, rmqProducers, rmqConsumers);
  }
  // An exporter sends what its batch processor collected: up to 512 spans per request, per process.
  const lines: string[] = [];
  for (const batch of c.batches.values()) {
    for (let i = 0; i < batch.spans.length; i += 512) lines.push(requestLine({ ...batch, spans: batch.spans.slice(i, i + 512) }));
  }
  const text = `${lines.join("\n")}\n`;
  const files: SimFile[] = [{ path: FILE, format: "otlp-traces", lines: lines.length, text }, ...clientLogFiles(c)];
  const truth: Truth = {
    seed: options.seed,
    scenarios: [scenario],
    keys: options.keys,
    skewMs,
    duplicates: c.duplicates,
    lost: [],
    normalRetries: [],
    files: Object.fromEntries(files.map((f) => [f.path, fileEntry(f)])),
  };
  const manifest: Manifest = { seed: options.seed, scenario, files: files.map((f) => ({ path: f.path, ...fileEntry(f) })) };
  return { files: [...files, jsonFile("truth.json", truth), jsonFile("manifest.json", manifest)], truth, manifest };
}
