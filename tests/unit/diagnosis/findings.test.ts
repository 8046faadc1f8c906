import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { summarizeFindings } from "../../../lib/diagnosis/findings.ts";
import { describeAdvice } from "../../../lib/i18n/diagnosis-text.ts";
import type { GroupFacts, KeyDiagnosis, Verdict } from "../../../lib/diagnosis/types.ts";
import type { Cause, Defect } from "../../../lib/diagnosis/vocabulary.ts";
import { client, dedup, MIN, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

const GROUP = "GID_points_award";
const TOPIC = "ORDER_PAID";

function verdict(cause: Cause, gapMs: number, outcome: Verdict["outcome"], defect?: Defect): Verdict {
  const v: Verdict = {
    group: GROUP,
    topic: TOPIC,
    cause,
    confidence: 0.9,
    evidence: [],
    gapMs,
    clockSkewMs: 0,
    gapClass: gapMs < 1000 ? "ms" : gapMs < 60_000 ? "seconds" : "minutes",
    instances: { first: "10.8.3.17@23817", second: "10.8.3.18@4102" },
    sameInstance: false,
    outcome,
    deliveries: ["d1", "d2"],
    msgIds: { first: "M", second: "M" },
  };
  if (outcome === "caught") v.layer = "redis";
  if (defect !== undefined) v.defect = defect;
  return v;
}

function key(bizKey: string, duplicates: Verdict[], facts: Partial<GroupFacts> = {}): KeyDiagnosis {
  return {
    bizKey,
    deliveries: [],
    duplicates,
    normalRetries: [],
    lost: [],
    missing: [],
    groups: [{ group: GROUP, topic: TOPIC, deliveries: duplicates.length + 1, duplicates: duplicates.length, normalRetries: 0, dedupCovered: true, layers: ["redis"], ttlMs: 30_000, maxConsumeMs: 4200, ...facts }],
  };
}

describe("findings per group and topic", () => {
  // 27 duplicated keys: 17 rebalances caught 1.2 s apart, 10 lost ACKs leaked 31–166 s later past a 30 s marker.
  const diagnoses = [
    ...Array.from({ length: 17 }, (_, i) => key(`R-${i}`, [verdict("rebalance", 1200, "caught")])),
    ...Array.from({ length: 10 }, (_, i) => key(`L-${i}`, [verdict("ack_lost", 31_000 + i * 15_000, "leaked", "marker_expired")])),
    key("N-1", [], { normalRetries: 2 }),
  ];
  // Three episodes in the hour: lines of one change come seconds apart.
  const rebalances = [0, 2 * SEC, 4 * SEC, 20 * MIN, 20 * MIN + 3 * SEC, 45 * MIN].map((at, i) =>
    client.rebalance(i % 2 === 0 ? "add" : "remove", { at, group: GROUP, queue: "broker-a:3", instance: "10.8.3.17@23817" }),
  );
  const [f, ...others] = summarizeFindings({ diagnoses, delivered: [{ group: GROUP, topic: TOPIC, keys: 2700 }], rebalances, period: { from: T0, to: T0 + 60 * MIN } });

  it("computes the duplicate rate from the delivered-key count", () => {
    assert.deepEqual(others, []);
    assert.equal(f!.keysDelivered, 2700);
    assert.equal(f!.keysWithDuplicates, 27);
    assert.equal(f!.duplicateRate, 0.01);
  });

  it("breaks duplicates down by cause, outcome and defect, and counts normal retries apart", () => {
    assert.equal(f!.causes.rebalance, 17);
    assert.equal(f!.causes.ack_lost, 10);
    assert.equal(f!.causes.producer_retry, 0);
    assert.deepEqual(f!.outcomes, { caught: 17, caughtBy: { bloom: 0, redis: 17, db: 0, state: 0 }, leaked: 10, unknown: 0 });
    assert.equal(f!.defects.marker_expired, 10);
    assert.equal(f!.normalRetries, 2);
  });

  it("describes the gap distribution per cause", () => {
    assert.deepEqual(f!.gaps.rebalance, { count: 17, ms: 0, seconds: 17, minutes: 0, p50Ms: 1200, p95Ms: 1200, maxMs: 1200 });
    assert.equal(f!.gaps.ack_lost?.seconds, 2);
    assert.equal(f!.gaps.ack_lost?.minutes, 8);
    assert.equal(f!.gaps.ack_lost?.maxMs, 166_000);
  });

  it("counts rebalance episodes, not lines, per hour", () => {
    assert.deepEqual(f!.rebalances, { episodes: 3, perHour: 3 });
  });

  it("advises from the data: the marker TTL against the observed redelivery gaps", () => {
    const ttl = f!.advice.find((a) => a.code === "marker_ttl_short");
    assert.ok(ttl !== undefined);
    assert.deepEqual(ttl.values, { ttlMs: 30_000, sharePct: 37, longestGapMs: 166_000, peakConsumeMs: 4200 });
    assert.equal(
      describeAdvice(ttl),
      "Redis marker TTL 30 s is shorter than 37% of redelivery gaps (longest 2 min 46 s); raise it above the longest gap and to ≥ 10× peak processing time (4.2 s), or rely on the DB unique key",
    );
    assert.deepEqual(f!.advice.map((a) => a.code).sort(), ["ack_lost_duplicates", "marker_ttl_short", "rebalance_duplicates"]);
  });

  it("aggregates real diagnoses, lost messages included", () => {
    const bizKey = "ORD-20261130-100412";
    const msgId = "0A0803114A1918B4AAC27E5FF3B20007";
    const line = (at: number, instance: string, decision: "pass" | "failed" | "hit", retryTimes: number) =>
      dedup({ at, bizKey, msgId, group: GROUP, topic: TOPIC, instance, layer: "redis", decision, retryTimes, queue: "broker-b:2", queueOffset: 377840 + retryTimes, ttlMs: decision === "pass" ? 86_400_000 : undefined });
    const lostKey = diagnoseKey({
      bizKey,
      events: [
        ...trace.consume({ at: 0, bizKey, msgId, group: GROUP, host: "10.8.3.17", contextCode: 4, costTime: 700 }),
        line(3, "10.8.3.17@23817", "pass", 0),
        line(690, "10.8.3.17@23817", "failed", 0),
        ...trace.consume({ at: 10 * SEC + 720, bizKey, msgId, group: GROUP, host: "10.8.3.18", retryTimes: 1 }),
        line(10 * SEC + 731, "10.8.3.18@4102", "hit", 1),
      ],
      context: [],
    });
    const [g] = summarizeFindings({ diagnoses: [lostKey], delivered: [{ group: GROUP, topic: null, keys: 10 }] });
    assert.equal(g!.topic, TOPIC);
    assert.equal(g!.keysDelivered, 10, "a group-wide count applies to the group's topic");
    assert.equal(g!.duplicates, 0);
    assert.equal(g!.lost, 1);
    assert.equal(g!.normalRetries, 1);
    assert.deepEqual(g!.advice.map((a) => a.code), ["marker_not_released"]);
    assert.equal(g!.rebalances.perHour, null, "no period, no rate");
  });
});
