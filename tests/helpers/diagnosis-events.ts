import assert from "node:assert/strict";
import type { Evidence, EvidenceCode, EvidenceValues } from "../../lib/diagnosis/evidence.ts";
import type { DetailValue, NormalizedEvent } from "../../lib/events/model.ts";

/**
 * Builders that produce NormalizedEvent exactly as the collectors do (see the goldens under collectors/<format>/
 * testdata/): the same kinds, null fields, detail keys, instance forms and precision. Times are offsets in ms from
 * T0 = 2026-11-30 12:00:00.000 UTC (20:00 GMT+8).
 */

export const T0 = Date.UTC(2026, 10, 30, 12, 0, 0, 0);
export const SEC = 1000;
export const MIN = 60_000;
export const HOUR = 3_600_000;

let counter = 0;

type Detail = { [key: string]: DetailValue };

function event(source: string, fields: Partial<NormalizedEvent> & Pick<NormalizedEvent, "kind" | "ts">): NormalizedEvent {
  counter++;
  return {
    id: `${source.split(":")[0]}:${counter.toString(16).padStart(8, "0")}`,
    tsPrecision: "ms",
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rocketmq",
    topic: null,
    group: null,
    queue: null,
    queueOffset: null,
    instance: null,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: {},
    source,
    ...fields,
  };
}

/**
 * An event with only the fields a test names, for property tests that draw ids, times and keys themselves; the
 * rest as a client-log line of PAY_SUCCESS leaves them.
 */
export function bareEvent(over: Partial<NormalizedEvent> & Pick<NormalizedEvent, "id" | "ts" | "kind">): NormalizedEvent {
  return {
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rocketmq",
    topic: "PAY_SUCCESS",
    group: null,
    instance: null,
    queue: null,
    queueOffset: null,
    retryTimes: null,
    redelivered: null,
    success: null,
    tsPrecision: "ms",
    detail: {},
    source: "rocketmq-client-log:test",
    ...over,
  };
}

const TRACE = "rocketmq-trace:testdata/trace.ndjson";
const CLIENT = "rocketmq-client-log:testdata/rocketmq_client.log";
const BROKER = "rocketmq-broker-log:testdata/broker.log";
const TX_LOG = "rocketmq-broker-log:testdata/transaction.log";
const DEDUP = "dedup-log:testdata/dedup.log";
const KAFKA = "kafka-client-log:testdata/app.log";

const CONTEXT_NAMES = ["SUCCESS", "TIME_OUT", "EXCEPTION", "RETURNNULL", "FAILED"] as const;

/** A trace's instance is the bornHost's IP; instanceRaw keeps the ephemeral port. */
export const trace = {
  pub(o: { at: number; bizKey: string; msgId: string; offsetMsgId: string; host: string; topic?: string; success?: boolean; costTime?: number; msgType?: string; producerGroup?: string }): NormalizedEvent {
    return event(TRACE, {
      kind: "publish",
      ts: T0 + o.at,
      bizKey: o.bizKey,
      msgId: o.msgId,
      offsetMsgId: o.offsetMsgId,
      topic: o.topic ?? "PAY_SUCCESS",
      instance: o.host,
      success: o.success ?? true,
      detail: {
        producerGroup: o.producerGroup ?? "pay-producer",
        tags: "paid",
        storeHost: "10.0.0.11:10911",
        bodyLength: 412,
        costTime: o.costTime ?? 4,
        msgType: o.msgType ?? "Normal_Msg",
        regionId: "DefaultRegion",
        instanceRaw: `${o.host}:53211`,
        traceRecord: "Pub",
      },
    });
  },

  /** SubBefore + SubAfter of one consume call; contextCode 0 SUCCESS, 1 TIME_OUT, 2 EXCEPTION, 4 FAILED. */
  consume(o: { at: number; bizKey: string; msgId: string; group: string; host: string; retryTimes?: number; costTime?: number; contextCode?: number; requestId?: string }): NormalizedEvent[] {
    const requestId = o.requestId ?? `REQ${(counter + 1).toString(16).padStart(8, "0")}`;
    const code = o.contextCode ?? 0;
    const cost = o.costTime ?? 40;
    return [
      event(TRACE, {
        kind: "consume_start",
        ts: T0 + o.at,
        bizKey: o.bizKey,
        msgId: o.msgId,
        group: o.group,
        instance: o.host,
        retryTimes: o.retryTimes ?? 0,
        detail: { requestId, regionId: "DefaultRegion", instanceRaw: `${o.host}:40125`, traceRecord: "SubBefore" },
      }),
      event(TRACE, {
        kind: "consume_end",
        ts: T0 + o.at + cost,
        bizKey: o.bizKey,
        msgId: o.msgId,
        group: o.group,
        instance: o.host,
        success: code === 0,
        detail: { requestId, costTime: cost, contextCode: code, contextName: CONTEXT_NAMES[code] ?? null, instanceRaw: `${o.host}:40125`, traceRecord: "SubAfter" },
      }),
    ];
  },

  /** SubBefore only: the process died before its SubAfter was flushed. */
  consumeStart(o: { at: number; bizKey: string; msgId: string; group: string; host: string; retryTimes?: number }): NormalizedEvent {
    return trace.consume({ ...o })[0]!;
  },

  endTransaction(o: { at: number; bizKey: string; msgId: string; host: string; state: "COMMIT_MESSAGE" | "ROLLBACK_MESSAGE" | "UNKNOW"; fromCheck: boolean; topic?: string }): NormalizedEvent {
    return event(TRACE, {
      kind: "transaction",
      ts: T0 + o.at,
      bizKey: o.bizKey,
      msgId: o.msgId,
      topic: o.topic ?? "ORDER_CREATED",
      instance: o.host,
      detail: {
        transactionId: o.msgId,
        transactionState: o.state,
        fromTransactionCheck: o.fromCheck,
        producerGroup: "tx-producer-group",
        msgType: "Trans_msg_Commit",
        tags: "created",
        storeHost: "10.0.0.11:10911",
        regionId: "DefaultRegion",
        instanceRaw: `${o.host}:53211`,
        traceRecord: "EndTransaction",
      },
    });
  },
};

