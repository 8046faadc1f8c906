import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { broker, client, dedup, SEC, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

/**
 * Misreadings the simulator evaluation (bench/eval-diagnosis.ts) found, each reduced to the smallest event set that
 * shows it. Instances: the trace names a process by its host, the client and dedup logs by ip@pid.
 */

const KEY = "PAY-20261130-000332";
const MSG = "0A000B0B0F7A18B4AAC27A9E2A3F0001";
const GROUP = "cg_order_paid";
const A = { host: "10.0.11.11", id: "10.0.11.11@3962" };
const B = { host: "10.0.11.12", id: "10.0.11.12@7085" };
const C = { host: "10.0.11.13", id: "10.0.11.13@26778" };
const QUEUE = "broker-b:3";
const RETRY_QUEUE = "broker-b:0";

type Who = typeof A;
interface Attempt {
  at: number;
  who: Who;
  retryTimes?: number;
  queue: string;
  queueOffset: number;
}

const position = (a: Attempt) => ({ bizKey: KEY, msgId: MSG, group: GROUP, instance: a.who.id, retryTimes: a.retryTimes ?? 0, queue: a.queue, queueOffset: a.queueOffset, dedupKey: `paid:${KEY}` });
const consume = (a: Attempt, contextCode = 0) => trace.consume({ at: a.at, bizKey: KEY, msgId: MSG, group: GROUP, host: a.who.host, retryTimes: a.retryTimes ?? 0, contextCode });

/** Passed Redis and committed. */
function executes(a: Attempt): NormalizedEvent[] {
  return [...consume(a), dedup({ ...position(a), at: a.at + 2, layer: "redis", decision: "pass", ttlMs: 86_400_000 }), dedup({ ...position(a), at: a.at + 30, layer: "db", decision: "executed" })];
}

/** Passed Redis, failed cleanly and released the marker; `traced: false` when the SubAfter died with the process. */
function failsCleanly(a: Attempt, traced = true): NormalizedEvent[] {
  const start = traced ? consume(a, 2) : [trace.consumeStart({ at: a.at, bizKey: KEY, msgId: MSG, group: GROUP, host: a.who.host, retryTimes: a.retryTimes ?? 0 })];
  return [
    ...start,
    dedup({ ...position(a), at: a.at + 2, layer: "redis", decision: "pass", ttlMs: 86_400_000 }),
    dedup({ ...position(a), at: a.at + 30, layer: "db", decision: "failed" }),
    dedup({ ...position(a), at: a.at + 31, layer: "redis", decision: "released" }),
  ];
}

/** Skipped by a Redis hit. */
function hits(a: Attempt): NormalizedEvent[] {
  return [...consume(a), dedup({ ...position(a), at: a.at + 2, layer: "redis", decision: "hit" })];
}

describe("evaluation regressions", () => {
  it("hands a failure line to the attempt that began before it on its own clock, not to the next attempt of the round", () => {
    const first: Attempt = { at: 0, who: A, retryTimes: 9, queue: RETRY_QUEUE, queueOffset: 403 };
    const second: Attempt = { at: 2 * SEC + 740, who: A, retryTimes: 9, queue: RETRY_QUEUE, queueOffset: 404 };
    const events = [
      ...failsCleanly(first),
      client.consumeException({ at: 198, group: GROUP, queue: RETRY_QUEUE, instance: A.id, msgId: MSG, offsetMsgId: "0A00000200002A9F00000006CE985084", queueOffset: 403, retryTimes: 9, keys: [KEY] }),
      ...executes(second),
    ];
    const { deliveries } = diagnoseKey({ bizKey: KEY, events, context: [] });
    assert.deepEqual(
      deliveries.map((d) => [d.consume, d.effect]),
      [
        ["failed", "failed"],
        ["success", "executed"],
      ],
    );
  });

  it("takes the cause of a copy delivered again from that copy's earlier delivery, not from a second copy consumed in between", () => {
    const events = [
      trace.pub({ at: -30, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000300002A9F0000000890C48843", host: "10.0.2.21", success: false, costTime: 29 }),
      trace.pub({ at: 0, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000200002A9F000000042DE925CF", host: "10.0.2.21" }),
      ...executes({ at: 100, who: A, queue: QUEUE, queueOffset: 85_439 }),
      ...hits({ at: 400, who: B, queue: "broker-a:1", queueOffset: 644_650 }),
      ...hits({ at: 700, who: C, queue: QUEUE, queueOffset: 85_439 }),
    ];
    const context = [client.rebalance("remove", { at: 650, group: GROUP, queue: QUEUE, instance: A.id }), client.rebalance("add", { at: 660, group: GROUP, queue: QUEUE, instance: C.id })];
    const result = diagnoseKey({ bizKey: KEY, events, context });
    assert.deepEqual(
      result.duplicates.map((v) => [v.cause, v.deliveries]),
      [
        ["producer_retry", ["d1", "d2"]],
        ["rebalance", ["d1", "d3"]],
      ],
    );
  });

  it("names a retry that meets the other branch of a copy two consumers took the cause of that split", () => {
    // A fails the copy while a rebalance hands it to B, which commits it; A's retry then meets B's marker.
    const events = [
      ...failsCleanly({ at: 0, who: A, queue: QUEUE, queueOffset: 860_971 }),
      ...executes({ at: 330, who: B, queue: QUEUE, queueOffset: 860_971 }),
      ...hits({ at: 10 * SEC, who: B, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 233 }),
    ];
    const context = [client.rebalance("remove", { at: 250, group: GROUP, queue: QUEUE, instance: A.id }), client.rebalance("add", { at: 300, group: GROUP, queue: QUEUE, instance: B.id })];
    const result = diagnoseKey({ bizKey: KEY, events, context });
    assert.deepEqual(result.normalRetries.map((r) => r.delivery), ["d2"]);
    assert.deepEqual(result.duplicates.map((v) => [v.cause, v.deliveries]), [["rebalance", ["d2", "d3"]]]);
    assert.deepEqual(valuesOf(result.duplicates[0]!.evidence, "retry_chains_forked"), { first: "d1", second: "d2", retryTimes: 0, cause: "rebalance" });
  });

  it("traces two retry chains back to the lost ACK that forked them, rounds later", () => {
    // A is killed while failing the copy (its SubAfter dies with it); C takes the copy over and fails it too. The two
    // retry chains run side by side; when one commits, the other's next round is skipped.
    const events = [
      ...failsCleanly({ at: 0, who: A, queue: QUEUE, queueOffset: 586_598 }, false),
      ...failsCleanly({ at: 3 * SEC, who: C, queue: QUEUE, queueOffset: 586_598 }),
      ...failsCleanly({ at: 10 * SEC, who: C, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 441 }),
      ...executes({ at: 13 * SEC, who: C, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 442 }),
      ...hits({ at: 40 * SEC, who: C, retryTimes: 2, queue: RETRY_QUEUE, queueOffset: 455 }),
    ];
    const context = [broker.lifecycle("channel_inactive", { at: 1 * SEC, group: GROUP, instance: A.id }), client.rebalance("add", { at: 2 * SEC, group: GROUP, queue: QUEUE, instance: C.id })];
    const result = diagnoseKey({ bizKey: KEY, events, context });
    assert.deepEqual(result.duplicates.map((v) => [v.cause, v.deliveries]), [["ack_lost", ["d4", "d5"]]]);
    assert.deepEqual(valuesOf(result.duplicates[0]!.evidence, "retry_chains_forked"), { first: "d1", second: "d2", retryTimes: 0, cause: "ack_lost" });
  });

  it("orders a hit after the only pass that can have set its marker, although an earlier attempt had passed and released it", () => {
    // B's clock runs ahead: its hit reads 70 ms before C's pass, but A's marker was gone since A released it.
    const events = [
      ...failsCleanly({ at: 0, who: A, queue: QUEUE, queueOffset: 371 }),
      ...hits({ at: 10 * SEC, who: B, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 371 }),
      ...executes({ at: 10 * SEC + 70, who: C, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 371 }),
    ];
    const result = diagnoseKey({ bizKey: KEY, events, context: [] });
    assert.deepEqual(
      result.deliveries.map((d) => [d.id, d.instance, d.effect]),
      [
        ["d1", A.id, "failed"],
        ["d2", C.id, "executed"],
        ["d3", B.id, "skipped"],
      ],
    );
    assert.equal(result.deliveries[2]!.reordered, "dedup_order");
    assert.deepEqual(result.duplicates.map((v) => [v.deliveries, v.outcome]), [[["d2", "d3"], "caught"]]);
  });

  it("flags a message lost to a marker that its failing holder released only after another consumer was skipped by it", () => {
    const events = [...failsCleanly({ at: 0, who: A, queue: QUEUE, queueOffset: 490 }), ...hits({ at: 20, who: B, queue: QUEUE, queueOffset: 490 })];
    const [lost] = diagnoseKey({ bizKey: KEY, events, context: [] }).lost;
    assert.equal(lost?.defect, "marker_not_released");
    assert.equal(valuesOf(lost.evidence, "marker_left").how, "released_late");
  });

  it("does not blame a marker released well before the hit, beyond any clock skew", () => {
    const events = [...failsCleanly({ at: 0, who: A, queue: QUEUE, queueOffset: 490 }), ...hits({ at: 10 * SEC, who: B, retryTimes: 1, queue: RETRY_QUEUE, queueOffset: 12 })];
    const [lost] = diagnoseKey({ bizKey: KEY, events, context: [] }).lost;
    assert.ok(lost !== undefined && lost.defect === undefined);
  });
});
