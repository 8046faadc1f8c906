import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpanKind, SpanStatusCode, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { decodeProtobuf } from "../../../collectors/otlp-traces/decode.ts";
import { mapSpans } from "../../../collectors/otlp-traces/map.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { contextOf } from "../../../lib/diagnosis/scope.ts";
import type { KeyDiagnosis } from "../../../lib/diagnosis/types.ts";
import { linkTo, protobufBody, SpanRecorder } from "../../helpers/otel.ts";

/**
 * Diagnosis from OpenTelemetry spans alone, no client or broker log: Kafka and RocketMQ 5 spans made with the real
 * SDK in the shapes the Java agent's instrumentations emit (collectors/otlp-traces/README.md), in both the default
 * (old) attribute names and OTEL_SEMCONV_STABILITY_OPT_IN=messaging (new) ones.
 */

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const KAFKA_SCOPE = "io.opentelemetry.kafka-clients-0.11";
const RMQ5_SCOPE = "io.opentelemetry.rocketmq-client-5.0";
type Names = "old" | "new";

const process = (pid: number, scope: string) => new SpanRecorder({ "service.name": pid < 100 ? "order-api" : "billing", "host.name": "node-1", "process.pid": pid }, scope);

function kafka(names: Names, op: "publish" | "process", offset: number | null, key = "ORDER-1"): Attributes {
  return {
    "messaging.system": "kafka",
    "messaging.destination.name": "orders",
    "messaging.destination.partition.id": "0",
    ...(key === "" ? {} : { "messaging.kafka.message.key": key }),
    ...(names === "old"
      ? { "messaging.operation": op, ...(offset === null ? {} : { "messaging.kafka.message.offset": offset }), ...(op === "process" ? { "messaging.kafka.consumer.group": "billing" } : {}) }
      : { "messaging.operation.type": op === "publish" ? "send" : "process", ...(offset === null ? {} : { "messaging.kafka.offset": offset }), ...(op === "process" ? { "messaging.consumer.group.name": "billing" } : {}) }),
  };
}

function rocketmq(names: Names, op: "publish" | "process", messageId = "0A0B0C0D0E0F00000000000001"): Attributes {
  return {
    "messaging.system": "rocketmq",
    "messaging.destination.name": "pay-success",
    "messaging.message.id": messageId,
    "messaging.rocketmq.message.keys": ["PAY-1"],
    ...(names === "old"
      ? { "messaging.operation": op, ...(op === "process" ? { "messaging.rocketmq.client_group": "ledger" } : {}) }
      : { "messaging.operation.type": op === "publish" ? "send" : "process", ...(op === "process" ? { "messaging.consumer.group.name": "ledger" } : {}) }),
  };
}

function diagnose(recorders: SpanRecorder[], bizKey: string): KeyDiagnosis {
  const spans: ReadableSpan[] = recorders.flatMap((r) => r.spans());
  const events = mapSpans(decodeProtobuf(protobufBody(spans)).spans).events;
  const own = events.filter((e) => e.bizKey === bizKey);
  return diagnoseKey({ bizKey, events: own, context: contextOf(own, events.filter((e) => e.bizKey === null)) });
}

const verdicts = (d: KeyDiagnosis) => d.duplicates.map((v) => [v.cause, v.evidence.filter((e) => e.role === "cause").map((e) => e.code)]);