/** Client-log lines carry the canonical clientId (`ip@pid`); instanceRaw is the clientId with its nanotime. */
export const client = {
  rebalance(action: "add" | "remove", o: { at: number; group: string; topic?: string; queue: string; instance: string }): NormalizedEvent {
    return event(CLIENT, {
      kind: "rebalance",
      ts: T0 + o.at,
      group: o.group,
      topic: o.topic ?? "PAY_SUCCESS",
      queue: o.queue,
      instance: o.instance,
      detail: { template: action === "add" ? "rebalance_add_mq" : "rebalance_remove_mq", action, instanceRaw: `${o.instance}#2104881822301` },
    });
  },

  resultChanged(o: { at: number; group: string; topic?: string; instance: string; queues: string[] }): NormalizedEvent {
    return event(CLIENT, {
      kind: "rebalance",
      ts: T0 + o.at,
      group: o.group,
      topic: o.topic ?? "PAY_SUCCESS",
      instance: o.instance,
      detail: {
        template: "rebalance_result_changed",
        action: "result",
        allocatedBy: "client",
        strategy: "AVG",
        mqAllSize: 8,
        cidAllSize: 2,
        rebalanceResultSize: o.queues.length,
        queues: o.queues,
        instanceRaw: `${o.instance}#2104881822301`,
      },
    });
  },

  processQueueDropped(o: { at: number; topic?: string; queue: string; instance: string; msgId: string; offsetMsgId?: string; queueOffset: number; keys: string[] }): NormalizedEvent {
    return event(CLIENT, {
      kind: "rebalance",
      ts: T0 + o.at,
      msgId: o.msgId,
      offsetMsgId: o.offsetMsgId ?? null,
      topic: o.topic ?? "PAY_SUCCESS",
      queue: o.queue,
      queueOffset: o.queueOffset,
      instance: o.instance,
      retryTimes: 0,
      detail: { template: "process_queue_dropped", action: "dropped_without_result", msgIds: [o.msgId], keys: o.keys, instanceRaw: o.instance },
    });
  },

  lifecycle(action: "start" | "shutdown", o: { at: number; group: string; instance: string }): NormalizedEvent {
    return event(CLIENT, {
      kind: "instance_lifecycle",
      ts: T0 + o.at,
      group: o.group,
      instance: o.instance,
      detail: { template: action === "start" ? "consumer_start" : "consumer_shutdown", action, instanceRaw: o.instance },
    });
  },

  consumeException(o: { at: number; group: string; topic?: string; queue: string; instance: string; msgId: string; offsetMsgId: string; queueOffset: number; retryTimes: number; keys: string[] }): NormalizedEvent {
    return event(CLIENT, {
      kind: "consume_end",
      ts: T0 + o.at,
      msgId: o.msgId,
      offsetMsgId: o.offsetMsgId,
      topic: o.topic ?? "PAY_SUCCESS",
      group: o.group,
      queue: o.queue,
      queueOffset: o.queueOffset,
      instance: o.instance,
      retryTimes: o.retryTimes,
      success: false,
      detail: { template: "consume_exception", contextName: "EXCEPTION", error: "java.lang.IllegalStateException: ledger call failed", keys: o.keys, instanceRaw: o.instance },
    });
  },

  expireMsgBack(o: { at: number; topic?: string; instance: string; msgId: string; queueOffset: number; queueId: number }): NormalizedEvent {
    return event(CLIENT, {
      kind: "consume_end",
      ts: T0 + o.at,
      msgId: o.msgId,
      topic: o.topic ?? "PAY_SUCCESS",
      queueOffset: o.queueOffset,
      instance: o.instance,
      success: false,
      detail: { template: "send_expire_msg_back", contextName: "TIME_OUT", storeHost: "10.0.0.2:10911", queueId: o.queueId, instanceRaw: o.instance },
    });
  },

  consumeDirectly(o: { at: number; topic?: string; queue: string; instance: string; msgId: string; offsetMsgId: string; queueOffset: number; retryTimes: number; keys: string[] }): NormalizedEvent {
    return event(CLIENT, {
      kind: "consume_start",
      ts: T0 + o.at,
      msgId: o.msgId,
      offsetMsgId: o.offsetMsgId,
      topic: o.topic ?? "PAY_SUCCESS",
      queue: o.queue,
      queueOffset: o.queueOffset,
      instance: o.instance,
      retryTimes: o.retryTimes,
      detail: { template: "consume_directly", direct: true, keys: o.keys, instanceRaw: o.instance },
    });
  },

  /** `sendKernelImpl exception, resend at once`: names no message, so it is an unkeyed lifecycle event. */
  producerResend(o: { at: number; topic?: string; queue: string; instance: string }): NormalizedEvent {
    return event(CLIENT, {
      kind: "instance_lifecycle",
      ts: T0 + o.at,
      topic: o.topic ?? "PAY_SUCCESS",
      queue: o.queue,
      instance: o.instance,
      success: false,
      detail: { template: "producer_resend", invokeId: "-4418235377613350071", rtMs: 3001, broker: o.queue.split(":")[0]!, instanceRaw: o.instance, unkeyed: true },
    });
  },
};

