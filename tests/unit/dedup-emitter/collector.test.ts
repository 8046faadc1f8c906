import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DEDUP_DECISIONS as COLLECTOR_DECISIONS, DEDUP_LAYERS as COLLECTOR_LAYERS, MAX_ERROR_CHARS as COLLECTOR_MAX_ERROR, parseDedupLine } from "../../../collectors/dedup-log/parse.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { BROKERS as EVENT_BROKERS, MAX_TS as EVENT_MAX_TS, MIN_TS as EVENT_MIN_TS } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { byTime } from "../../../lib/store/event-rows.ts";
import {
  BROKERS,
  createDedupLog,
  DEDUP_DECISIONS,
  DEDUP_LAYERS,
  DedupLogError,
  formatDedupLine,
  MAX_ERROR_CHARS,
  type DedupLine,
} from "../../../packages/dedup/src/index.ts";
import { MAX_TS, MIN_TS } from "../../../packages/dedup/src/record.ts";
import { collected, fakeRedis, manualClock, story } from "../../helpers/dedup-emitter.ts";

/**
 * The emitter is published on its own and cannot import the collector, so these tests hold the two together: every
 * line the emitter writes goes through collectors/dedup-log/parse.ts unchanged, with no issue, and reads back as
 * the decisions that were taken; whole stories read back as the verdicts docs/dedup-log.md promises.
 */

const A = "10.8.3.17@23817";
const B = "10.8.3.18@4410";

function twoInstances(broker: "kafka" | "rocketmq" | "rabbitmq" = "rocketmq") {
  const clock = manualClock();
  const lines: string[] = [];
  const write = (l: string) => lines.push(l);
  const a = createDedupLog({ group: "GID_points_award", broker, instance: A, topic: "ORDER_PAID", clock: clock.now, write });
  const b = createDedupLog({ group: "GID_points_award", broker, instance: B, topic: "ORDER_PAID", clock: clock.now, write });
  return { clock, lines, a, b, redis: fakeRedis(clock.now) };
}

function diagnose(lines: string[], bizKey: string) {
  const events = collected(lines);
  return diagnoseKey({ bizKey, events, context: [] });
}

describe("the emitter's vocabulary is the collector's", () => {
  it("has the same layers, decisions, brokers, limits and timestamp range", () => {
    assert.deepEqual(DEDUP_LAYERS, COLLECTOR_LAYERS);
    assert.deepEqual(DEDUP_DECISIONS, COLLECTOR_DECISIONS);
    assert.deepEqual(BROKERS, EVENT_BROKERS);
    assert.equal(MAX_ERROR_CHARS, COLLECTOR_MAX_ERROR);
    assert.equal(MIN_TS, EVENT_MIN_TS);
    assert.equal(MAX_TS, EVENT_MAX_TS);
  });
});