for (const names of ["old", "new"] as const) {
  describe(`spans alone, ${names} attribute names`, () => {
    it("Kafka: the same offset processed by another member after the partition moved is a rebalance", () => {
      const producer = process(10, KAFKA_SCOPE);
      const send = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 3, attributes: kafka(names, "publish", 41) });
      const a = process(201, KAFKA_SCOPE);
      a.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + 40, parent: send, attributes: kafka(names, "process", 41) });
      const b = process(202, KAFKA_SCOPE);
      b.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 31_000, end: T0 + 31_020, parent: send, attributes: kafka(names, "process", 41) });
      const d = diagnose([producer, a, b], "ORDER-1");
      assert.deepEqual(verdicts(d), [["rebalance", ["same_copy", "same_record_other_instance"]]]);
      assert.deepEqual(d.duplicates[0]!.instances, { first: "node-1@201", second: "node-1@202" });
    });

    it("Kafka: a record processed again by the same consumer after an error is a retry after failure", () => {
      const producer = process(10, KAFKA_SCOPE);
      const send = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 3, attributes: kafka(names, "publish", 41) });
      const a = process(201, "io.opentelemetry.spring-kafka-2.7");
      a.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + 40, parent: send, status: { code: SpanStatusCode.ERROR }, attributes: kafka(names, "process", 41) });
      a.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 1040, end: T0 + 1060, parent: send, attributes: kafka(names, "process", 41) });
      assert.deepEqual(verdicts(diagnose([producer, a], "ORDER-1")), [["retry_after_failure", ["consume_failed"]]]);
    });

    it("Kafka: a send that failed and was sent again, landing at two offsets, is a producer retry", () => {
      const producer = process(10, KAFKA_SCOPE);
      // The first send timed out without RecordMetadata (no offset on its span), yet the broker had written offset 41.
      producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 3000, status: { code: SpanStatusCode.ERROR }, attributes: kafka(names, "publish", null) });
      const retried = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0 + 3001, end: T0 + 3010, attributes: kafka(names, "publish", 42) });
      const consumer = process(201, KAFKA_SCOPE);
      consumer.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 3100, end: T0 + 3120, attributes: kafka(names, "process", 41) });
      consumer.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 3130, end: T0 + 3150, parent: retried, attributes: kafka(names, "process", 42) });
      assert.deepEqual(verdicts(diagnose([producer, consumer], "ORDER-1")), [["producer_retry", ["different_msg_ids", "copy_without_send", "send_failed_then_retried"]]]);
    });

    it("Kafka: two sends of a key by one producer within its send window are a producer retry, further apart an upstream resend", () => {
      for (const [gapMs, cause] of [
        [2500, "producer_retry"],
        [40_000, "upstream_resend"],
      ] as const) {
        const producer = process(10, KAFKA_SCOPE);
        const first = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: kafka(names, "publish", 41) });
        const second = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0 + gapMs, end: T0 + gapMs + 2, attributes: kafka(names, "publish", 42) });
        const consumer = process(201, KAFKA_SCOPE);
        consumer.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + gapMs + 100, end: T0 + gapMs + 120, parent: first, attributes: kafka(names, "process", 41) });
        consumer.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + gapMs + 130, end: T0 + gapMs + 150, parent: second, attributes: kafka(names, "process", 42) });
        assert.deepEqual(diagnose([producer, consumer], "ORDER-1").duplicates.map((v) => v.cause), [cause], `${gapMs} ms apart`);
      }
    });

    it("Kafka: sends that name no offset (kafkajs) are tied to their records through the process spans under them", () => {
      for (const link of [false, true]) {
        const producer = process(10, "@opentelemetry/instrumentation-kafkajs");
        const first = producer.span({ name: "send orders", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: kafka(names, "publish", null) });
        const second = producer.span({ name: "send orders", kind: SpanKind.PRODUCER, start: T0 + 2500, end: T0 + 2502, attributes: kafka(names, "publish", null) });
        const consumer = process(201, "@opentelemetry/instrumentation-kafkajs");
        // A process span is the send's child, or (a new root) links to it.
        const under = (send: ReadableSpan) => (link ? { links: [linkTo(send)] } : { parent: send });
        consumer.span({ name: "process orders", kind: SpanKind.CONSUMER, start: T0 + 2600, end: T0 + 2620, ...under(first), attributes: kafka(names, "process", 41) });
        consumer.span({ name: "process orders", kind: SpanKind.CONSUMER, start: T0 + 2630, end: T0 + 2650, ...under(second), attributes: kafka(names, "process", 42) });
        const d = diagnose([producer, consumer], "ORDER-1");
        assert.deepEqual(verdicts(d), [["producer_retry", ["different_msg_ids", "kafka_send_retried"]]], link ? "by link" : "by parent");
      }
    });

    it("says when only a service name identified the instances: two replicas then read as one", () => {
      const producer = process(10, KAFKA_SCOPE);
      const send = producer.span({ name: "orders publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 3, attributes: kafka(names, "publish", 41) });
      // Two replicas whose SDKs were given no host, pid or pod: their resources are the same.
      const replica = () => new SpanRecorder({ "service.name": "billing" }, KAFKA_SCOPE);
      const processedTwice = (a: SpanRecorder, b: SpanRecorder) => {
        a.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + 40, parent: send, attributes: kafka(names, "process", 41) });
        b.span({ name: "orders process", kind: SpanKind.CONSUMER, start: T0 + 31_000, end: T0 + 31_020, parent: send, attributes: kafka(names, "process", 41) });
        return diagnose([producer, a, b], "ORDER-1");
      };
      const d = processedTwice(replica(), replica());
      assert.equal(d.duplicates.length, 1);
      assert.deepEqual(d.duplicates[0]!.instances, { first: "billing", second: "billing" });
      assert.ok(d.missing.some((m) => m.code === "service_only_identity" && m.instance === "billing" && m.group === "billing"), JSON.stringify(d.missing));
      const named = processedTwice(process(201, KAFKA_SCOPE), process(202, KAFKA_SCOPE));
      assert.ok(!named.missing.some((m) => m.code === "service_only_identity"), "host.name@process.pid names them");
    });

    /** One RocketMQ 5 message sent at T0, processed on pid 201 over [10, firstEnd] and on pid 202 from secondStart for 20 ms. */
    const rmq5Twice = (firstEnd: number, secondStart: number) => {
      const producer = process(10, RMQ5_SCOPE);
      const send = producer.span({ name: "pay-success publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: rocketmq(names, "publish") });
      const a = process(201, RMQ5_SCOPE);
      a.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + firstEnd, parent: send, attributes: rocketmq(names, "process") });
      const b = process(202, RMQ5_SCOPE);
      b.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + secondStart, end: T0 + secondStart + 20, parent: send, attributes: rocketmq(names, "process") });
      return diagnose([producer, a, b], "PAY-1");
    };

    it("RocketMQ 5: delivered again while the first attempt still ran is an invisible-time expiry", () => {
      const d = rmq5Twice(45_000, 30_020);
      assert.deepEqual(verdicts(d), [["invisible_timeout", ["redelivered_while_processing"]]]);
      assert.ok(d.duplicates[0]!.evidence.some((e) => e.code === "redelivered_while_processing" && e.values.firstEnd === T0 + 45_000));
    });

    it("RocketMQ 5: a delivery a lease later after a first attempt that ended cleanly is an invisible-time expiry too", () => {
      // The ack of the first attempt was lost (or its lease renewal failed): it ended without error, and the message came back.
      const d = rmq5Twice(2_010, 60_030);
      assert.deepEqual(verdicts(d), [["invisible_timeout", ["redelivered_without_failure"]]]);
      assert.equal(d.duplicates[0]!.evidence.find((e) => e.code === "redelivered_without_failure")!.values.gapMs, 58_020);
    });

    it("RocketMQ 5: the same message id delivered again sooner than any lease can run out is a second stored copy", () => {
      const d = rmq5Twice(40, 1_210);
      assert.deepEqual(verdicts(d), [["producer_retry", ["same_msg_id", "too_soon_for_redelivery"]]]);
    });

    it("RocketMQ 5: a retry whose host's clock runs behind the failed attempt's is still put after it, and says so", () => {
      const producer = process(10, RMQ5_SCOPE);
      const send = producer.span({ name: "pay-success publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: rocketmq(names, "publish") });
      const failing = process(201, RMQ5_SCOPE);
      failing.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 2_500, end: T0 + 2_530, parent: send, status: { code: SpanStatusCode.ERROR }, attributes: rocketmq(names, "process") });
      // Redelivered 1.2 s after the failure, on a host whose clock is 2 s behind.
      const retrying = process(202, RMQ5_SCOPE);
      retrying.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 1_730, end: T0 + 1_750, parent: send, attributes: rocketmq(names, "process") });
      const [v] = diagnose([producer, failing, retrying], "PAY-1").duplicates;
      assert.equal(v?.cause, "retry_after_failure");
      assert.equal(v?.evidence.find((e) => e.code === "reordered")?.values.reason, "failure_first");
    });

    it("RocketMQ 5: a clean retry after a failed attempt stays a retry after failure, and 4.x spans never read as invisible time", () => {
      const producer = process(10, RMQ5_SCOPE);
      const send = producer.span({ name: "pay-success publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: rocketmq(names, "publish") });
      const a = process(201, RMQ5_SCOPE);
      a.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + 40, parent: send, status: { code: SpanStatusCode.ERROR }, attributes: rocketmq(names, "process") });
      a.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 10_040, end: T0 + 10_060, parent: send, attributes: rocketmq(names, "process") });
      assert.deepEqual(diagnose([producer, a], "PAY-1").duplicates.map((v) => v.cause), ["retry_after_failure"]);

      const old = process(10, "io.opentelemetry.rocketmq-client-4.8");
      const oldSend = old.span({ name: "pay-success publish", kind: SpanKind.PRODUCER, start: T0, end: T0 + 2, attributes: rocketmq(names, "publish") });
      const c = process(201, "io.opentelemetry.rocketmq-client-4.8");
      c.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 10, end: T0 + 45_000, parent: oldSend, attributes: rocketmq(names, "process") });
      const e = process(202, "io.opentelemetry.rocketmq-client-4.8");
      e.span({ name: "pay-success process", kind: SpanKind.CONSUMER, start: T0 + 30_020, end: T0 + 30_040, parent: oldSend, attributes: rocketmq(names, "process") });
      assert.ok(diagnose([old, c, e], "PAY-1").duplicates.every((v) => v.cause !== "invisible_timeout"));
    });
  });
}