/** Broker lines are stamped to the second (GMT+8 on the wire): the builders floor `at` as the parser does. */
export const broker = {
  lifecycle(action: "connected" | "unregistered" | "channel_inactive" | "channel_expired", o: { at: number; group: string; instance: string }): NormalizedEvent {
    const template = { connected: "consumer_connected", unregistered: "consumer_unregistered", channel_inactive: "channel_inactive", channel_expired: "channel_expired" }[action];
    return event(BROKER, {
      kind: "instance_lifecycle",
      ts: Math.floor((T0 + o.at) / 1000) * 1000,
      tsPrecision: "s",
      group: o.group,
      instance: o.instance,
      detail: { template, action, instanceRaw: o.instance, remoteAddress: `${o.instance.split("@")[0]}:53211`, brokerInstance: "broker-a", brokerLine: `… ${template} …` },
    });
  },

  checkTransaction(o: { at: number; msgId: string; topic?: string }): NormalizedEvent {
    return event(TX_LOG, {
      kind: "transaction",
      ts: Math.floor((T0 + o.at) / 1000) * 1000,
      tsPrecision: "s",
      msgId: o.msgId,
      topic: o.topic ?? "ORDER_CREATED",
      detail: { template: "transaction_check", checkback: true, commitLogOffset: 2291840, halfQueueOffset: 88, brokerInstance: "broker-a", brokerLine: "… Check transaction …" },
    });
  },
};

