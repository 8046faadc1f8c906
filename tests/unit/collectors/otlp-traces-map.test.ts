import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpanKind, SpanStatusCode, type Attributes } from "@opentelemetry/api";
import fc from "fast-check";
import { decodeJson, decodeProtobuf } from "../../../collectors/otlp-traces/decode.ts";
import { instanceOf, mapSpans, parseKeyRules } from "../../../collectors/otlp-traces/map.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { jsonBody, linkTo, protobufBody, SpanRecorder } from "../../helpers/otel.ts";

/**
 * Spans in the shapes the real instrumentations emit (collectors/otlp-traces/README.md cites the upstream tests
 * each shape comes from), made with the OpenTelemetry SDK and decoded from its own OTLP encoding.
 */

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const JAVA_HOST = (pid: number) => ({ "service.name": "billing", "host.name": "billing-host-1", "process.pid": pid, "telemetry.distro.name": "opentelemetry-javaagent" });

function decoded(recorders: SpanRecorder[], encoding: "protobuf" | "json" = "protobuf") {
  const spans = recorders.flatMap((r) => r.spans());
  return encoding === "protobuf" ? decodeProtobuf(protobufBody(spans)).spans : decodeJson(jsonBody(spans)).spans;
}

function mapped(recorders: SpanRecorder[], keys = "") {
  const result = mapSpans(decoded(recorders), parseKeyRules(keys));
  for (const e of result.events) {
    const checked = validateEvent(e);
    assert.ok(checked.ok, `${e.id}: ${checked.ok ? "" : checked.reason}`);
  }
  return result;
}

const kinds = (events: { kind: string }[]) => events.map((e) => e.kind);

