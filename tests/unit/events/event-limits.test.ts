import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { splitNdjson } from "../../../lib/api/ingest-body.ts";
import { LIMITS, storableProblem, valueProblem } from "../../../lib/events/limits.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { parseTraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";

const event = (extra: Record<string, unknown>) => ({ kind: "consume_start", ts: 1796011200450, broker: "rocketmq", source: "test", bizKey: "K-1", msgId: "M-1", ...extra });

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe("event limits: a clear rejection that names the limit", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["nesting", { detail: { x: nested(100_000) } }, /^detail\.x(\[0\])+: nested deeper than 32 levels/],
    ["keys per object", { detail: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])) }, /^detail: has 300 keys; the limit is 256$/],
    ["array length", { detail: { list: Array.from({ length: 10_001 }, () => 0) } }, /^detail\.list: has 10001 elements; the limit is 10000$/],
    ["string length", { detail: { note: "x".repeat(70_000) } }, /^detail\.note: is 70000 characters long; the limit is 65536$/],
    ["a NUL character", { bizKey: "A\u0000B" }, /^bizKey: holds a NUL character \(U\+0000\)/],
    ["an unpaired surrogate", { detail: { x: "\udc00" } }, /^detail\.x: holds an unpaired UTF-16 surrogate/],
    ["a key with a NUL character", { detail: { ["a\u0000"]: 1 } }, /^detail: a key holds a NUL character/],
  ];
  for (const [name, extra, reason] of cases) {
    it(`refuses ${name}`, () => {
      const result = validateEvent(event(extra));
      assert.equal(result.ok, false);
      assert.match((result as { reason: string }).reason, reason);
    });
  }

  it("refuses a detail larger than 64 KiB when it is stored", () => {
    const checked = validateEvent(event({ detail: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "x".repeat(4000)])) }));
    assert.ok(checked.ok);
    assert.match(storableProblem(checked.event)!, /^detail: is \d+ bytes as JSON; the limit is 65536$/);
  });

  it("keeps paired surrogates (emoji) and ordinary text", () => {
    assert.ok(validateEvent(event({ bizKey: "订单-😀", detail: { note: "tab\there" } })).ok);
  });

  it("refuses a trace record with more business keys or fields than the limits", () => {
    const keys = Array.from({ length: LIMITS.keysPerRecord + 1 }, (_, i) => `K${i}`).join(" ");
    const sub = ["SubBefore", "1796011200450", "r", "g", "req", "M-1", "0", keys];
    const many = parseTraceRecord(sub);
    assert.deepEqual([many.ok, many.ok ? "" : many.reason], [false, `SubBefore: keys holds ${LIMITS.keysPerRecord + 1} business keys; the limit is ${LIMITS.keysPerRecord}`]);
    const wide = parseTraceRecord([...sub.slice(0, 7), "K", ...Array.from({ length: 70 }, () => "x")]);
    assert.deepEqual([wide.ok, wide.ok ? "" : wide.reason], [false, "SubBefore has 78 fields; the limit is 64"]);
  });

  it("refuses an NDJSON line longer than 1 MiB by its number, and reads the lines around it", () => {
    const split = splitNdjson(['{"a":1}', `{"a":"${"x".repeat(LIMITS.lineBytes)}"}`, '{"a":2}'].join("\n"));
    assert.deepEqual(split.records.map((r) => r.line), [1, 3]);
    assert.deepEqual(split.rejected.map((r) => r.line), [2]);
    assert.match(split.rejected[0]!.reason, /^line is \d+ bytes; the limit is 1048576$/);
  });

  it("gives a stored event the same answer with or without its short cut for flat details", () => {
    // The full walk plus the size of detail, as storableProblem answered before it judged flat details by their JSON.
    const walked = (e: NormalizedEvent) => {
      const problem = valueProblem(e);
      if (problem) return problem;
      const bytes = Buffer.byteLength(JSON.stringify(e.detail));
      return bytes > LIMITS.detailBytes ? `detail: is ${bytes} bytes as JSON; the limit is ${LIMITS.detailBytes}` : undefined;
    };
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.constantFrom("\u0000", "\ud800", "a\udc00b", "😀", "\\u0000", "{", "[x]", '"timeFrom":'),
    );
    const value = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 3 }));
    const detail = fc.oneof(fc.dictionary(text, value, { maxKeys: 8 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { minKeys: 250, maxKeys: 300 }));
    fc.assert(fc.property(text, text, detail, (bizKey, instance, d) => {
      const e = { ...(validateEvent(event({})) as { event: NormalizedEvent }).event, bizKey, instance, detail: d as NormalizedEvent["detail"] };
      assert.equal(storableProblem(e), walked(e));
    }), { numRuns: 2000 });
  });

  it("never throws, whatever the JSON value", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 40 }), fc.nat({ max: 5000 }), (value, depth) => {
      void valueProblem(value);
      void validateEvent(value);
      void validateEvent(event({ detail: { value, deep: nested(depth) } }));
    }));
  });
});