/** One dedup-log v1 line: `dedup` for pass/hit/released, `business_effect` for executed/failed. */
export function dedup(o: {
  at: number;
  bizKey: string;
  msgId?: string | null;
  group: string;
  instance: string;
  layer: "bloom" | "redis" | "db" | "state" | "none";
  decision: "pass" | "hit" | "released" | "executed" | "failed";
  retryTimes?: number;
  queue?: string;
  queueOffset?: number;
  dedupKey?: string;
  ttlMs?: number;
  broker?: NormalizedEvent["broker"];
  topic?: string;
}): NormalizedEvent {
  const effect = o.decision === "executed" || o.decision === "failed";
  const detail: Detail = { layer: o.layer, decision: o.decision, instanceRaw: `${o.instance}#2310457739811` };
  if (o.dedupKey !== undefined) detail.dedupKey = o.dedupKey;
  if (o.ttlMs !== undefined) detail.ttlMs = o.ttlMs;
  if (o.decision === "failed") detail.error = "java.net.SocketTimeoutException: Read timed out";
  return event(DEDUP, {
    kind: effect ? "business_effect" : "dedup",
    ts: T0 + o.at,
    bizKey: o.bizKey,
    msgId: o.msgId === undefined ? null : o.msgId,
    broker: o.broker ?? "rocketmq",
    topic: o.topic ?? "PAY_SUCCESS",
    group: o.group,
    queue: o.queue ?? null,
    queueOffset: o.queueOffset ?? null,
    instance: o.instance,
    retryTimes: o.retryTimes ?? 0,
    success: o.decision === "executed" ? true : o.decision === "failed" ? false : null,
    detail,
  });
}

/** The usual Redis-guarded consumption: pass (with its TTL) and executed. */
export function redisOnce(o: { at: number; bizKey: string; msgId: string; group: string; instance: string; queue?: string; queueOffset?: number; retryTimes?: number; ttlMs?: number; tookMs?: number }): NormalizedEvent[] {
  const common = { bizKey: o.bizKey, msgId: o.msgId, group: o.group, instance: o.instance, layer: "redis" as const, dedupKey: `pay:${o.bizKey}`, retryTimes: o.retryTimes ?? 0, ...(o.queue === undefined ? {} : { queue: o.queue }), ...(o.queueOffset === undefined ? {} : { queueOffset: o.queueOffset }) };
  return [dedup({ ...common, at: o.at + 2, decision: "pass", ttlMs: o.ttlMs ?? 86_400_000 }), dedup({ ...common, at: o.at + (o.tookMs ?? 30), decision: "executed" })];
}

export const kafka = {
  partition(action: "revoke" | "assign" | "lost", o: { at: number; group: string; topic: string; partition: number; instance: string }): NormalizedEvent {
    const template = { revoke: "Revoke previously assigned partitions {}", assign: "Adding newly assigned partitions: {}", lost: "Lost previously assigned partitions {}" }[action];
    return event(KAFKA, {
      kind: "rebalance",
      ts: T0 + o.at,
      broker: "kafka",
      topic: o.topic,
      group: o.group,
      queue: `${o.topic}-${o.partition}`,
      instance: o.instance,
      detail: { action, template, clientId: `consumer-${o.group}-1`, partition: o.partition },
    });
  },

  pollTimeout(o: { at: number; group: string; instance: string }): NormalizedEvent {
    return event(KAFKA, {
      kind: "instance_lifecycle",
      ts: T0 + o.at,
      broker: "kafka",
      group: o.group,
      instance: o.instance,
      detail: { action: "poll_timeout", template: "consumer poll timeout has expired.", clientId: `consumer-${o.group}-1` },
    });
  },
};

/** A RabbitMQ delivery as a firehose-style collector would give it: a consume_start with the redelivered flag. */
export function rabbitDeliver(o: { at: number; bizKey: string; msgId: string; group: string; queue: string; instance: string; redelivered: boolean }): NormalizedEvent {
  return event("rabbitmq-firehose:amq.rabbitmq.trace", {
    kind: "consume_start",
    ts: T0 + o.at,
    bizKey: o.bizKey,
    msgId: o.msgId,
    broker: "rabbitmq",
    group: o.group,
    queue: o.queue,
    instance: o.instance,
    redelivered: o.redelivered,
    detail: {},
  });
}

export function rabbitLifecycle(action: "connection_closed", o: { at: number; group: string; instance: string }): NormalizedEvent {
  return event("rabbitmq-events:amq.rabbitmq.event", { kind: "instance_lifecycle", ts: T0 + o.at, broker: "rabbitmq", group: o.group, instance: o.instance, detail: { action } });
}

/** The values of the first evidence with `code` in `list`, typed for that code; fails the test when there is none. */
export function valuesOf<C extends EvidenceCode>(list: readonly Evidence[] | undefined, code: C): EvidenceValues[C] {
  const found = list?.find((e) => e.code === code);
  assert.ok(found !== undefined, `no ${code} evidence`);
  return found.values as EvidenceValues[C];
}
