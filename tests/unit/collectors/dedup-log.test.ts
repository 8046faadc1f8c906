import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import pino from "pino";
import { canonicalInstance } from "../../../lib/events/instance.ts";
import { MAX_TS, MIN_TS } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { recordFingerprint } from "../../../collectors/record-fingerprint.ts";
import type { ParseContext, ParseResult } from "../../../collectors/types.ts";
import { DEDUP_DECISIONS, DEDUP_LAYERS, MAX_ERROR_CHARS, dedupLogV1Schema, parse, parseDedupLine } from "../../../collectors/dedup-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("dedup-log");
const ctx: ParseContext = { source: "dedup-log:test" };

function parseFixture(fixture: string): ParseResult {
  return parse(testdata.read(fixture), { source: `dedup-log:testdata/${fixture}`, utcOffset: "+08:00" });
}

const base = { ts: 1796011201204, bizKey: "ORD-1", group: "GID_points_award", instance: "10.8.3.17@23817", layer: "redis", decision: "pass" };

function one(record: Record<string, unknown>, context: ParseContext = ctx) {
  const result = parseDedupLine(JSON.stringify(record), 1, context);
  assert.equal(result.issue, undefined, result.issue?.reason);
  assert.equal(result.events.length, 1);
  return result.events[0]!;
}

function reasonOf(line: string, context: ParseContext = ctx): string | undefined {
  return parseDedupLine(line, 1, context).issue?.reason;
}

describe("dedup log fixtures", () => {
  it("parses the recorded points and invoice consumers as the golden file says", () => {
    testdata.assertGolden("points-and-invoice.dedup.log", parseFixture("points-and-invoice.dedup.log"));
  });

  it("reports the bad-input fixture line by line as the golden file says", () => {
    testdata.assertGolden("bad-lines.dedup.log", parseFixture("bad-lines.dedup.log"));
  });

  it("produces only events the ingest API accepts unchanged", () => {
    for (const event of parseFixture("points-and-invoice.dedup.log").events) {
      const checked = validateEvent(event);
      assert.ok(checked.ok, checked.ok ? "" : checked.reason);
      assert.deepEqual(checked.event, event);
    }
  });
});

describe("dedup decisions", () => {
  it("maps pass, hit and released to dedup events without a success flag", () => {
    for (const decision of ["pass", "hit", "released"]) {
      const event = one({ ...base, decision });
      assert.equal(event.kind, "dedup");
      assert.equal(event.success, null);
      assert.equal(event.detail.decision, decision);
    }
  });

  it("maps executed and failed to business effects that succeeded or not", () => {
    assert.deepEqual(
      [one({ ...base, decision: "executed" }), one({ ...base, decision: "failed" })].map((e) => [e.kind, e.success]),
      [
        ["business_effect", true],
        ["business_effect", false],
      ],
    );
  });

  it("rejects a hit or a release that names no layer", () => {
    assert.equal(
      reasonOf(JSON.stringify({ ...base, layer: "none", decision: "hit" })),
      "layer: must name the layer that holds the marker when decision is hit or released",
    );
    assert.equal(one({ ...base, layer: "none", decision: "executed" }).detail.layer, "none");
  });
});