function rabbitmq(names: Names, op: "publish" | "process", messageId: string): Attributes {
  return {
    "messaging.system": "rabbitmq",
    "messaging.destination.name": "payments",
    "messaging.rabbitmq.destination.routing_key": "pay",
    "messaging.message.id": messageId,
    ...(names === "old" ? { "messaging.operation": op } : { "messaging.operation.type": op === "publish" ? "send" : "process" }),
  };
}

/**
 * Issue 49: one message id published twice by a publisher whose first publish ended in error (a confirm that timed out,
 * a refused channel), each copy consumed once, with process spans that carry the id but no parent: context propagation
 * off, as it often is. The id published twice is the evidence, with or without the links a consumer may carry.
 */
describe("RabbitMQ spans: one message id published twice after a failed publish", () => {
  const RABBIT_SCOPE = "io.opentelemetry.rabbitmq-2.7";
  const MESSAGE_ID = "7f9c2a1e-5b0d-4c1e-9a57-3f0e8b6d2c41";
  for (const names of ["old", "new"] as const) {
    for (const linked of [false, true]) {
      for (const failure of ["error", "timeout"] as const) {
        it(`is producer_retry (${names} names, ${failure === "error" ? "first publish ended in error" : "first publish timed out and returned"}, ${linked ? "with" : "without"} links)`, () => {
          const producer = process(10, RABBIT_SCOPE);
          const first = producer.span({
            name: "payments publish",
            kind: SpanKind.PRODUCER,
            start: T0,
            end: T0 + 5_000,
            ...(failure === "error" ? { status: { code: SpanStatusCode.ERROR } } : {}),
            attributes: rabbitmq(names, "publish", MESSAGE_ID),
          });
          const second = producer.span({ name: "payments publish", kind: SpanKind.PRODUCER, start: T0 + 5_010, end: T0 + 5_014, attributes: rabbitmq(names, "publish", MESSAGE_ID) });
          const a = process(201, RABBIT_SCOPE);
          a.span({ name: "payments process", kind: SpanKind.CONSUMER, start: T0 + 20, end: T0 + 45, ...(linked ? { links: [linkTo(first)] } : {}), attributes: rabbitmq(names, "process", MESSAGE_ID) });
          const b = process(202, RABBIT_SCOPE);
          b.span({ name: "payments process", kind: SpanKind.CONSUMER, start: T0 + 5_030, end: T0 + 5_050, ...(linked ? { links: [linkTo(second)] } : {}), attributes: rabbitmq(names, "process", MESSAGE_ID) });
          const d = diagnose([producer, a, b], MESSAGE_ID);
          assert.deepEqual(d.duplicates.map((v) => v.cause), ["producer_retry"]);
          const v = d.duplicates[0]!;
          assert.ok(v.confidence >= 0.9, `confidence ${v.confidence}`);
          const codes = v.evidence.map((e) => e.code);
          assert.ok(codes.includes(failure === "error" ? "send_failed_then_retried" : "stored_copies"), codes.join(", "));
          assert.ok(!codes.includes("single_stored_copy"), "the failed publish's copy reached the queue: not one stored copy");
        });
      }
    }
  }
});

