import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reconstructDeliveries, selectKeyEvents } from "../../../lib/diagnosis/deliveries.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { DEFAULT_OPTIONS } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { client, dedup, kafka, rabbitDeliver, rabbitLifecycle, redisOnce, SEC, trace } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-0013";
const MSG = "0A000009303918B4AAC27A1C3A900001";
const GROUP = "cg_order_paid";

const rebuild = (events: NormalizedEvent[]) => reconstructDeliveries(selectKeyEvents(KEY, events), DEFAULT_OPTIONS);

describe("reconstructing deliveries", () => {
  it("pairs SubBefore and SubAfter by requestId and msgId, even for a batch sharing one requestId", () => {
    const other = "0A000009303918B4AAC27A1C3A980002";
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", requestId: "R1", costTime: 40 }),
      ...trace.consume({ at: 0, bizKey: "ORD-other", msgId: other, group: GROUP, host: "10.0.0.5", requestId: "R1", costTime: 40 }),
    ];
    const [d, ...rest] = rebuild(events);
    assert.deepEqual(rest, []);
    assert.equal(d!.msgId, MSG);
    assert.equal(d!.consume, "success");
    assert.equal(d!.costMs, 40);
    assert.deepEqual(d!.sources, ["trace"]);
  });

  it("joins the dedup log's ip@pid instance with the trace's bare host and keeps the more specific name", () => {
    const events = [...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }), ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@31337", queue: "broker-a:1", queueOffset: 4821 })];
    const [d, ...rest] = rebuild(events);
    assert.deepEqual(rest, []);
    assert.equal(d!.instance, "10.0.0.5@31337");
    assert.equal(d!.queue, "broker-a:1");
    assert.equal(d!.effect, "executed");
    assert.deepEqual(d!.sources, ["trace", "dedup_log"]);
  });

  it("keeps two processes on one host apart although the trace names both by the host", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@31337" }),
      ...trace.consume({ at: 5, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      dedup({ at: 7, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@9999", layer: "redis", decision: "hit" }),
    ];
    const list = rebuild(events);
    assert.deepEqual(list.map((d) => [d.instance, d.effect]), [["10.0.0.5@31337", "executed"], ["10.0.0.5@9999", "skipped"]]);
    const v = diagnoseKey({ bizKey: KEY, events, context: [] }).duplicates[0]!;
    assert.equal(v.sameInstance, false);
  });

  it("orders a hit after the pass that set its marker when the clocks say otherwise, even if a local Bloom filter passed both", () => {
    const layerLines = (at: number, instance: string, redis: "pass" | "hit") => [
      dedup({ at, bizKey: KEY, msgId: MSG, group: GROUP, instance, layer: "bloom", decision: "pass" }),
      dedup({ at: at + 1, bizKey: KEY, msgId: MSG, group: GROUP, instance, layer: "redis", decision: redis }),
    ];
    const events = [...layerLines(0, "10.0.0.5@31337", "pass"), ...layerLines(-180, "10.0.0.6@27015", "hit")];
    const list = rebuild(events);
    assert.deepEqual(list.map((d) => [d.instance, d.reordered ?? null]), [["10.0.0.5@31337", null], ["10.0.0.6@27015", "dedup_order"]]);
  });

  it("attaches a client-log consume exception (filed without bizKey) to the traced attempt it reports on", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.6", costTime: 60, contextCode: 2 }),
      client.consumeException({ at: 55, group: GROUP, topic: "order_paid", queue: "broker-b:2", instance: "10.0.0.6@27015", msgId: MSG, offsetMsgId: "0A00000200002A9F00000000001B5E10", queueOffset: 4821, retryTimes: 0, keys: [KEY] }),
    ];
    const [d, ...rest] = rebuild(events);
    assert.deepEqual(rest, []);
    assert.equal(d!.consume, "failed");
    assert.equal(d!.contextName, "EXCEPTION");
    assert.equal(d!.offsetMsgId, "0A00000200002A9F00000000001B5E10");
    assert.equal(d!.instance, "10.0.0.6@27015");
  });

  it("makes a consumeMessageDirectly line a delivery of its own, in the group of the same process", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.6", retryTimes: 16, contextCode: 4 }),
      client.consumeDirectly({ at: 3600 * SEC, topic: "order_paid", queue: "broker-a:0", instance: "10.0.0.6@27015", msgId: MSG, offsetMsgId: "0A00000200002A9F0000000000A8C560", queueOffset: 13, retryTimes: 16, keys: [KEY] }),
    ];
    const list = rebuild(events);
    assert.equal(list.length, 2);
    assert.equal(list[1]!.direct, true);
    assert.equal(list[1]!.group, GROUP);
    assert.deepEqual(list[1]!.sources, ["client_log"]);
  });

  it("keeps a SubAfter timed by storeTimestamp (no group) with its SubBefore", () => {
    const [start, end] = trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.4.51", costTime: 87 });
    const cloudEnd = { ...end!, ts: end!.ts + 4900, group: null, detail: { ...end!.detail, tsSource: "storeTimestamp" } };
    const [d, ...rest] = rebuild([start!, cloudEnd]);
    assert.deepEqual(rest, []);
    assert.equal(d!.group, GROUP);
    assert.equal(d!.costMs, 87);
  });
});