describe("OTLP spans to events", () => {
  it("Java agent kafka-clients, old names: a send and its process span", () => {
    const producer = new SpanRecorder(JAVA_HOST(4121), "io.opentelemetry.kafka-clients-0.11");
    const send = producer.span({
      name: "orders publish",
      kind: SpanKind.PRODUCER,
      start: T0,
      end: T0 + 4,
      attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.operation": "publish", "messaging.destination.partition.id": "2", "messaging.kafka.message.offset": 881, "messaging.kafka.message.key": "ORDER-1", "messaging.client_id": "producer-1" },
    });
    const consumer = new SpanRecorder(JAVA_HOST(5150), "io.opentelemetry.kafka-clients-0.11");
    consumer.span({
      name: "orders process",
      kind: SpanKind.CONSUMER,
      start: T0 + 30,
      end: T0 + 95,
      parent: send,
      attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.operation": "process", "messaging.destination.partition.id": "2", "messaging.kafka.message.offset": 881, "messaging.kafka.message.key": "ORDER-1", "messaging.kafka.consumer.group": "billing", "messaging.client_id": "consumer-billing-1" },
    });
    const { events, refused } = mapped([producer, consumer]);
    assert.deepEqual(refused, []);
    assert.deepEqual(kinds(events), ["publish", "consume_start", "consume_end"]);
    const [pub, start, end] = events;
    assert.deepEqual([pub!.bizKey, pub!.msgId, pub!.queue, pub!.queueOffset, pub!.instance, pub!.success], ["ORDER-1", "orders-2@881", "orders-2", 881, "billing-host-1@4121", true]);
    assert.deepEqual([start!.group, start!.ts, end!.ts, end!.success, start!.msgId], ["billing", T0 + 30, T0 + 95, true, "orders-2@881"]);
    assert.equal(start!.detail.instanceFrom, "host.name@process.pid");
    assert.equal(start!.detail.parentSpanId, pub!.detail.spanId);
    assert.equal(start!.source, "otlp-traces:billing");
    assert.equal(start!.detail.messagingClientId, "consumer-billing-1");
  });

  it("kafkajs, new names only: the offset as a string, no consumer group, an error ends the attempt failed", () => {
    const consumer = new SpanRecorder({ "service.name": "billing-js", "host.name": "node-1", "process.pid": 77 }, "@opentelemetry/instrumentation-kafkajs");
    consumer.span({
      name: "process orders",
      kind: SpanKind.CONSUMER,
      start: T0,
      end: T0 + 12,
      status: { code: SpanStatusCode.ERROR, message: "error thrown from eachMessage callback" },
      attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.operation.type": "process", "messaging.operation.name": "process", "messaging.destination.partition.id": "0", "messaging.kafka.offset": "123", "messaging.kafka.message.key": "ORDER-9", "error.type": "Error" },
    });
    const { events } = mapped([consumer]);
    assert.deepEqual(kinds(events), ["consume_start", "consume_end"]);
    assert.deepEqual([events[0]!.queueOffset, events[0]!.msgId, events[0]!.group, events[1]!.success, events[1]!.detail.errorType], [123, "orders-0@123", null, false, "Error"]);
  });

  it("RocketMQ 5, old and new names: keys as an array, the same message id on both sides, a failed consume", () => {
    for (const names of ["old", "new"] as const) {
      const producer = new SpanRecorder(JAVA_HOST(2001), "io.opentelemetry.rocketmq-client-5.0");
      const send = producer.span({
        name: names === "old" ? "pay-topic publish" : "send pay-topic",
        kind: SpanKind.PRODUCER,
        start: T0,
        end: T0 + 2,
        attributes: {
          "messaging.system": "rocketmq",
          "messaging.destination.name": "pay-topic",
          ...(names === "old" ? { "messaging.operation": "publish" } : { "messaging.operation.type": "send", "messaging.operation.name": "send" }),
          "messaging.message.id": "01A9F3C2D4E5F60708090A0B0C",
          "messaging.rocketmq.message.keys": ["PAY-1", "ORDER-7"],
          "messaging.rocketmq.message.tag": "paid",
          "messaging.rocketmq.message.type": "normal",
        },
      });
      const consumer = new SpanRecorder({ "service.name": "ledger", "k8s.pod.name": "ledger-5d8f9-abcde", "host.name": "node-3", "process.pid": 1 }, "io.opentelemetry.rocketmq-client-5.0");
      consumer.span({
        name: names === "old" ? "pay-topic process" : "process pay-topic",
        kind: SpanKind.CONSUMER,
        start: T0 + 10,
        end: T0 + 40,
        parent: send,
        status: { code: SpanStatusCode.ERROR },
        attributes: {
          "messaging.system": "rocketmq",
          "messaging.destination.name": "pay-topic",
          ...(names === "old" ? { "messaging.operation": "process", "messaging.rocketmq.client_group": "ledger-group" } : { "messaging.operation.type": "process", "messaging.consumer.group.name": "ledger-group", "error.type": "FAILURE" }),
          "messaging.message.id": "01A9F3C2D4E5F60708090A0B0C",
          "messaging.rocketmq.message.keys": ["PAY-1", "ORDER-7"],
        },
      });
      const { events } = mapped([producer, consumer]);
      // One event per key, as the RocketMQ trace collector does for a multi-key message.
      assert.deepEqual(kinds(events), ["publish", "publish", "consume_start", "consume_end", "consume_start", "consume_end"], names);
      assert.deepEqual(events.map((e) => e.bizKey), ["PAY-1", "ORDER-7", "PAY-1", "PAY-1", "ORDER-7", "ORDER-7"]);
      assert.ok(events.every((e) => e.msgId === "01A9F3C2D4E5F60708090A0B0C"));
      assert.deepEqual([events[2]!.group, events[2]!.instance, events[3]!.success], ["ledger-group", "ledger-5d8f9-abcde", false], names);
      assert.equal(events[0]!.detail.tag, "paid");
    }
  });

  it("Java agent rocketmq-client-4.8 with its experimental attributes: tags, queue offset, broker address, send result", () => {
    // The shapes of the agent's RocketMqProducer/ConsumerExperimentalAttributeExtractor and its tests: the message
    // id is the client's UNIQ_KEY, and a 4.x span names no keys, so DUPSCOPE_OTLP_KEYS points at a header.
    const producer = new SpanRecorder(JAVA_HOST(3001), "io.opentelemetry.rocketmq-client-4.8");
    const send = producer.span({
      name: "pay-success publish",
      kind: SpanKind.PRODUCER,
      start: T0,
      end: T0 + 3,
      attributes: { "messaging.system": "rocketmq", "messaging.destination.name": "pay-success", "messaging.message.id": "0A0B0C0D0E0F00000000000001", "messaging.rocketmq.tags": "TagA", "messaging.rocketmq.broker_address": "10.0.0.2:10911", "messaging.rocketmq.send_result": "SEND_OK", "order.id": "PAY-9" },
    });
    const consumer = new SpanRecorder(JAVA_HOST(3002), "io.opentelemetry.rocketmq-client-4.8");
    consumer.span({
      name: "pay-success process",
      kind: SpanKind.CONSUMER,
      start: T0 + 20,
      end: T0 + 40,
      parent: send,
      attributes: { "messaging.system": "rocketmq", "messaging.destination.name": "pay-success", "messaging.operation": "process", "messaging.message.id": "0A0B0C0D0E0F00000000000001", "messaging.rocketmq.tags": "TagA", "messaging.rocketmq.queue_id": 3, "messaging.rocketmq.queue_offset": 1877, "messaging.rocketmq.broker_address": "10.0.0.2:10911", "order.id": "PAY-9" },
    });
    const { events } = mapped([producer, consumer], "rocketmq=order.id");
    assert.deepEqual(kinds(events), ["publish", "consume_start", "consume_end"]);
    const [pub, start] = events;
    assert.deepEqual([pub!.bizKey, pub!.detail.tag, pub!.detail.brokerAddress, pub!.detail.sendResult], ["PAY-9", "TagA", "10.0.0.2:10911", "SEND_OK"]);
    assert.deepEqual([start!.bizKey, start!.queueOffset, start!.queue, start!.detail.tag], ["PAY-9", 1877, null, "TagA"]);
  });

  it("amqplib: the consume span ends at the settle; ack, nack and a channel that closed first read differently", () => {
    const producer = new SpanRecorder({ "service.name": "orders-api", "host.name": "api-1", "process.pid": 10 }, "@opentelemetry/instrumentation-amqplib");
    const publish = producer.span({
      name: "publish <default>",
      kind: SpanKind.PRODUCER,
      start: T0,
      end: T0 + 1,
      attributes: { "messaging.system": "rabbitmq", "messaging.destination": "", "messaging.destination_kind": "topic", "messaging.rabbitmq.routing_key": "invoices", "messaging.message_id": "INV-1", "messaging.protocol": "AMQP" },
    });
    const consume = (pid: number, start: number, status?: { code: SpanStatusCode; message?: string }) => {
      const r = new SpanRecorder({ "service.name": "invoice-worker", "host.name": "worker", "process.pid": pid }, "@opentelemetry/instrumentation-amqplib");
      r.span({
        name: "invoices process",
        kind: SpanKind.CONSUMER,
        start,
        end: start + 50,
        parent: publish,
        ...(status ? { status } : {}),
        attributes: { "messaging.system": "rabbitmq", "messaging.destination": "", "messaging.rabbitmq.routing_key": "invoices", "messaging.operation": "process", "messaging.message_id": "INV-1" },
      });
      return r;
    };
    const closed = consume(21, T0 + 10, { code: SpanStatusCode.ERROR, message: "channel closed" });
    const nacked = consume(22, T0 + 100, { code: SpanStatusCode.ERROR, message: "nack called on message with requeue" });
    const acked = consume(23, T0 + 200);
    const { events } = mapped([producer, closed, nacked, acked]);
    assert.deepEqual(kinds(events), ["publish", "consume_start", "instance_lifecycle", "consume_start", "consume_end", "ack", "consume_start", "consume_end", "ack"]);
    const [pub, closedStart, lifecycle] = events;
    assert.deepEqual([pub!.bizKey, pub!.msgId, pub!.topic, pub!.queue], ["INV-1", "INV-1", "amq.default", null]);
    assert.deepEqual([closedStart!.group, closedStart!.queue, closedStart!.instance], ["invoices", "invoices", "worker@21"]);
    assert.deepEqual([lifecycle!.bizKey, lifecycle!.group, lifecycle!.instance, lifecycle!.detail.action, lifecycle!.ts], [null, "invoices", "worker@21", "channel_closed", T0 + 60]);
    assert.deepEqual(lifecycle!.detail.msgIds, ["INV-1"]);
    assert.deepEqual([events[4]!.success, events[5]!.success, events[7]!.success, events[8]!.success], [false, false, true, true]);
  });

  it("RabbitMQ Java, old names: the queue from the span name, the ack span inherits its process span's message", () => {
    const r = new SpanRecorder(JAVA_HOST(3000), "io.opentelemetry.rabbitmq-2.7");
    const process = r.span({
      name: "payments process",
      kind: SpanKind.CONSUMER,
      start: T0,
      end: T0 + 20,
      attributes: { "messaging.system": "rabbitmq", "messaging.destination.name": "pay-exchange", "messaging.operation": "process", "messaging.rabbitmq.destination.routing_key": "pay", "messaging.header.x_order_id": ["ORDER-3"] },
    });
    r.span({ name: "basic.ack", kind: SpanKind.CLIENT, start: T0 + 18, end: T0 + 19, parent: process, attributes: { "messaging.system": "rabbitmq", "network.peer.address": "10.0.0.9" } });
    r.span({ name: "queue.declare", kind: SpanKind.CLIENT, start: T0 - 50, end: T0 - 49, attributes: { "messaging.system": "rabbitmq" } });
    // Without a rule the process span names no message (RabbitMQ Java records no message id): kept out, not refused.
    const without = mapped([r]);
    assert.deepEqual(without.events, []);
    assert.equal(without.refused.length, 1);
    const { events } = mapped([r], "rabbitmq=messaging.header.x_order_id");
    assert.deepEqual(kinds(events), ["consume_start", "consume_end", "ack"]);
    assert.deepEqual([events[0]!.bizKey, events[0]!.topic, events[0]!.group, events[2]!.bizKey, events[2]!.success, events[2]!.ts], ["ORDER-3", "pay-exchange", "payments", "ORDER-3", true, T0 + 18]);
  });

  it("a batch process span yields one message per link that names one (spring-kafka batch listener, new names)", () => {
    const producer = new SpanRecorder(JAVA_HOST(1));
    const a = producer.span({ name: "send orders", kind: SpanKind.PRODUCER, start: T0, end: T0 + 1, attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders" } });
    const b = producer.span({ name: "send orders", kind: SpanKind.PRODUCER, start: T0, end: T0 + 1, attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders" } });
    const consumer = new SpanRecorder(JAVA_HOST(2), "io.opentelemetry.spring-kafka-2.7");
    consumer.span({
      name: "process orders",
      kind: SpanKind.CONSUMER,
      start: T0 + 5,
      end: T0 + 9,
      links: [
        { ...linkTo(a), attributes: { "messaging.kafka.offset": 10, "messaging.kafka.message.key": "K-10" } },
        { ...linkTo(b), attributes: { "messaging.kafka.offset": 11, "messaging.kafka.message.key": "K-11" } },
      ],
      attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.operation.type": "process", "messaging.batch.message_count": 2, "messaging.destination.partition.id": "1", "messaging.consumer.group.name": "billing" },
    });
    const { events } = mapped([consumer]);
    assert.deepEqual(events.map((e) => [e.kind, e.bizKey, e.msgId]), [
      ["consume_start", "K-10", "orders-1@10"],
      ["consume_end", "K-10", "orders-1@10"],
      ["consume_start", "K-11", "orders-1@11"],
      ["consume_end", "K-11", "orders-1@11"],
    ]);
    assert.equal(new Set(events.map((e) => e.id)).size, 4);
  });

  it("leave out what is not a message's send, processing or settle: receive and poll spans, other systems, plain spans", () => {
    const r = new SpanRecorder(JAVA_HOST(9));
    r.span({ name: "orders receive", kind: SpanKind.CONSUMER, start: T0, end: T0 + 1, attributes: { "messaging.system": "kafka", "messaging.operation": "receive", "messaging.batch.message_count": 3 } });
    r.span({ name: "poll orders", kind: SpanKind.CLIENT, start: T0, end: T0 + 1, attributes: { "messaging.system": "kafka", "messaging.operation.type": "receive" } });
    r.span({ name: "queue process", kind: SpanKind.CONSUMER, start: T0, end: T0 + 1, attributes: { "messaging.system": "aws_sqs", "messaging.message.id": "m" } });
    r.span({ name: "GET /orders", kind: SpanKind.SERVER, start: T0, end: T0 + 1, attributes: { "http.request.method": "GET" } });
    assert.deepEqual(mapped([r]), { events: [], spanOf: [], refused: [] });
  });

  it("give a re-sent batch the same event ids, in either encoding", () => {
    const r = new SpanRecorder(JAVA_HOST(9));
    r.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 1, attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.kafka.message.key": "K" } });
    const ids = (encoding: "protobuf" | "json") => mapSpans(decoded([r], encoding)).events.map((e) => e.id);
    assert.deepEqual(ids("protobuf"), ids("json"));
    assert.match(ids("json")[0]!, /^otlp-traces:[0-9a-f]{32}:[0-9a-f]{16}:send\.0\.0$/);
  });

  it("name the instance from the resource, saying when only a service name did", () => {
    const of = (resource: Attributes) => instanceOf(resource as never);
    assert.deepEqual(of({ "k8s.pod.name": "pod-a", "host.name": "h", "process.pid": 1 }), { instance: "pod-a", from: "k8s.pod.name" });
    assert.deepEqual(of({ "host.name": "h", "process.pid": 1, "service.instance.id": "uuid" }), { instance: "h@1", from: "host.name@process.pid" });
    assert.deepEqual(of({ "service.instance.id": "627cc493-f310-47de-96bd-71410b7dec09", "service.name": "s" }), { instance: "627cc493-f310-47de-96bd-71410b7dec09", from: "service.instance.id" });
    assert.deepEqual(of({ "service.name": "billing" }), { instance: "billing", from: "service.name" });
    assert.deepEqual(of({}), { instance: null, from: null });
  });

  it("read DUPSCOPE_OTLP_KEYS, refusing what it cannot read", () => {
    assert.deepEqual(parseKeyRules("kafka=messaging.header.x_order_id; rabbitmq:payments=messaging.message.conversation_id,messaging.conversation_id"), [
      { system: "kafka", attributes: ["messaging.header.x_order_id"] },
      { system: "rabbitmq", destination: "payments", attributes: ["messaging.message.conversation_id", "messaging.conversation_id"] },
    ]);
    assert.deepEqual(parseKeyRules(undefined), []);
    assert.throws(() => parseKeyRules("sqs=messaging.message.id"), /DUPSCOPE_OTLP_KEYS/);
    assert.throws(() => parseKeyRules("kafka="), /DUPSCOPE_OTLP_KEYS/);
  });

  it("never throw on any decoded request, and map only to events the store accepts or its validation names", () => {
    const anyAttr = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constantFrom("kafka", "rocketmq", "rabbitmq", "process", "publish", "settle", "receive", "0", "123"));
    const attrs = fc.dictionary(
      fc.constantFrom("messaging.system", "messaging.operation", "messaging.operation.type", "messaging.destination.name", "messaging.destination", "messaging.kafka.offset", "messaging.destination.partition.id", "messaging.message.id", "messaging.kafka.message.key", "messaging.batch.message_count"),
      anyAttr,
    );
    fc.assert(
      fc.property(fc.array(fc.record({ name: fc.string({ maxLength: 30 }), kind: fc.integer({ min: 0, max: 5 }), attrs, status: fc.integer({ min: 0, max: 2 }), message: fc.string({ maxLength: 30 }) }), { maxLength: 6 }), (specs) => {
        const body = {
          resourceSpans: [
            {
              resource: { attributes: [{ key: "service.name", value: { stringValue: "s" } }] },
              scopeSpans: [
                {
                  scope: { name: "@opentelemetry/instrumentation-amqplib" },
                  spans: specs.map((s, i) => ({
                    traceId: "5b8efff798038103d269b633813fc60c",
                    spanId: (i + 1).toString(16).padStart(16, "0"),
                    name: s.name,
                    kind: s.kind,
                    startTimeUnixNano: "1764489600000000000",
                    endTimeUnixNano: "1764489600100000000",
                    status: { code: s.status, message: s.message },
                    attributes: Object.entries(s.attrs).map(([key, v]) => ({ key, value: typeof v === "number" ? { intValue: v } : { stringValue: v } })),
                  })),
                },
              ],
            },
          ],
        };
        const { events } = mapSpans(decodeJson(JSON.stringify(body)).spans);
        for (const e of events) {
          const checked = validateEvent(e);
          if (!checked.ok) assert.match(checked.reason, /must be at most|must not be empty/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
