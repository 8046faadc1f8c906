import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { KeyDiagnosis, Verdict } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { broker, client, dedup, SEC, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-100298";
const MSG = "0A0803114A1918B4AAC27E5F0B110003";
const GROUP = "GID_points_award";
const A = "10.8.3.17@23817";
const B = "10.8.3.18@4102";
const QUEUE = "broker-b:1";

const diagnose = (events: NormalizedEvent[], context: NormalizedEvent[] = []): KeyDiagnosis => diagnoseKey({ bizKey: KEY, events, context });

function single(events: NormalizedEvent[], context: NormalizedEvent[] = []): Verdict {
  const result = diagnose(events, context);
  assert.equal(result.duplicates.length, 1);
  return result.duplicates[0]!;
}

type Layer = "bloom" | "redis" | "db" | "state" | "none";

/** One delivery's dedup lines: a pass on each layer, then executed (or the given ending). */
function run(o: { at: number; instance: string; layers: Layer[]; end: "executed" | "failed" | "hit" | "none"; msgId?: string; retryTimes?: number; ttlMs?: number; dedupKey?: string; queueOffset?: number }): NormalizedEvent[] {
  const common = { bizKey: KEY, msgId: o.msgId ?? MSG, group: GROUP, instance: o.instance, retryTimes: o.retryTimes ?? 0, queue: QUEUE, queueOffset: o.queueOffset ?? 512007, ...(o.dedupKey === undefined ? {} : { dedupKey: o.dedupKey }) };
  const lines: NormalizedEvent[] = [];
  let t = o.at;
  const last = o.layers[o.layers.length - 1]!;
  for (const layer of o.layers) {
    if (o.end === "hit" && layer === last) {
      lines.push(dedup({ ...common, at: t, layer, decision: "hit" }));
      return lines;
    }
    lines.push(dedup({ ...common, at: t, layer, decision: "pass", ...(o.ttlMs !== undefined && layer === "redis" ? { ttlMs: o.ttlMs } : {}) }));
    t += 2;
  }
  if (o.end !== "none") lines.push(dedup({ ...common, at: t + 40, layer: last, decision: o.end as "executed" | "failed" }));
  return lines;
}

/** A redelivery of the same copy from A to B after A's channel was dropped (an ack_lost duplicate). */
function ackLostAt(gapMs: number): { events: NormalizedEvent[]; context: NormalizedEvent[] } {
  return {
    events: [...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17" }), ...trace.consume({ at: gapMs, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18" })],
    context: [broker.lifecycle("channel_inactive", { at: 1000, group: GROUP, instance: A })],
  };
}

describe("outcome of a duplicate", () => {
  for (const layer of ["bloom", "redis", "db", "state"] as const) {
    it(`is caught by ${layer} when that layer said hit on the second delivery`, () => {
      const { events, context } = ackLostAt(20 * SEC);
      const layers: Layer[] = layer === "bloom" ? ["bloom"] : ["bloom", layer];
      events.push(...run({ at: 2, instance: A, layers: ["bloom", layer === "bloom" ? "redis" : layer], end: "executed" }));
      events.push(...run({ at: 20 * SEC + 2, instance: B, layers, end: "hit" }));
      const v = single(events, context);
      assert.equal(v.outcome, "caught");
      assert.equal(v.layer, layer);
      assert.equal(v.defect, undefined);
    });
  }

  it("is leaked when the business ran twice, with no layer at all: no durable layer", () => {
    const { events, context } = ackLostAt(20 * SEC);
    events.push(...run({ at: 2, instance: A, layers: ["none"], end: "executed" }), ...run({ at: 20 * SEC + 2, instance: B, layers: ["none"], end: "executed" }));
    const v = single(events, context);
    assert.equal(v.outcome, "leaked");
    assert.equal(v.defect, "no_durable_layer");
    assert.ok(v.evidence.some((e) => e.code === "executed_twice"));
  });

  it("is unknown when no dedup log covers the group, and says the log is missing", () => {
    const { events, context } = ackLostAt(20 * SEC);
    const result = diagnose(events, context);
    assert.equal(result.duplicates[0]?.outcome, "unknown");
    assert.ok(result.missing.some((m) => m.code === "no_dedup_log" && m.group === GROUP));
  });

  it("never reports a delivery that passed every layer as caught", () => {
    const { events, context } = ackLostAt(20 * SEC);
    events.push(...run({ at: 2, instance: A, layers: ["bloom", "redis"], end: "executed", ttlMs: 86_400_000 }));
    events.push(...run({ at: 20 * SEC + 2, instance: B, layers: ["bloom", "redis"], end: "executed", ttlMs: 86_400_000 }));
    const v = single(events, context);
    assert.equal(v.outcome, "leaked");
    assert.equal(v.layer, undefined);
  });
});

