import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import type { Verdict } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { broker, client, dedup, MIN, redisOnce, SEC, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

const KEY = "PAY-7781";
const MSG = "0A000005216C18B4AAC27A9E2B100002";
const GROUP = "pay-consumer";
const PRODUCER = "10.0.0.20";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";
const QUEUE = "broker-a:3";

function verdict(events: NormalizedEvent[], context: NormalizedEvent[]): Verdict {
  const result = diagnoseKey({ bizKey: KEY, events, context });
  assert.equal(result.duplicates.length, 1);
  return result.duplicates[0]!;
}

const codes = (v: Verdict) => v.evidence.map((e) => e.code);

/** One copy consumed on A at `firstAt`, the same copy redelivered to B at `secondAt` and caught by Redis. */
function redelivery(firstAt: number, secondAt: number, secondInstance = B, secondHost = "10.0.0.7"): NormalizedEvent[] {
  return [
    trace.pub({ at: firstAt - 300, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER }),
    ...trace.consume({ at: firstAt, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
    ...redisOnce({ at: firstAt, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: QUEUE, queueOffset: 88123 }),
    ...trace.consume({ at: secondAt, bizKey: KEY, msgId: MSG, group: GROUP, host: secondHost }),
    dedup({ at: secondAt + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: secondInstance, layer: "redis", decision: "hit", queue: QUEUE, queueOffset: 88123, dedupKey: `pay:${KEY}` }),
  ];
}

describe("rebalance vs lost ACK: both redeliver the same copy to another instance", () => {
  const events = redelivery(0, 9 * SEC);
  const before = client.rebalance("add", { at: -60 * SEC, group: GROUP, queue: QUEUE, instance: A });
  const takeover = client.rebalance("add", { at: 8500, group: GROUP, queue: QUEUE, instance: B });

  it("is a rebalance when the old owner logged giving the queue up and kept running", () => {
    const context = [
      before,
      broker.lifecycle("connected", { at: 8 * SEC, group: GROUP, instance: "10.0.0.9@301" }),
      client.rebalance("remove", { at: 8490, group: GROUP, queue: QUEUE, instance: A }),
      takeover,
      client.rebalance("add", { at: 40 * SEC, group: GROUP, queue: "broker-b:0", instance: A }),
    ];
    const v = verdict(events, context);
    assert.equal(v.cause, "rebalance");
    assert.ok(codes(v).includes("queue_moved"));
    assert.ok(codes(v).includes("owner_still_alive"));
    assert.ok(!codes(v).includes("channel_lost"));
  });

  it("is a lost ACK when the old owner vanished: no shutdown, the broker expired its channel, only the new owner logged", () => {
    const context = [before, broker.lifecycle("channel_expired", { at: 7 * SEC, group: GROUP, instance: "10.0.0.5" }), takeover];
    const v = verdict(events, context);
    assert.equal(v.cause, "ack_lost");
    assert.ok(codes(v).includes("channel_lost"));
    assert.ok(codes(v).includes("no_shutdown"));
  });

  it("is a lost ACK when the old process was killed and restarted on the same host with a new pid", () => {
    const restarted = "10.0.0.5@9001";
    const again = redelivery(0, 9 * SEC, restarted, "10.0.0.5");
    const context = [
      before,
      broker.lifecycle("channel_inactive", { at: 2 * SEC, group: GROUP, instance: A }),
      client.lifecycle("start", { at: 8 * SEC, group: GROUP, instance: restarted }),
      client.rebalance("add", { at: 8500, group: GROUP, queue: QUEUE, instance: restarted }),
    ];
    const v = verdict(again, context);
    assert.equal(v.cause, "ack_lost");
    assert.equal(v.sameInstance, false, "same host, different pid: two processes");
    assert.ok(codes(v).includes("process_restarted"));
  });

  it("is a rebalance when both held the queue for a while and the old owner consumed second, giving the queue up afterwards", () => {
    // B took the queue at 8.5 s and consumed at 9 s; A missed the notification, consumed the same copy at 9.2 s and
    // gave the queue up at its next 20 s tick.
    const events = [
      trace.pub({ at: 8700, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER }),
      ...trace.consume({ at: 9 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      ...redisOnce({ at: 9 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, queue: QUEUE, queueOffset: 88200 }),
      ...trace.consume({ at: 9200, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      dedup({ at: 9202, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "hit", queue: QUEUE, queueOffset: 88200, dedupKey: `pay:${KEY}` }),
    ];
    const context = [before, broker.lifecycle("connected", { at: 8 * SEC, group: GROUP, instance: B }), takeover, client.rebalance("remove", { at: 27 * SEC, group: GROUP, queue: QUEUE, instance: A })];
    const v = verdict(events, context);
    assert.equal(v.cause, "rebalance");
    assert.deepEqual(v.instances, { first: B, second: A });
    const moved = valuesOf(v.evidence, "queue_moved");
    assert.deepEqual([moved.from, moved.to], [A, B]);
  });

  it("is a rebalance, not a lost ACK, when the old owner shut down cleanly", () => {
    const context = [
      before,
      client.lifecycle("shutdown", { at: 8 * SEC, group: GROUP, instance: A }),
      broker.lifecycle("unregistered", { at: 8 * SEC, group: GROUP, instance: A }),
      takeover,
    ];
    const v = verdict(events, context);
    assert.equal(v.cause, "rebalance");
    assert.ok(codes(v).includes("member_left"));
  });
});

describe("producer retry vs upstream resend: two copies of one key two seconds apart", () => {
  const consumeTwice = (secondMsg: string) => [
    ...trace.consume({ at: 2100, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
    ...redisOnce({ at: 2100, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: QUEUE, queueOffset: 88123 }),
    ...trace.consume({ at: 4200, bizKey: KEY, msgId: secondMsg, group: GROUP, host: "10.0.0.7" }),
    dedup({ at: 4202, bizKey: KEY, msgId: secondMsg, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-b:1", queueOffset: 5120, dedupKey: `pay:${KEY}` }),
  ];

  it("is a producer retry when the msgId is the same and the stored copies differ", () => {
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER, success: false, costTime: 2000 }),
      trace.pub({ at: 2050, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000C00002A9F00000000001F7C40", host: PRODUCER }),
      ...consumeTwice(MSG),
    ];
    assert.equal(verdict(events, []).cause, "producer_retry");
  });

  it("is an upstream resend when the second copy has a new msgId, even from the same producer within seconds", () => {
    const other = "0A000005216C18B4AAC27A9E2B100777";
    const events = [
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER }),
      trace.pub({ at: 2050, bizKey: KEY, msgId: other, offsetMsgId: "0A00000C00002A9F00000000001F7C40", host: PRODUCER }),
      ...consumeTwice(other),
    ];
    const v = verdict(events, []);
    assert.equal(v.cause, "upstream_resend");
    assert.ok(codes(v).includes("different_msg_ids"));
  });
});

describe("retry after failure vs consume timeout: both come back as retry 1", () => {
  const attempt = (contextCode: number, costTime: number) => [
    trace.pub({ at: -100, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER }),
    ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", contextCode, costTime }),
    dedup({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "pass", ttlMs: 86_400_000, dedupKey: `pay:${KEY}` }),
    dedup({ at: 30, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "executed", dedupKey: `pay:${KEY}` }),
    ...trace.consume({ at: costTime + 10 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7", retryTimes: 1 }),
    dedup({ at: costTime + 10 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", retryTimes: 1, dedupKey: `pay:${KEY}` }),
  ];

  it("is a retry after failure when the first attempt ended in EXCEPTION after its side effect", () => {
    const v = verdict(attempt(2, 60), []);
    assert.equal(v.cause, "retry_after_failure");
    assert.ok(codes(v).includes("effect_before_failure"));
  });

  it("is a consume timeout when the first attempt ended in TIME_OUT", () => {
    const v = verdict(attempt(1, 15 * MIN + 3 * SEC), []);
    assert.equal(v.cause, "consume_timeout");
    assert.ok(!codes(v).includes("effect_before_failure"));
  });

  it("is a consume timeout when only the client log's send-expire line says so", () => {
    const events = attempt(0, 15 * MIN + 3 * SEC).filter((e) => e.kind !== "consume_end");
    events.push(client.expireMsgBack({ at: 15 * MIN + 1 * SEC, instance: A, msgId: MSG, queueOffset: 88123, queueId: 3 }));
    const v = verdict(events, []);
    assert.equal(v.cause, "consume_timeout");
  });
});

describe("clock skew of ±2 s between instances", () => {
  for (const skew of [-2000, 2000]) {
    it(`keeps a rebalance a rebalance when the new owner's clock is ${skew > 0 ? "ahead" : "behind"} by 2 s`, () => {
      const events = [
        trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003EB10", host: PRODUCER }),
        ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
        ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: QUEUE, queueOffset: 88123 }),
        // B's records are stamped by B's clock.
        ...trace.consume({ at: 1690 + skew, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
        dedup({ at: 1692 + skew, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: QUEUE, queueOffset: 88123, dedupKey: `pay:${KEY}` }),
      ];
      const context = [
        client.rebalance("remove", { at: 1201, group: GROUP, queue: QUEUE, instance: A }),
        client.rebalance("add", { at: 1204 + skew, group: GROUP, queue: QUEUE, instance: B }),
        client.processQueueDropped({ at: 1380, queue: QUEUE, instance: A, msgId: MSG, queueOffset: 88123, keys: [KEY] }),
      ];
      const result = diagnoseKey({ bizKey: KEY, events, context });
      assert.equal(result.duplicates.length, 1);
      const v = result.duplicates[0]!;
      assert.equal(v.cause, "rebalance");
      assert.deepEqual(v.instances, { first: A, second: B }, "the hit on B follows the pass on A whatever the clocks say");
      assert.equal(codes(v).includes("reordered"), skew < 0);
      assert.equal(v.outcome, "caught");
    });
  }

  it("orders a retry after the attempt it retries when the retrying host's clock is behind", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", contextCode: 2, costTime: 800 }),
      ...trace.consume({ at: -1500, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7", retryTimes: 1 }),
    ];
    const result = diagnoseKey({ bizKey: KEY, events, context: [] });
    assert.deepEqual(result.deliveries.map((d) => d.retryTimes), [0, 1]);
    assert.equal(result.duplicates[0]?.cause, "retry_after_failure");
    assert.ok(result.duplicates[0]!.evidence.some((e) => e.code === "reordered"));
  });
});

describe("broker lines stamped to the second", () => {
  it("uses a channel line whose second precedes the millisecond delivery, and says the conclusion rests on it", () => {
    // A consumed at 12:00:00.400 and died at ~.700; the broker printed 12:00:00.
    const events = redelivery(400, 6 * SEC);
    const context = [client.rebalance("add", { at: -60 * SEC, group: GROUP, queue: QUEUE, instance: A }), broker.lifecycle("channel_inactive", { at: 700, group: GROUP, instance: A })];
    const v = verdict(events, context);
    assert.equal(v.cause, "ack_lost");
    const lost = v.evidence.find((e) => e.code === "channel_lost")!;
    assert.equal(lost.coarse, true);
    assert.match(describeEvidence(lost), /at 12:00:00 \(connection closed without unregistering\) \(broker time, to the second\)$/);
    assert.match(describeEvidence(lost, { locale: "zh-CN" }), /broker 时间只精确到秒/);
  });

  it("ignores a channel line from well before the first delivery", () => {
    const events = redelivery(20 * SEC, 26 * SEC);
    const context = [broker.lifecycle("channel_inactive", { at: 5 * SEC, group: GROUP, instance: A })];
    const v = verdict(events, context);
    assert.notEqual(v.cause, "ack_lost");
  });
});
