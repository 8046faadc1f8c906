import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse as parseFirehose } from "../../../collectors/rabbitmq-firehose/parse.ts";
import { parse as parseServerLog } from "../../../collectors/rabbitmq-server-log/parse.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { contextOf } from "../../../lib/diagnosis/scope.ts";
import type { DetailValue, NormalizedEvent } from "../../../lib/events/model.ts";
import { SEC, T0, valuesOf } from "../../helpers/diagnosis-events.ts";

/**
 * RabbitMQ duplicates, on events shaped as collectors/rabbitmq-firehose and rabbitmq-server-log write them
 * (their goldens): instances `<connection>@<channel>`, the queue as group, trace times stamped on receipt.
 */

const FIREHOSE = "rabbitmq-firehose:amqp://guest:***@10.20.0.5:5672/billing";
const SERVER_LOG = "rabbitmq-server-log:/var/log/rabbitmq/rabbit@mq-1.log";
const QUEUE = "invoice.issue";
const KEY = "INV-2026-118842";
const MSG = "b7c1f0e2-5a9d-4c3e-8f21-0d6a7e9b1c44";
const PRODUCER = "10.20.0.30:41022 -> 10.20.0.5:5672";
const WORKER_A = "10.20.0.14:51822 -> 10.20.0.5:5672";
const WORKER_B = "10.20.0.15:40118 -> 10.20.0.5:5672";

let n = 0;
type Detail = { [key: string]: DetailValue };