describe("events in one millisecond", () => {
  it("keep an attempt's order whatever order they arrive in: a layer's pass, then the effect", () => {
    const T = Date.UTC(2026, 10, 30, 4, 0, 0);
    const line = (instance: string, at: number, decision: "pass" | "executed") =>
      dedup({ at, bizKey: "ORD-SAME-MS", msgId: "MSG-1", group: "GID_points", instance, layer: "redis", decision, ttlMs: 300 });
    // Two instances, each writing `redis pass` and `executed` in the same millisecond: the store returns equal
    // times in id order, so the effect may come first.
    const inOrder = [line("10.0.0.5@1", T, "pass"), line("10.0.0.5@1", T, "executed"), line("10.0.0.7@2", T + 2000, "pass"), line("10.0.0.7@2", T + 2000, "executed")];
    const swapped = [inOrder[1]!, inOrder[0]!, inOrder[3]!, inOrder[2]!];
    for (const events of [inOrder, swapped]) {
      const deliveries = reconstructDeliveries(events, DEFAULT_OPTIONS);
      assert.equal(deliveries.length, 2, "one delivery per instance");
      assert.deepEqual(diagnoseKey({ bizKey: "ORD-SAME-MS", events, context: [] }).duplicates.map((v) => [v.outcome, v.defect]), [["leaked", "marker_expired"]]);
    }
  });
});

describe("brokers other than RocketMQ", () => {
  it("diagnoses a Kafka rebalance from dedup lines and the consumers' revoke/assign lines", () => {
    const bizKey = "ORD-20261130-100231";
    const line = (at: number, instance: string, decision: "pass" | "executed" | "hit") =>
      dedup({ at, bizKey, group: "points-award", instance, layer: "redis", decision, broker: "kafka", topic: "order-paid", queue: "order-paid-3", queueOffset: 884213, dedupKey: `points:${bizKey}`, ...(decision === "pass" ? { ttlMs: 86_400_000 } : {}) });
    const events = [line(0, "points-7d9f", "pass"), line(45, "points-7d9f", "executed"), line(6 * SEC, "points-c2a1", "hit")];
    const context = [
      kafka.partition("revoke", { at: 4 * SEC, group: "points-award", topic: "order-paid", partition: 3, instance: "points-7d9f" }),
      kafka.partition("assign", { at: 5 * SEC, group: "points-award", topic: "order-paid", partition: 3, instance: "points-c2a1" }),
    ];
    const result = diagnoseKey({ bizKey, events, context });
    assert.equal(result.duplicates.length, 1);
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "rebalance");
    assert.equal(v.outcome, "caught");
    assert.ok(!result.missing.some((m) => m.code === "no_pub_trace" || m.code === "no_consume_trace"), "Kafka has neither");
  });

  it("diagnoses a RabbitMQ redelivery after the first consumer's connection closed as a lost ACK", () => {
    const bizKey = "INV-2026-118842";
    const msgId = "b7c1f0e2-5a9d-4c3e-8f21-0d6a7e9b1c44";
    const events = [
      rabbitDeliver({ at: 0, bizKey, msgId, group: "invoice-svc", queue: "invoice.issue", instance: "10.1.0.4", redelivered: false }),
      rabbitDeliver({ at: 31 * SEC, bizKey, msgId, group: "invoice-svc", queue: "invoice.issue", instance: "10.1.0.9", redelivered: true }),
    ];
    const context = [rabbitLifecycle("connection_closed", { at: 30 * SEC, group: "invoice-svc", instance: "10.1.0.4" })];
    const result = diagnoseKey({ bizKey, events, context });
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "ack_lost");
    assert.deepEqual(v.evidence.filter((e) => e.role === "cause").map((e) => e.code), ["channel_lost", "redelivered_flag"]);
    assert.equal(v.outcome, "unknown");
  });
});