describe("dedup timestamps", () => {
  it("reads an ISO date-time with a zone exactly", () => {
    assert.equal(one({ ...base, ts: "2026-11-30T12:00:01.204+08:00" }).ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
    assert.equal(one({ ...base, ts: "2026-11-30T04:00:01.204Z" }).ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
    assert.equal(one({ ...base, ts: "2026-11-30T12:00:01.204+0800" }).ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
    assert.equal(one({ ...base, ts: "2026-11-30T12:00:01+08" }).ts, Date.UTC(2026, 10, 30, 4, 0, 1));
  });

  it("reads a zone-less ISO date-time in ctx.utcOffset, UTC by default", () => {
    const local = { ...base, ts: "2026-11-30 12:00:01,204" };
    assert.equal(one(local, { ...ctx, utcOffset: "+08:00" }).ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
    assert.equal(one(local).ts, Date.UTC(2026, 10, 30, 12, 0, 1, 204));
  });

  it("keeps milliseconds of a nanosecond fraction and marks every timestamp ms-precise", () => {
    const event = one({ ...base, ts: "2026-11-30T04:00:01.204987654Z" });
    assert.equal(event.ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
    assert.equal(event.tsPrecision, "ms");
    assert.equal(one({ ...base, ts: "2026-11-30T04:00:01Z" }).tsPrecision, "ms");
  });

  it("takes epoch milliseconds and drops a fraction of a millisecond", () => {
    assert.equal(one({ ...base, ts: 1796011201204 }).ts, 1796011201204);
    assert.equal(one({ ...base, ts: 1796011201204.731 }).ts, 1796011201204);
  });

  it("rejects epoch seconds, microseconds and other absurd values with a hint", () => {
    const reason = (ts: unknown) => reasonOf(JSON.stringify({ ...base, ts }));
    assert.equal(reason(1796011201), "ts: is outside 2000-01-01..2100-01-01 (looks like epoch seconds; write milliseconds)");
    assert.equal(reason(1796011201204000), "ts: is outside 2000-01-01..2100-01-01 (looks like epoch microseconds; write milliseconds)");
    assert.equal(reason(-5), "ts: is outside 2000-01-01..2100-01-01");
    assert.equal(reason("1999-12-31T23:59:59.999Z"), "ts: is outside 2000-01-01..2100-01-01");
    assert.equal(reasonOf(`{"ts":1e400,"bizKey":"a","group":"g","instance":"i","layer":"db","decision":"pass"}`), "ts: must be an ISO-8601 date-time string or epoch milliseconds");
  });

  it("rejects timestamps that are not ISO-8601 or name an impossible day", () => {
    assert.equal(
      reasonOf(JSON.stringify({ ...base, ts: "30/Nov/2026:12:00:01 +0800" })),
      "ts: must be an ISO-8601 date-time such as 2026-11-30T12:00:01.204+08:00, or epoch milliseconds",
    );
    assert.equal(reasonOf(JSON.stringify({ ...base, ts: "1796011201204" })), "ts: must be an ISO-8601 date-time such as 2026-11-30T12:00:01.204+08:00, or epoch milliseconds");
    assert.equal(reasonOf(JSON.stringify({ ...base, ts: "2026-02-30T10:00:00Z" })), "ts: is not a real date-time");
    assert.equal(reasonOf(JSON.stringify({ ...base, ts: true })), "ts: must be an ISO-8601 date-time string or epoch milliseconds");
  });

  it("refuses a ParseContext whose utcOffset is not an offset", () => {
    assert.throws(() => parse(JSON.stringify(base), { ...ctx, utcOffset: "Asia/Shanghai" }), /UTC offset must look like/);
  });
});

describe("dedup fields", () => {
  it("canonicalizes the instance and keeps what the application wrote", () => {
    const event = one({ ...base, instance: " 10.8.3.17@23817#2310457739811 " });
    assert.equal(event.instance, "10.8.3.17@23817");
    assert.equal(event.detail.instanceRaw, "10.8.3.17@23817#2310457739811");
  });

  it("carries message identity, position and retry count onto the event", () => {
    const event = one({ ...base, msgId: "0A0803114A1918B4AAC27E5E2F3C0000", topic: "ORDER_PAID", retryTimes: 2, queueId: "broker-a:3", queueOffset: 884213 });
    assert.deepEqual(
      [event.bizKey, event.msgId, event.topic, event.group, event.queue, event.queueOffset, event.retryTimes, event.offsetMsgId, event.redelivered],
      ["ORD-1", "0A0803114A1918B4AAC27E5E2F3C0000", "ORDER_PAID", "GID_points_award", "broker-a:3", 884213, 2, null, null],
    );
  });

  it("writes a numeric queueId as a string and accepts whole numbers written as strings", () => {
    const event = one({ ...base, queueId: 3, retryTimes: "1", queueOffset: "884213", ttlMs: "86400000" });
    assert.deepEqual([event.queue, event.retryTimes, event.queueOffset, event.detail.ttlMs], ["3", 1, 884213, 86400000]);
  });

  it("treats null optional fields as absent", () => {
    const event = one({ ...base, msgId: null, topic: null, queueId: null, queueOffset: null, retryTimes: null, dedupKey: null, ttlMs: null, error: null, broker: null });
    assert.deepEqual([event.msgId, event.topic, event.queue, event.queueOffset, event.retryTimes, event.broker], [null, null, null, null, null, "rocketmq"]);
    assert.deepEqual(event.detail, { layer: "redis", decision: "pass", instanceRaw: "10.8.3.17@23817" });
  });

  it("defaults the broker to rocketmq and honours an explicit one", () => {
    assert.equal(one(base).broker, "rocketmq");
    assert.equal(one({ ...base, broker: "kafka" }).broker, "kafka");
    assert.equal(reasonOf(JSON.stringify({ ...base, broker: "activemq" })), "broker: must be one of rocketmq, rabbitmq, kafka");
  });

  it("keeps dedupKey, ttlMs and error in detail", () => {
    const event = one({ ...base, decision: "failed", dedupKey: "points:ORD-1", ttlMs: 86400000, error: "java.net.SocketTimeoutException: Read timed out" });
    assert.deepEqual(event.detail, {
      layer: "redis",
      decision: "failed",
      instanceRaw: "10.8.3.17@23817",
      dedupKey: "points:ORD-1",
      ttlMs: 86400000,
      error: "java.net.SocketTimeoutException: Read timed out",
    });
  });

  it("cuts an error longer than MAX_ERROR_CHARS and marks the cut", () => {
    const error = one({ ...base, decision: "failed", error: "x".repeat(MAX_ERROR_CHARS + 500) }).detail.error;
    assert.equal(error, `${"x".repeat(MAX_ERROR_CHARS)}…`);
    // An emoji across the cut is kept whole or left out, never halved into a lone surrogate the store refuses.
    const event = one({ ...base, decision: "failed", error: `${"x".repeat(MAX_ERROR_CHARS - 1)}🎯 and more` });
    assert.equal(event.detail.error, `${"x".repeat(MAX_ERROR_CHARS - 1)}…`);
    assert.ok(validateEvent(event).ok);
  });

  it("keeps unknown fields in detail.extra, including a __proto__ key as plain data", () => {
    const line = `{"ts":1796011201204,"bizKey":"ORD-1","group":"g","instance":"i","layer":"db","decision":"pass","level":"info","traceId":"6f1c","__proto__":{"polluted":true}}`;
    const event = parseDedupLine(line, 1, ctx).events[0]!;
    assert.deepEqual(event.detail.extra, JSON.parse(`{"level":"info","traceId":"6f1c","__proto__":{"polluted":true}}`));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(one(base).detail.extra, undefined);
  });

  it("fingerprints the raw line, so re-reading a file gives the same ids", () => {
    const line = JSON.stringify(base);
    assert.equal(parseDedupLine(line, 7, ctx).events[0]!.id, recordFingerprint("dedup-log", line));
    assert.equal(parseDedupLine(line, 1, { source: "elsewhere" }).events[0]!.id, recordFingerprint("dedup-log", line));
  });

  it("lists every problem of a line in one reason", () => {
    const line = JSON.stringify({ ts: 1796011201, group: "", instance: 42, layer: "cache", decision: "skipped", queueOffset: -1, retryTimes: "two", queueId: 1.5, error: 7 });
    assert.equal(
      reasonOf(line),
      [
        "ts: is outside 2000-01-01..2100-01-01 (looks like epoch seconds; write milliseconds)",
        "bizKey: is required",
        "group: must not be empty",
        "instance: must be a string",
        "layer: must be one of bloom, redis, db, state, none",
        "decision: must be one of pass, hit, executed, failed, released",
        "retryTimes: must be a whole number",
        "queueId: must be a string or a whole number",
        "queueOffset: must not be negative",
        "error: must be a string",
      ].join("; "),
    );
  });
});

describe("dedup bad input, one line at a time", () => {
  const cases: [string, string, "malformed" | "invalid_field"][] = [
    ["truncated JSON", `{"ts":1796011201204,"bizKey":"ORD-1","gro`, "malformed"],
    ["a JSON array", `["ORD-1","redis","pass"]`, "malformed"],
    ["a JSON string", `"ORD-1 redis pass"`, "malformed"],
    ["JSON null", "null", "malformed"],
    ["a plain log line", "2026-11-30 12:00:05.001 INFO  [ConsumeMessageThread_3] c.e.points.DedupLog - dedup pass", "malformed"],
    ["an empty object", "{}", "invalid_field"],
    ["a too-long bizKey", JSON.stringify({ ...base, bizKey: "k".repeat(513) }), "invalid_field"],
    ["a whitespace-only group", JSON.stringify({ ...base, group: "   " }), "invalid_field"],
    ["a fractional retry count", JSON.stringify({ ...base, retryTimes: 1.5 }), "invalid_field"],
    ["an offset beyond 2^53", `{"ts":1796011201204,"bizKey":"a","group":"g","instance":"i","layer":"db","decision":"pass","queueOffset":"99999999999999999999"}`, "invalid_field"],
    ["an object where text belongs", JSON.stringify({ ...base, bizKey: { id: 1 } }), "invalid_field"],
  ];
  for (const [name, line, code] of cases) {
    it(`reports ${name} as ${code} without throwing`, () => {
      const result = parseDedupLine(line, 3, ctx);
      assert.deepEqual(result.events, []);
      assert.equal(result.issue?.code, code);
      assert.equal(result.issue?.line, 3);
    });
  }

  it("keeps parsing after a bad line and counts every line", () => {
    const result = parse(["{", JSON.stringify(base), "", "[]"].join("\n"), ctx);
    assert.equal(result.events.length, 1);
    assert.deepEqual(result.issues.map((i) => i.line), [1, 4]);
    assert.equal(result.lines, 4);
    assert.equal(result.skipped, 0);
  });
});

describe("dedup log emitters", () => {
  it("accepts the lines the pino configuration in docs/dedup-log.md writes", () => {
    const lines: string[] = [];
    const dedupLog = pino(
      { base: null, timestamp: () => `,"ts":${Date.now()}`, formatters: { level: (label) => ({ level: label }) } },
      { write: (line: string) => void lines.push(line) },
    );
    dedupLog.info({ broker: "kafka", bizKey: "ORD-1", group: "points-award", topic: "order-paid", instance: "10.8.3.17@23817", queueId: "order-paid-3", queueOffset: 884213, layer: "redis", decision: "pass", dedupKey: "points:ORD-1", ttlMs: 86400000 });
    dedupLog.info({ broker: "kafka", bizKey: "ORD-1", group: "points-award", instance: "10.8.3.17@23817", layer: "redis", decision: "failed", error: String(new Error("ledger down")), msgId: undefined });
    const result = parse(lines.join(""), ctx);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.events.map((e) => [e.kind, e.broker, e.queue, e.detail.extra]), [
      ["dedup", "kafka", "order-paid-3", { level: "info" }],
      ["business_effect", "kafka", null, { level: "info" }],
    ]);
  });

  it("exports the v1 schema, reading zone-less timestamps as UTC", () => {
    const parsed = dedupLogV1Schema.parse({ ...base, ts: "2026-11-30T12:00:01.204" });
    assert.equal(parsed.ts, Date.UTC(2026, 10, 30, 12, 0, 1, 204));
    assert.equal(parsed.broker, "rocketmq");
  });
});

const text = (max: number) => fc.string({ minLength: 1, maxLength: max }).filter((s) => s.trim() !== "");
const epochMsArb = fc.integer({ min: MIN_TS, max: MAX_TS - 1 });

const recordArb = fc
  .record(
    {
      ts: fc.oneof(epochMsArb, epochMsArb.map((ms) => new Date(ms).toISOString())),
      bizKey: text(512),
      msgId: text(128),
      group: text(255),
      topic: text(255),
      instance: text(255),
      broker: fc.constantFrom("rocketmq", "rabbitmq", "kafka"),
      layer: fc.constantFrom(...DEDUP_LAYERS),
      decision: fc.constantFrom(...DEDUP_DECISIONS),
      retryTimes: fc.nat(),
      queueId: fc.oneof(fc.nat(), text(255)),
      queueOffset: fc.maxSafeNat(),
      dedupKey: text(512),
      ttlMs: fc.nat(),
      error: fc.string({ maxLength: MAX_ERROR_CHARS }),
      x_extra: fc.string(),
    },
    { requiredKeys: ["ts", "bizKey", "group", "instance", "layer", "decision"] },
  )
  .filter((r) => !(r.layer === "none" && (r.decision === "hit" || r.decision === "released")));

describe("dedup parser properties", () => {
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (line) => {
        const result = parseDedupLine(line, 1, ctx);
        assert.ok(result.events.length === 1 || result.issue !== undefined);
      }),
    );
  });

  it("never throws on arbitrary JSON, with or without the v1 field names", () => {
    const nearRecord = fc.dictionary(fc.constantFrom(...Object.keys(dedupLogV1Schema.shape), "extra"), fc.jsonValue());
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), nearRecord), (value) => {
        const line = JSON.stringify(value);
        if (line !== undefined) parseDedupLine(line, 1, ctx);
      }),
    );
  });

  it("round-trips every valid record into one event that says the same", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const event = one(record);
        assert.equal(event.ts, typeof record.ts === "number" ? record.ts : Date.parse(record.ts));
        assert.equal(event.bizKey, record.bizKey.trim());
        assert.equal(event.msgId, record.msgId?.trim() ?? null);
        assert.equal(event.group, record.group.trim());
        assert.equal(event.topic, record.topic?.trim() ?? null);
        assert.equal(event.instance, canonicalInstance(record.instance).canonical);
        assert.equal(event.broker, record.broker ?? "rocketmq");
        assert.equal(event.retryTimes, record.retryTimes ?? null);
        assert.equal(event.queue, record.queueId === undefined ? null : String(record.queueId).trim());
        assert.equal(event.queueOffset, record.queueOffset ?? null);
        assert.equal(event.kind, record.decision === "executed" || record.decision === "failed" ? "business_effect" : "dedup");
        assert.equal(event.detail.layer, record.layer);
        assert.equal(event.detail.decision, record.decision);
        assert.equal(event.detail.dedupKey, record.dedupKey?.trim());
        assert.equal(event.detail.ttlMs, record.ttlMs);
        assert.equal(event.detail.error, record.error);
        assert.deepEqual(event.detail.extra, record.x_extra === undefined ? undefined : { x_extra: record.x_extra });
        assert.ok(validateEvent(event).ok);
      }),
    );
  });
});