function event(source: string, fields: Partial<NormalizedEvent> & Pick<NormalizedEvent, "kind" | "ts">): NormalizedEvent {
  return {
    id: `${source.split(":")[0]}:${(++n).toString(16).padStart(8, "0")}`,
    tsPrecision: "ms",
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rabbitmq",
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

const trace = (connection: string, extra: Detail = {}): Detail => ({ stampedOnReceipt: true, exchange: "billing", routingKeys: [QUEUE], connection: connection.split("@")[0]!, channel: 1, user: "invoice", vhost: "billing", bodyBytes: 64, ...extra });

const rabbit = {
  publish: (o: { at: number; msgId?: string; by?: string; detail?: Detail }) =>
    event(FIREHOSE, { kind: "publish", ts: T0 + o.at, bizKey: KEY, msgId: o.msgId ?? MSG, topic: "billing", queue: QUEUE, instance: `${o.by ?? PRODUCER}@1`, detail: { ...trace(o.by ?? PRODUCER), routedQueues: [QUEUE], ...o.detail } }),
  deliver: (o: { at: number; to: string; redelivered: boolean; msgId?: string; retryTimes?: number; detail?: Detail }) =>
    event(FIREHOSE, {
      kind: "consume_start",
      ts: T0 + o.at,
      bizKey: KEY,
      msgId: o.msgId ?? MSG,
      topic: "billing",
      group: QUEUE,
      queue: QUEUE,
      instance: `${o.to}@1`,
      redelivered: o.redelivered,
      retryTimes: o.retryTimes ?? null,
      detail: { ...trace(o.to), ...o.detail },
    }),
  channelClosed: (o: { at: number; of: string }) => event(FIREHOSE, { kind: "instance_lifecycle", ts: T0 + o.at, instance: `${o.of}@1`, detail: { event: "channel.closed", vhost: "billing", action: "channel_closed", channelPid: "<rabbit@mq-1.1796019944.3527.0>" } }),
  connectionClosed: (o: { at: number; of: string }) => event(FIREHOSE, { kind: "instance_lifecycle", ts: T0 + o.at, instance: o.of, detail: { event: "connection.closed", action: "connection_closed", connection: o.of } }),
  consumerCreated: (o: { at: number; on: string }) => event(FIREHOSE, { kind: "rebalance", ts: T0 + o.at, group: QUEUE, queue: QUEUE, instance: `${o.on}@1`, detail: { event: "consumer.created", action: "consumer_created", ackRequired: true, prefetchCount: 1 } }),
  ackTimeout: (o: { at: number; of: string }) =>
    event(SERVER_LOG, { kind: "instance_lifecycle", ts: T0 + o.at, instance: `${o.of}@1`, group: QUEUE, queue: QUEUE, detail: { action: "ack_timeout", connection: o.of, channel: 1, consumerTag: "amq.ctag-2vQm0KrXc1pGZr7bWn4ofA", timeoutMs: 1_800_000, level: "warning" } }),
};

const deadLettered = { xDeath: [{ queue: QUEUE, reason: "rejected", count: 1, exchange: "billing", routingKeys: [QUEUE], time: T0 + 2 * SEC }], firstDeathQueue: QUEUE, firstDeathReason: "rejected" };
const shovelled = { xShovelled: [{ name: "invoice-dlq-replay", type: "dynamic", vhost: "billing", by: "rabbit@mq-1", srcQueue: `${QUEUE}.dlq`, srcExchange: null, destQueue: QUEUE, destExchange: null }] };

function diagnose(events: NormalizedEvent[]) {
  const own = events.filter((e) => e.bizKey !== null);
  return diagnoseKey({ bizKey: KEY, events: own, context: contextOf(own, events.filter((e) => e.bizKey === null)) });
}

function onlyVerdict(events: NormalizedEvent[]) {
  const result = diagnose(events);
  assert.equal(result.duplicates.length, 1, JSON.stringify(result.duplicates.map((v) => v.cause)));
  return { result, v: result.duplicates[0]! };
}

describe("RabbitMQ duplicates", () => {
  it("ack_lost: the first consumer's channel closed unacknowledged, the copy came back redelivered to another consumer", () => {
    const { result, v } = onlyVerdict([
      rabbit.consumerCreated({ at: -5 * SEC, on: WORKER_A }),
      rabbit.publish({ at: 0 }),
      rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }),
      rabbit.channelClosed({ at: 4200, of: WORKER_A }),
      rabbit.consumerCreated({ at: 4300, on: WORKER_B }),
      rabbit.deliver({ at: 4310, to: WORKER_B, redelivered: true }),
    ]);
    assert.equal(v.cause, "ack_lost");
    assert.ok(v.confidence >= 0.9, `confidence ${v.confidence}`);
    assert.deepEqual(v.instances, { first: `${WORKER_A}@1`, second: `${WORKER_B}@1` });
    assert.equal(v.sameInstance, false);
    assert.equal(v.gapMs, 4307);
    assert.equal(valuesOf(v.evidence, "channel_lost").action, "channel_closed");
    assert.ok(v.evidence.some((e) => e.code === "redelivered_flag" && e.receipt === true), "the redelivery time is the collector's receipt time");
    assert.ok(!result.missing.some((m) => m.code === "no_client_log"), "RabbitMQ consumers are seen through the broker");
  });

  it("ack_lost from a closed connection: the connection-level close covers every channel of that connection", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }),
      rabbit.connectionClosed({ at: 900, of: WORKER_A }),
      rabbit.deliver({ at: 950, to: WORKER_B, redelivered: true }),
    ]);
    assert.equal(v.cause, "ack_lost");
    assert.equal(valuesOf(v.evidence, "channel_lost").instance, WORKER_A);
  });

  it("says which source is missing when only the redelivered flag tells", () => {
    const { result, v } = onlyVerdict([rabbit.publish({ at: 0 }), rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }), rabbit.deliver({ at: 950, to: WORKER_B, redelivered: true })]);
    assert.equal(v.cause, "ack_lost");
    assert.ok(result.missing.some((m) => m.code === "no_event_exchange" && m.instance === `${WORKER_A}@1`));
  });

  it("consume_timeout: the server log's ack timeout explains the channel close that followed it", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }),
      rabbit.ackTimeout({ at: 30 * 60 * SEC + 2100, of: WORKER_A }),
      rabbit.channelClosed({ at: 30 * 60 * SEC + 2102, of: WORKER_A }),
      rabbit.deliver({ at: 30 * 60 * SEC + 2140, to: WORKER_B, redelivered: true }),
    ]);
    assert.equal(v.cause, "consume_timeout");
    assert.equal(valuesOf(v.evidence, "consume_timed_out").via, "ack_timeout");
    assert.ok(v.confidence >= 0.8, `confidence ${v.confidence}`);
  });

  it("producer_retry: two publishes of one message id, both delivered as first deliveries", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.publish({ at: 5012 }),
      rabbit.deliver({ at: 4, to: WORKER_A, redelivered: false }),
      rabbit.deliver({ at: 5015, to: WORKER_A, redelivered: false }),
    ]);
    assert.equal(v.cause, "producer_retry");
    assert.ok(v.confidence >= 0.85, `confidence ${v.confidence}`);
    assert.equal(valuesOf(v.evidence, "stored_copies").copies, 2);
    assert.ok(v.evidence.some((e) => e.code === "not_redelivered"));
    assert.equal(describeEvidence(v.evidence.find((e) => e.code === "stored_copies")!), `msgId ${MSG} was stored 2 times within 5 s (time of receipt by the collector: the firehose carries none)`);
  });

  it("a channel closing after a producer retry does not make it a lost ACK: the copy was not redelivered", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.publish({ at: 20 }),
      rabbit.deliver({ at: 4, to: WORKER_A, redelivered: false }),
      rabbit.deliver({ at: 25, to: WORKER_A, redelivered: false }),
      rabbit.channelClosed({ at: 60, of: WORKER_A }),
    ]);
    assert.equal(v.cause, "producer_retry");
  });

  it("dlq_replay: the copy came back through a shovel with x-death and x-shovelled", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }),
      rabbit.publish({ at: 95 * SEC, by: "<rabbit%40mq-1.1796019944.1440.0>", detail: { ...deadLettered, ...shovelled } }),
      rabbit.deliver({ at: 95 * SEC + 4, to: WORKER_B, redelivered: false, detail: { ...deadLettered, ...shovelled } }),
    ]);
    assert.equal(v.cause, "dlq_replay");
    assert.ok(v.confidence >= 0.9, `confidence ${v.confidence}`);
    assert.deepEqual(valuesOf(v.evidence, "shovelled"), { shovel: "invoice-dlq-replay", from: `${QUEUE}.dlq`, to: QUEUE });
    assert.equal(valuesOf(v.evidence, "dead_lettered").reason, "rejected");
  });

  it("dlq_replay: a copy re-published by hand still carries x-death", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.deliver({ at: 3, to: WORKER_A, redelivered: false }),
      rabbit.publish({ at: 3600 * SEC, detail: deadLettered }),
      rabbit.deliver({ at: 3600 * SEC + 4, to: WORKER_B, redelivered: false, detail: deadLettered }),
    ]);
    assert.equal(v.cause, "dlq_replay");
  });

  it("upstream_resend: a new message id for the same business key", () => {
    const { v } = onlyVerdict([
      rabbit.publish({ at: 0 }),
      rabbit.publish({ at: 40 * SEC, msgId: "f1d2a9c0-0000-4c3e-8f21-0d6a7e9b1c45" }),
      rabbit.deliver({ at: 4, to: WORKER_A, redelivered: false }),
      rabbit.deliver({ at: 40 * SEC + 3, to: WORKER_B, redelivered: false, msgId: "f1d2a9c0-0000-4c3e-8f21-0d6a7e9b1c45" }),
    ]);
    assert.equal(v.cause, "upstream_resend");
    assert.ok(v.confidence >= 0.85);
  });
});

