import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateEvent } from "../../../lib/events/validate.ts";
import { orderStory, T0 } from "../../helpers/events.ts";

const valid = orderStory()[1]!;

function reasonOf(input: unknown): string {
  const result = validateEvent(input);
  assert.equal(result.ok, false, `expected a rejection for ${JSON.stringify(input)}`);
  return result.ok ? "" : result.reason;
}

describe("event validation", () => {
  it("accepts a realistic consume_start and fills defaults", () => {
    const result = validateEvent(valid);
    assert.ok(result.ok);
    assert.equal(result.event.tsPrecision, "ms");
    assert.equal(result.event.offsetMsgId, null);
    assert.deepEqual(result.event.detail, { requestId: "a1" });
    assert.match(result.event.id, /^sha256:[0-9a-f]{40}$/);
  });

  it("gives the same fingerprint whatever the key order, and a different one when any field differs", () => {
    const reordered = Object.fromEntries(Object.entries(valid).reverse());
    const a = validateEvent(valid);
    const b = validateEvent(reordered);
    const c = validateEvent({ ...valid, retryTimes: 1 });
    assert.ok(a.ok && b.ok && c.ok);
    assert.equal(a.event.id, b.event.id);
    assert.notEqual(a.event.id, c.event.id);
  });

  it("keeps a caller-supplied id", () => {
    const result = validateEvent({ ...valid, id: "rocketmq-trace:abc123" });
    assert.ok(result.ok);
    assert.equal(result.event.id, "rocketmq-trace:abc123");
  });

  it("accepts ISO-8601 and numeric-string timestamps", () => {
    const iso = validateEvent({ ...valid, ts: "2026-11-30T12:00:00.450+08:00" });
    const text = validateEvent({ ...valid, ts: String(T0 + 450) });
    assert.ok(iso.ok && text.ok);
    assert.equal(iso.event.ts, T0 + 450);
    assert.equal(text.event.ts, T0 + 450);
  });

  it("says when a timestamp looks like seconds or microseconds", () => {
    assert.match(reasonOf({ ...valid, ts: Math.floor(T0 / 1000) }), /^ts: .*looks like epoch seconds/);
    assert.match(reasonOf({ ...valid, ts: T0 * 1000 }), /^ts: .*looks like epoch microseconds/);
    assert.match(reasonOf({ ...valid, ts: "yesterday" }), /^ts: must be epoch milliseconds or an ISO-8601/);
  });

  it("reports every problem of an event at once, with its field", () => {
    const reason = reasonOf({ ...valid, kind: "consumed", broker: "activemq", retryTimes: -1 });
    assert.match(reason, /kind: /);
    assert.match(reason, /broker: /);
    assert.match(reason, /retryTimes: must not be negative/);
  });

  it("rejects unknown fields instead of dropping them silently", () => {
    assert.match(reasonOf({ ...valid, bizkey: "typo" }), /bizkey/);
  });

  it("requires a bizKey or msgId except for rebalance and lifecycle events", () => {
    assert.match(reasonOf({ ...valid, bizKey: null, msgId: null }), /^bizKey: a consume_start event needs a bizKey or a msgId/);
    assert.ok(validateEvent({ kind: "rebalance", ts: T0, broker: "rocketmq", group: "g", source: "s" }).ok);
  });

  it("rejects non-objects and bad ids", () => {
    assert.match(reasonOf(42), /expected object/i);
    assert.match(reasonOf({ ...valid, id: "has space" }), /^id: /);
  });
});