describe("every helper's line is accepted by the collector unchanged", () => {
  it("maps each decision to the event the collector documents", async () => {
    const { a, lines, redis, clock } = twoInstances();
    const d = a.delivery({ bizKey: "ORD-20261130-100231", msgId: "0A0803114A1918B4AAC27E5E2F3C0000", retryTimes: 0, queueId: "broker-a:3", queueOffset: 884213 });
    d.check("bloom", true, { dedupKey: "bf:ORD-20261130-100231" });
    clock.advance(2);
    await d.redisMarker(redis, { key: "points:ORD-20261130-100231", ttlMs: 86_400_000 });
    await d.dbUniqueInsert(async () => ({ rowCount: 1 }), { dedupKey: "points_dedup:ORD-20261130-100231" });
    await d.stateCheck(async () => 1, { dedupKey: "UNAWARDED->AWARDED" });
    clock.advance(45);
    await assert.rejects(d.run(() => Promise.reject(new Error("java-ish failure"))));
    d.released("db", { dedupKey: "points_dedup:ORD-20261130-100231" });
    const events = collected(lines);
    assert.deepEqual(story(events), [
      `${A} bloom pass`,
      `${A} redis pass`,
      `${A} db pass`,
      `${A} state pass`,
      `${A} state failed`,
      `${A} redis released`,
      `${A} db released`,
    ]);
    for (const e of events) {
      assert.equal(e.bizKey, "ORD-20261130-100231");
      assert.equal(e.msgId, "0A0803114A1918B4AAC27E5E2F3C0000");
      assert.equal(e.group, "GID_points_award");
      assert.equal(e.topic, "ORDER_PAID");
      assert.equal(e.broker, "rocketmq");
      assert.equal(e.retryTimes, 0);
      assert.equal(e.queue, "broker-a:3");
      assert.equal(e.queueOffset, 884213);
      assert.equal(e.tsPrecision, "ms");
      assert.equal(e.detail.instanceRaw, A);
      assert.equal(e.detail.extra, undefined, "the emitter writes no field the format does not name");
      const checked = validateEvent(e);
      assert.ok(checked.ok, checked.ok ? "" : checked.reason);
    }
    assert.deepEqual(events.map((e) => [e.kind, e.success]), [
      ["dedup", null],
      ["dedup", null],
      ["dedup", null],
      ["dedup", null],
      ["business_effect", false],
      ["dedup", null],
      ["dedup", null],
    ]);
    assert.equal(events[1]!.detail.ttlMs, 86_400_000);
    assert.equal(events[1]!.detail.dedupKey, "points:ORD-20261130-100231");
    assert.equal(events[4]!.detail.error, "Error: java-ish failure");
    assert.equal(events[1]!.ts - events[0]!.ts, 2);
  });

  it("hits, executed and the no-layer consumer", async () => {
    const { a, b, lines, redis } = twoInstances("kafka");
    const first = a.delivery({ bizKey: "K", queueId: "order-paid-3", queueOffset: 7 });
    await first.redisMarker(redis, { key: "points:K", ttlMs: 1000 });
    first.executed();
    await b.delivery({ bizKey: "K", queueId: "order-paid-3", queueOffset: 7 }).redisMarker(redis, { key: "points:K", ttlMs: 1000 });
    await b.delivery({ bizKey: "K" }).dbUniqueInsert(() => Promise.reject({ code: "23505" }));
    b.delivery({ bizKey: "K" }).stateCheck(false);
    a.delivery({ bizKey: "L" }).executed();
    const events = collected(lines);
    assert.deepEqual(story(events), [`${A} redis pass`, `${A} redis executed`, `${B} redis hit`, `${B} db hit`, `${B} state hit`, `${A} none executed`]);
    assert.deepEqual(events.map((e) => e.kind), ["dedup", "business_effect", "dedup", "dedup", "dedup", "business_effect"]);
    assert.ok(events.every((e) => e.broker === "kafka" && e.msgId === null));
  });

  it("RabbitMQ instances are kept as written and canonicalised as the RabbitMQ collector names channels", () => {
    const lines: string[] = [];
    const log = createDedupLog({ group: "invoice.issue", broker: "rabbitmq", instance: "127.0.0.1:47946 -> 127.0.0.1:5672@1", write: (l) => lines.push(l) });
    log.delivery({ bizKey: "ORD-1", msgId: "msg-1", queueId: "invoice.issue" }).executed();
    const [event] = collected(lines);
    assert.equal(event!.instance, "127.0.0.1:47946 -> 127.0.0.1:5672@1");
    assert.equal(event!.broker, "rabbitmq");
  });
});