describe("defect behind a leak", () => {
  it("dedup key not business key: an upstream resend with a new msgId passed a marker keyed on the msgId", () => {
    const other = "0A0803114A1918B4AAC27E5F0B110777";
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17" }),
      ...run({ at: 2, instance: A, layers: ["redis"], end: "executed", dedupKey: `points:${MSG}`, ttlMs: 86_400_000 }),
      ...trace.consume({ at: 30 * SEC, bizKey: KEY, msgId: other, group: GROUP, host: "10.8.3.18" }),
      ...run({ at: 30 * SEC + 2, instance: B, msgId: other, layers: ["redis"], end: "executed", dedupKey: `points:${other}`, ttlMs: 86_400_000, queueOffset: 512990 }),
    ];
    const v = single(events);
    assert.equal(v.cause, "upstream_resend");
    assert.equal(v.outcome, "leaked");
    assert.equal(v.defect, "dedup_key_not_business_key");
    assert.ok(v.evidence.some((e) => e.code === "dedup_key_is_msg_id"));
  });

  it("marker expired: the redelivery came 47 s after a 30 s Redis marker, with nothing durable behind it", () => {
    const { events, context } = ackLostAt(47 * SEC);
    events.push(...run({ at: 2, instance: A, layers: ["redis"], end: "executed", ttlMs: 30_000 }), ...run({ at: 47 * SEC + 2, instance: B, layers: ["redis"], end: "executed", ttlMs: 30_000 }));
    const v = single(events, context);
    assert.equal(v.defect, "marker_expired");
    const gap = v.evidence.find((e) => e.code === "gap_over_ttl")!;
    assert.deepEqual(gap.values, { gapMs: 47_000, ttlMs: 30_000, layer: "redis" });
  });

  it("non-atomic check: two instances passed the same marker 6 ms apart and both executed", () => {
    const events = [
      trace.pub({ at: -3000, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: "10.8.1.2", success: false, costTime: 3000 }),
      trace.pub({ at: 10, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000C00002A9F00000000001F7C40", host: "10.8.1.2" }),
      ...trace.consume({ at: 100, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17" }),
      ...run({ at: 102, instance: A, layers: ["redis"], end: "executed", ttlMs: 86_400_000 }),
      ...trace.consume({ at: 106, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18" }),
      ...run({ at: 108, instance: B, layers: ["redis"], end: "executed", ttlMs: 86_400_000, queueOffset: 9001 }),
    ];
    const v = single(events);
    assert.equal(v.cause, "producer_retry");
    assert.equal(v.defect, "non_atomic_check");
    assert.equal(v.gapClass, "ms");
  });

  it("async ack: the first consumer acknowledged before its business committed, and the copy slipped past the state check", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", costTime: 15 }),
      dedup({ at: 700, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "state", decision: "pass", queue: QUEUE, queueOffset: 512007 }),
      dedup({ at: 2400, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "state", decision: "executed", queue: QUEUE, queueOffset: 512007 }),
      ...trace.consume({ at: 1500, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18", costTime: 15 }),
      dedup({ at: 1900, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "state", decision: "pass", queue: QUEUE, queueOffset: 512007 }),
      dedup({ at: 2600, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "state", decision: "executed", queue: QUEUE, queueOffset: 512007 }),
    ];
    const context = [client.rebalance("remove", { at: 1200, group: GROUP, topic: "PAY_SUCCESS", queue: QUEUE, instance: A }), client.rebalance("add", { at: 1300, group: GROUP, topic: "PAY_SUCCESS", queue: QUEUE, instance: B })];
    const v = single(events, context);
    assert.equal(v.cause, "rebalance");
    assert.equal(v.defect, "async_ack");
    assert.ok(v.evidence.some((e) => e.code === "acked_before_effect"));
  });

  it("marker expired also when the gap is a little under the TTL by the clocks of two hosts (within the skew)", () => {
    const { events, context } = ackLostAt(29_800);
    events.push(...run({ at: 2, instance: A, layers: ["redis"], end: "executed", ttlMs: 30_000 }), ...run({ at: 29_802, instance: B, layers: ["redis"], end: "executed", ttlMs: 30_000 }));
    const v = single(events, context);
    assert.equal(v.defect, "marker_expired");
    assert.equal(v.evidence.find((e) => e.code === "gap_over_ttl")?.tolerant, true);
  });

  it("no durable layer: the marker vanished within its TTL (a Redis failover) and only Redis guarded the business", () => {
    const { events, context } = ackLostAt(20 * SEC);
    events.push(...run({ at: 2, instance: A, layers: ["redis"], end: "executed", ttlMs: 86_400_000 }), ...run({ at: 20 * SEC + 2, instance: B, layers: ["redis"], end: "executed", ttlMs: 86_400_000 }));
    const v = single(events, context);
    assert.equal(v.defect, "no_durable_layer");
    assert.deepEqual(v.evidence.filter((e) => e.role === "defect").map((e) => e.code), ["gap_within_ttl", "only_volatile_layers"]);
  });
});

describe("retries and lost messages", () => {
  it("counts a retry after a clean failure as a normal retry, not a duplicate", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", contextCode: 4, costTime: 530 }),
      ...run({ at: 2, instance: A, layers: ["redis"], end: "failed", ttlMs: 86_400_000 }),
      dedup({ at: 540, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "released", queue: QUEUE, queueOffset: 512007 }),
      ...trace.consume({ at: 10 * SEC + 600, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", retryTimes: 1 }),
      ...run({ at: 10 * SEC + 602, instance: A, layers: ["redis"], end: "executed", retryTimes: 1, ttlMs: 86_400_000, queueOffset: 77 }),
    ];
    const result = diagnose(events);
    assert.deepEqual(result.duplicates, []);
    assert.deepEqual(result.normalRetries, [{ group: GROUP, delivery: "d2", after: "d1" }]);
    assert.deepEqual(result.lost, []);
    assert.equal(result.groups[0]?.normalRetries, 1);
  });

  it("flags a lost message when a failed attempt left its marker and the retry was skipped, with no duplicate at all", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", contextCode: 4, costTime: 700 }),
      ...run({ at: 2, instance: A, layers: ["redis"], end: "failed", ttlMs: 86_400_000 }),
      ...trace.consume({ at: 10 * SEC + 700, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18", retryTimes: 1 }),
      ...run({ at: 10 * SEC + 702, instance: B, layers: ["redis"], end: "hit", retryTimes: 1, queueOffset: 78 }),
    ];
    const result = diagnose(events);
    assert.deepEqual(result.duplicates, []);
    assert.equal(result.normalRetries.length, 1);
    assert.equal(result.lost.length, 1);
    const lost = result.lost[0]!;
    assert.equal(lost.defect, "marker_not_released");
    assert.deepEqual(lost.deliveries, ["d1", "d2"]);
    assert.deepEqual(lost.evidence.map((e) => e.code), ["marker_left", "retry_skipped", "never_executed"]);
  });

  it("treats an attempt that passed the dedup layers and never finished as having no effect: the skipped redelivery is a loss", () => {
    const events = [
      trace.consumeStart({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17" }),
      ...run({ at: 2, instance: A, layers: ["redis"], end: "none", ttlMs: 86_400_000 }),
      ...trace.consume({ at: 40 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18" }),
      ...run({ at: 40 * SEC + 2, instance: B, layers: ["redis"], end: "hit" }),
    ];
    const result = diagnose(events, [broker.lifecycle("channel_inactive", { at: 1000, group: GROUP, instance: A })]);
    assert.deepEqual(result.deliveries.map((d) => d.effect), ["unfinished", "skipped"]);
    assert.deepEqual(result.duplicates, []);
    assert.equal(result.lost[0]?.defect, "marker_not_released");
    assert.equal(valuesOf(result.lost[0]?.evidence, "marker_left").how, "unfinished");
  });

  it("does not blame an unreleased marker when the failed attempt released it", () => {
    const events = [
      ...run({ at: 0, instance: A, layers: ["redis"], end: "failed" }),
      dedup({ at: 50, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "released", queue: QUEUE, queueOffset: 512007 }),
      ...run({ at: 10 * SEC, instance: B, layers: ["redis"], end: "hit", retryTimes: 1, queueOffset: 78 }),
    ];
    const lost = diagnose(events).lost;
    assert.equal(lost.length, 1, "a hit with nothing ever executed is still a loss");
    assert.equal(lost[0]!.defect, undefined, "but not one caused by an unreleased marker");
  });
});