describe("RabbitMQ duplicates recorded from a real broker", () => {
  const root = path.join(import.meta.dirname, "..", "..", "..", "collectors");
  const firehose = (name: string) => parseFirehose(readFileSync(path.join(root, "rabbitmq-firehose", "testdata", name), "utf8"), { source: `rabbitmq-firehose:testdata/${name}` }).events;
  const serverLog = (name: string) => parseServerLog(readFileSync(path.join(root, "rabbitmq-server-log", "testdata", name), "utf8"), { source: `rabbitmq-server-log:testdata/${name}` }).events;
  const causeOf = (events: NormalizedEvent[]) => {
    const bizKey = events.find((e) => e.bizKey !== null)!.bizKey!;
    const own = events.filter((e) => e.bizKey === bizKey);
    const result = diagnoseKey({ bizKey, events: own, context: contextOf(own, events.filter((e) => e.bizKey === null)) });
    return result.duplicates.map((v) => v.cause);
  };

  for (const [fixture, cause] of [
    ["ack-lost-channel.ndjson", "ack_lost"],
    ["ack-lost-socket.ndjson", "ack_lost"],
    ["producer-retry.ndjson", "producer_retry"],
    ["upstream-resend.ndjson", "upstream_resend"],
    ["dlq-replay.ndjson", "dlq_replay"],
  ] as const) {
    it(`${fixture}: ${cause}`, () => assert.deepEqual(causeOf(firehose(fixture)), [cause]));
  }

  it("ack-timeout.ndjson: a closed channel alone reads as a lost ACK; with the server log it is the consumer timeout", () => {
    assert.deepEqual(causeOf(firehose("ack-timeout.ndjson")), ["ack_lost"]);
    assert.deepEqual(causeOf([...firehose("ack-timeout.ndjson"), ...serverLog("rabbitmq-3.10.log")]), ["consume_timeout"]);
  });
});