describe("the stories of docs/dedup-log.md, written by the emitter and diagnosed", () => {
  it("Redis marker hit on the redelivery: caught by redis", async () => {
    const { a, b, lines, redis, clock } = twoInstances();
    const first = a.delivery({ bizKey: "ORD-1", msgId: "M1" });
    await first.redisMarker(redis, { key: "points:ORD-1", ttlMs: 86_400_000 });
    await first.run(async () => clock.advance(45));
    clock.advance(20_000);
    const second = b.delivery({ bizKey: "ORD-1", msgId: "M1" });
    assert.equal((await second.redisMarker(redis, { key: "points:ORD-1", ttlMs: 86_400_000 })).hit, true);
    const d = diagnose(lines, "ORD-1");
    assert.equal(d.duplicates.length, 1);
    assert.equal(d.duplicates[0]!.outcome, "caught");
    assert.equal(d.duplicates[0]!.layer, "redis");
    assert.deepEqual(d.lost, []);
  });

  it("a marker that expired before the redelivery: leaked, marker_expired", async () => {
    const { a, b, lines, redis, clock } = twoInstances();
    for (const [log, gap] of [[a, 0], [b, 47_000]] as const) {
      clock.advance(gap);
      const delivery = log.delivery({ bizKey: "ORD-2", msgId: "M2" });
      assert.equal((await delivery.redisMarker(redis, { key: "points:ORD-2", ttlMs: 30_000 })).passed, true);
      await delivery.run(async () => clock.advance(46));
    }
    const d = diagnose(lines, "ORD-2");
    assert.equal(d.duplicates.length, 1);
    assert.equal(d.duplicates[0]!.outcome, "leaked");
    assert.equal(d.duplicates[0]!.defect, "marker_expired");
    assert.ok(d.duplicates[0]!.evidence.some((e) => e.code === "executed_twice"));
  });

  it("a failure that releases its marker, then the retry runs: a normal retry, no duplicate, nothing lost", async () => {
    const { a, lines, redis, clock } = twoInstances();
    const first = a.delivery({ bizKey: "ORD-3", msgId: "M3", retryTimes: 0 });
    await first.redisMarker(redis, { key: "points:ORD-3", ttlMs: 86_400_000 });
    await assert.rejects(first.run(async () => {
      clock.advance(530);
      throw new Error("CannotAcquireLockException");
    }));
    clock.advance(10_000);
    const retry = a.delivery({ bizKey: "ORD-3", msgId: "M3", retryTimes: 1 });
    assert.equal((await retry.redisMarker(redis, { key: "points:ORD-3", ttlMs: 86_400_000 })).passed, true);
    await retry.run(async () => undefined);
    assert.deepEqual(story(collected(lines)).map((s) => s.split(" ").slice(1).join(" ")), ["redis pass", "redis failed", "redis released", "redis pass", "redis executed"]);
    const d = diagnose(lines, "ORD-3");
    assert.deepEqual(d.duplicates, []);
    assert.equal(d.normalRetries.length, 1);
    assert.deepEqual(d.lost, []);
  });

  it("the same failure with release: false: the retry is skipped, a lost message (marker_not_released)", async () => {
    const { a, b, lines, redis, clock } = twoInstances();
    const first = a.delivery({ bizKey: "ORD-4", msgId: "M4", retryTimes: 0 });
    await first.redisMarker(redis, { key: "points:ORD-4", ttlMs: 86_400_000 });
    await assert.rejects(first.run(() => Promise.reject(new Error("Read timed out")), { release: false }));
    clock.advance(10_700);
    await b.delivery({ bizKey: "ORD-4", msgId: "M4", retryTimes: 1 }).redisMarker(redis, { key: "points:ORD-4", ttlMs: 86_400_000 });
    const d = diagnose(lines, "ORD-4");
    assert.equal(d.lost.length, 1);
    assert.equal(d.lost[0]!.defect, "marker_not_released");
  });

  it("pass and executed in one millisecond keep their order however a store sorts equal times", async () => {
    const { a, b, lines, redis, clock } = twoInstances("rabbitmq");
    for (const [log, gap] of [[a, 0], [b, 47_000]] as const) {
      clock.advance(gap);
      const delivery = log.delivery({ bizKey: "ORD-6", msgId: "M6" });
      await delivery.redisMarker(redis, { key: "points:ORD-6", ttlMs: 30_000 });
      await delivery.run(async () => undefined);
    }
    const events = collected(lines);
    // dupscope's store hands events back by time, equal times by id (a hash of the line): any order within a ms.
    for (const sorted of [[...events].sort(byTime), [...events].reverse().sort((x, y) => x.ts - y.ts)]) {
      const d = diagnoseKey({ bizKey: "ORD-6", events: sorted, context: [] });
      assert.equal(d.deliveries.length, 2);
      assert.deepEqual(d.duplicates.map((v) => [v.outcome, v.defect]), [["leaked", "marker_expired"]]);
    }
  });

  it("two instances within milliseconds, the database unique key catches the second: caught by db", async () => {
    const { a, b, lines, clock } = twoInstances();
    const rows = new Set<string>();
    const insert = (key: string) => async () => {
      if (rows.has(key)) throw Object.assign(new Error("duplicate key"), { code: "23505" });
      rows.add(key);
    };
    const first = a.delivery({ bizKey: "ORD-5", msgId: "M5" });
    await first.dbUniqueInsert(insert("ORD-5"), { dedupKey: "invoice_dedup:ORD-5" });
    clock.advance(17);
    const second = b.delivery({ bizKey: "ORD-5", msgId: "M5" });
    assert.equal((await second.dbUniqueInsert(insert("ORD-5"), { dedupKey: "invoice_dedup:ORD-5" })).hit, true);
    clock.advance(68);
    first.executed();
    const d = diagnose(lines, "ORD-5");
    assert.equal(d.duplicates.length, 1);
    assert.equal(d.duplicates[0]!.outcome, "caught");
    assert.equal(d.duplicates[0]!.layer, "db");
  });
});

