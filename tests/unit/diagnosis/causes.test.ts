import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { Verdict } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { broker, client, dedup, MIN, redisOnce, SEC, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-000042";
const MSG = "0A000005216C18B4AAC27A9E2A3F0001";
const GROUP = "pay-consumer";
const PRODUCER = "10.0.0.20";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";

function only(events: NormalizedEvent[], context: NormalizedEvent[] = []): Verdict {
  const result = diagnoseKey({ bizKey: KEY, events, context });
  assert.equal(result.duplicates.length, 1, `expected one duplicate, got ${JSON.stringify(result.duplicates.map((v) => v.cause))}`);
  return result.duplicates[0]!;
}

const codes = (v: Verdict) => v.evidence.map((e) => e.code);

describe("cause of a duplicate", () => {
  it("names a producer retry: one msgId stored twice within the send-retry window, both consumed as first deliveries", () => {
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER, success: false, costTime: 2950 }),
      trace.pub({ at: 3010, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000C00002A9F00000000001F7C40", host: PRODUCER }),
      ...trace.consume({ at: 3100, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 3100, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 3115, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 3160, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-b:1", queueOffset: 5120, dedupKey: `pay:${KEY}` }),
    ];
    const context = [client.producerResend({ at: 3005, queue: "broker-a:3", instance: `${PRODUCER}@777` })];
    const v = only(events, context);
    assert.equal(v.cause, "producer_retry");
    assert.ok(v.confidence >= 0.9);
    assert.deepEqual(v.instances, { first: A, second: B });
    assert.equal(v.gapClass, "ms");
    assert.equal(v.outcome, "caught");
    assert.equal(v.layer, "redis");
    for (const code of ["stored_copies", "within_send_window", "copies_differ", "send_failed_then_retried", "producer_resend_logged"]) assert.ok(codes(v).includes(code as never), code);
  });

  it("names an upstream resend: a new msgId for the same business key", () => {
    const second = "0A000005216C18B4AAC27A9E2F010099";
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 50, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 50, bizKey: KEY, msgId: MSG, group: GROUP, instance: A }),
      trace.pub({ at: 41 * SEC, bizKey: KEY, msgId: second, offsetMsgId: "0A00000B00002A9F000000000004AB10", host: "10.0.0.21" }),
      ...trace.consume({ at: 41 * SEC + 40, bizKey: KEY, msgId: second, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 41 * SEC + 42, bizKey: KEY, msgId: second, group: GROUP, instance: B, layer: "redis", decision: "hit", dedupKey: `pay:${KEY}` }),
    ];
    const v = only(events);
    assert.equal(v.cause, "upstream_resend");
    assert.deepEqual(v.msgIds, { first: MSG, second });
    assert.ok(codes(v).includes("published_twice"));
    assert.equal(v.gapClass, "seconds");
    assert.equal(v.outcome, "caught");
  });

  it("names a rebalance: the old owner gave the queue up mid-consume and lived on, the new owner took it", () => {
    const events = [
      trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 1690, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 1692, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 88123, dedupKey: `pay:${KEY}` }),
    ];
    const context = [
      broker.lifecycle("connected", { at: 1000, group: GROUP, instance: "10.0.0.9@301" }),
      client.rebalance("remove", { at: 1201, group: GROUP, queue: "broker-a:3", instance: A }),
      client.rebalance("add", { at: 1204, group: GROUP, queue: "broker-a:3", instance: B }),
      client.processQueueDropped({ at: 1380, queue: "broker-a:3", instance: A, msgId: MSG, queueOffset: 88123, keys: [KEY] }),
      client.rebalance("remove", { at: 40 * SEC, group: GROUP, queue: "broker-a:1", instance: A }),
    ];
    const v = only(events, context);
    assert.equal(v.cause, "rebalance");
    assert.ok(v.confidence >= 0.9);
    assert.deepEqual(v.instances, { first: A, second: B });
    assert.equal(v.sameInstance, false);
    for (const code of ["same_copy", "queue_dropped_mid_consume", "queue_moved", "member_joined", "owner_still_alive"]) assert.ok(codes(v).includes(code as never), code);
  });

  it("names a lost ACK: the old owner vanished without a shutdown and the broker dropped its channel", () => {
    const events = [
      trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 9 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 9 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 88123, dedupKey: `pay:${KEY}` }),
    ];
    const context = [
      client.rebalance("add", { at: -60 * SEC, group: GROUP, queue: "broker-a:3", instance: A }),
      broker.lifecycle("channel_inactive", { at: 7400, group: GROUP, instance: A }),
      client.rebalance("add", { at: 8500, group: GROUP, queue: "broker-a:3", instance: B }),
    ];
    const v = only(events, context);
    assert.equal(v.cause, "ack_lost");
    assert.ok(v.confidence >= 0.8);
    assert.equal(v.gapClass, "seconds");
    const lost = v.evidence.find((e) => e.code === "channel_lost")!;
    assert.equal(lost.coarse, true, "the broker line is stamped to the second");
    assert.ok(codes(v).includes("no_shutdown"));
  });

  it("names a consume timeout: the expired message was sent back and came again as retry 1 about 10 s later", () => {
    const events = [
      trace.pub({ at: -100, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", costTime: 15 * MIN + 20 * SEC, contextCode: 1 }),
      dedup({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "pass", ttlMs: 86_400_000, dedupKey: `pay:${KEY}` }),
      dedup({ at: 15 * MIN + 19 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "executed", dedupKey: `pay:${KEY}` }),
      client.expireMsgBack({ at: 15 * MIN + 1 * SEC, instance: A, msgId: MSG, queueOffset: 88123, queueId: 3 }),
      ...trace.consume({ at: 15 * MIN + 11 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7", retryTimes: 1 }),
      dedup({ at: 15 * MIN + 11 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", retryTimes: 1, dedupKey: `pay:${KEY}` }),
    ];
    const v = only(events);
    assert.equal(v.cause, "consume_timeout");
    const vias = v.evidence.filter((e) => e.code === "consume_timed_out").map((e) => (e.values as { via: string }).via);
    assert.deepEqual(vias.sort(), ["expire_msg_back", "trace"]);
    assert.ok(codes(v).includes("retry_on_schedule"));
    assert.equal(v.outcome, "caught");
  });

  it("names a retry after failure: the side effect committed, then the consume failed, and the retry ran again", () => {
    const events = [
      trace.pub({ at: -100, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", costTime: 60, contextCode: 2 }),
      dedup({ at: 3, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "db", decision: "pass", dedupKey: `uk_order:${KEY}` }),
      dedup({ at: 40, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "db", decision: "executed", dedupKey: `uk_order:${KEY}` }),
      client.consumeException({ at: 58, group: GROUP, queue: "broker-a:3", instance: A, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", queueOffset: 88123, retryTimes: 0, keys: [KEY] }),
      ...trace.consume({ at: 10 * SEC + 80, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", retryTimes: 1 }),
      dedup({ at: 10 * SEC + 83, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "db", decision: "hit", retryTimes: 1, dedupKey: `uk_order:${KEY}` }),
    ];
    const v = only(events);
    assert.equal(v.cause, "retry_after_failure");
    assert.ok(v.confidence >= 0.9);
    assert.equal(v.sameInstance, true);
    assert.ok(codes(v).includes("effect_before_failure"));
    assert.ok(codes(v).includes("retry_on_schedule"));
    assert.equal(v.outcome, "caught");
    assert.equal(v.layer, "db");
  });

  it("names a DLQ replay: a dead-lettered copy consumed directly hours after its last retry failed", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", retryTimes: 16, contextCode: 2 }),
      dedup({ at: 3, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "state", decision: "pass", retryTimes: 16 }),
      dedup({ at: 20, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "state", decision: "executed", retryTimes: 16 }),
      client.consumeDirectly({ at: 3 * 3600 * SEC, queue: "broker-a:0", instance: A, msgId: MSG, offsetMsgId: "0A00000200002A9F0000000000A8C3D0", queueOffset: 12, retryTimes: 16, keys: [KEY] }),
      dedup({ at: 3 * 3600 * SEC + 4, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "state", decision: "hit", retryTimes: 16 }),
    ];
    const v = only(events);
    assert.equal(v.cause, "dlq_replay");
    assert.equal(v.gapClass, "minutes");
    assert.ok(codes(v).includes("consumed_directly"));
    assert.ok(codes(v).includes("retries_exhausted"));
    assert.equal(v.layer, "state");
  });

  it("names a delayed-message double write: one Delay_Msg publish, two stored copies, no producer resend", () => {
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER, msgType: "Delay_Msg" }),
      ...trace.consume({ at: 60 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 60 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:1", queueOffset: 310 }),
      ...trace.consume({ at: 62 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 62 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:1", queueOffset: 311, dedupKey: `pay:${KEY}` }),
    ];
    const v = only(events);
    assert.equal(v.cause, "delayed_double_write");
    assert.ok(codes(v).includes("delay_message"));
    assert.ok(codes(v).includes("copies_differ"));
  });

  it("names a transaction check-back: committed by the producer and again by the broker's check-back", () => {
    const topic = "ORDER_CREATED";
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003F4D0", host: PRODUCER, topic, msgType: "Trans_Msg_Half" }),
      trace.endTransaction({ at: 6, bizKey: KEY, msgId: MSG, host: PRODUCER, state: "COMMIT_MESSAGE", fromCheck: false }),
      ...trace.consume({ at: 120, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 120, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:2", queueOffset: 70 }),
      trace.endTransaction({ at: 60 * SEC + 15, bizKey: KEY, msgId: MSG, host: PRODUCER, state: "COMMIT_MESSAGE", fromCheck: true }),
      ...trace.consume({ at: 60 * SEC + 200, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 60 * SEC + 202, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:2", queueOffset: 71, dedupKey: `pay:${KEY}` }),
    ];
    const context = [broker.checkTransaction({ at: 60 * SEC, msgId: MSG, topic })];
    const v = only(events, context);
    assert.equal(v.cause, "transaction_checkback");
    assert.ok(v.confidence >= 0.9);
    const check = v.evidence.find((e) => e.code === "tx_checkback")!;
    assert.equal(check.coarse, true);
  });

  it("names the cause of a redelivered producer-retry copy from that copy's own history, and pairs it with the delivery that ran", () => {
    const C = "10.0.0.9@301";
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER, success: false, costTime: 2950 }),
      trace.pub({ at: 2960, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000C00002A9F00000000001F7C40", host: PRODUCER }),
      ...trace.consume({ at: 3000, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 3000, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 3050, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 3052, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-b:1", queueOffset: 5120, dedupKey: `pay:${KEY}` }),
      ...trace.consume({ at: 5000, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.9" }),
      dedup({ at: 5002, bizKey: KEY, msgId: MSG, group: GROUP, instance: C, layer: "redis", decision: "hit", queue: "broker-b:1", queueOffset: 5120, dedupKey: `pay:${KEY}` }),
    ];
    const context = [client.rebalance("remove", { at: 4800, group: GROUP, queue: "broker-b:1", instance: B }), client.rebalance("add", { at: 4810, group: GROUP, queue: "broker-b:1", instance: C })];
    const result = diagnoseKey({ bizKey: KEY, events, context });
    assert.deepEqual(result.duplicates.map((v) => [v.cause, v.deliveries, v.instances.first, v.instances.second]), [
      ["producer_retry", ["d1", "d2"], A, B],
      ["rebalance", ["d1", "d3"], A, C],
    ]);
  });

  it("gives the retry of a duplicate that failed cleanly the duplicate's own cause", () => {
    const common = { bizKey: KEY, msgId: MSG, group: GROUP, layer: "none" as const };
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      dedup({ ...common, at: 30, instance: A, decision: "executed", queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 9 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7", contextCode: 4, costTime: 500 }),
      dedup({ ...common, at: 9 * SEC + 490, instance: B, decision: "failed", queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 19 * SEC + 600, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7", retryTimes: 1 }),
      dedup({ ...common, at: 19 * SEC + 640, instance: B, decision: "executed", retryTimes: 1, queue: "broker-b:0", queueOffset: 12 }),
    ];
    const context = [client.rebalance("add", { at: -60 * SEC, group: GROUP, queue: "broker-a:3", instance: A }), broker.lifecycle("channel_inactive", { at: 4 * SEC, group: GROUP, instance: A })];
    const result = diagnoseKey({ bizKey: KEY, events, context });
    assert.deepEqual(result.duplicates.map((v) => [v.cause, v.deliveries, v.outcome]), [
      ["ack_lost", ["d1", "d2"], "leaked"],
      ["ack_lost", ["d1", "d3"], "leaked"],
    ]);
    assert.deepEqual(valuesOf(result.duplicates[1]!.evidence, "inherited"), { delivery: "d2", cause: "ack_lost" });
  });

  it("does not take a resend the producer logged for another message as this message's retry", () => {
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER, msgType: "Delay_Msg" }),
      ...trace.consume({ at: 10 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 10 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:1", queueOffset: 310 }),
      ...trace.consume({ at: 12 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 12 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:1", queueOffset: 311, dedupKey: `pay:${KEY}` }),
    ];
    const context = [client.producerResend({ at: -4000, queue: "broker-b:2", instance: `${PRODUCER}@777` })];
    const v = only(events, context);
    assert.equal(v.cause, "delayed_double_write");
    assert.ok(!codes(v).includes("producer_resend_logged"));
  });

  it("says unknown when nothing tells a rebalance from a lost ACK, and names the missing logs", () => {
    const events = [
      trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 25 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 25 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 88123, dedupKey: `pay:${KEY}` }),
    ];
    const result = diagnoseKey({ bizKey: KEY, events, context: [] });
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "unknown");
    assert.equal(v.confidence, 0);
    assert.ok(codes(v).includes("same_copy"));
    const missing = result.missing.map((m) => `${m.code}:${m.instance ?? m.group ?? ""}`);
    assert.ok(missing.includes(`no_client_log:${A}`));
    assert.ok(missing.includes(`no_client_log:${B}`));
    assert.ok(missing.includes(`no_broker_log:${GROUP}`));
  });
});