describe("whatever it is given, the emitter writes a line the collector accepts or throws and writes nothing", () => {
  const text = fc.oneof(fc.string({ maxLength: 600 }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.constantFrom("", " ", "\t\n", "ORD-1", "x".repeat(512), " ".repeat(600) + "x"));
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const whole = fc.oneof(fc.nat(), fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: false }), fc.constant(Number.MAX_SAFE_INTEGER + 2));
  const record = fc.record({
    ts: fc.oneof(fc.integer({ min: MIN_TS - 10, max: MAX_TS + 10 }), fc.double({ min: MIN_TS, max: MAX_TS }), fc.constant(Number.NaN), fc.integer({ min: 0, max: 4_102_444_800 })),
    bizKey: text,
    msgId: maybe(text),
    group: text,
    topic: maybe(text),
    instance: text,
    broker: maybe(fc.constantFrom("rocketmq", "rabbitmq", "kafka", "nats")),
    layer: fc.constantFrom(...DEDUP_LAYERS, "cache"),
    decision: fc.constantFrom(...DEDUP_DECISIONS, "skip"),
    retryTimes: maybe(whole),
    queueId: maybe(fc.oneof(text, whole)),
    queueOffset: maybe(whole),
    dedupKey: maybe(text),
    ttlMs: maybe(whole),
    error: maybe(fc.oneof(text, fc.string({ minLength: 1990, maxLength: 2100 }))),
  });

  it("formatDedupLine", () => {
    fc.assert(
      fc.property(record, (r) => {
        let line: string;
        try {
          line = formatDedupLine(r as DedupLine);
        } catch (error) {
          assert.ok(error instanceof DedupLogError, String(error));
          assert.ok(error.problems.length > 0);
          // The collector must reject it too: the emitter is not stricter than the format. (NaN and infinities have
          // no JSON spelling, so for them the emitter's refusal is the whole story.)
          if (Object.values(r).some((v) => typeof v === "number" && !Number.isFinite(v))) return;
          const asWritten = JSON.stringify(r);
          assert.equal(parseDedupLine(asWritten, 1, { source: "dedup-log:p" }).issue?.code, "invalid_field", `emitter rejected, collector accepted: ${asWritten}`);
          return;
        }
        assert.ok(!line.includes("\n"));
        const result = parseDedupLine(line, 1, { source: "dedup-log:p" });
        assert.equal(result.issue, undefined, `${result.issue?.reason}: ${line}`);
        const e = result.events[0]!;
        assert.equal(e.ts, Math.floor(r.ts));
        assert.equal(e.bizKey, r.bizKey.trim());
        assert.equal(e.group, r.group.trim());
        assert.equal(e.detail.decision, r.decision);
        assert.equal(e.detail.layer, r.layer);
        // (=== rather than Object.is: JSON writes -0 as 0.)
        if (r.ttlMs !== undefined) assert.ok(e.detail.ttlMs === r.ttlMs, `ttlMs ${String(e.detail.ttlMs)} vs ${r.ttlMs}`);
        if (r.error !== undefined) assert.equal(e.detail.error, r.error.length > MAX_ERROR_CHARS ? `${r.error.slice(0, MAX_ERROR_CHARS)}…` : r.error);
      }),
      { numRuns: 2000 },
    );
  });
});
