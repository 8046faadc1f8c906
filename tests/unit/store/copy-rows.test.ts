import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { CopyRowsBuilder, toCopyRows } from "../../../lib/store/events-repo.ts";

const T = Date.UTC(2026, 10, 30, 4, 0, 0);
const WINDOW = { oldest: T - 86_400_000, newest: T + 86_400_000 };

function event(n: number, over: Partial<NormalizedEvent> = {}): NormalizedEvent {
  return {
    id: `rocketmq-trace:${n.toString(16).padStart(32, "0")}.0.0`, kind: "consume_start", ts: T + n * 1000, tsPrecision: "ms", bizKey: `ORDER-${n}`,
    msgId: null, offsetMsgId: null, broker: "rocketmq", topic: "PAY", group: "pay-consumer", queue: null, queueOffset: null, instance: "10.0.1.10",
    retryTimes: 0, redelivered: null, success: null, detail: { note: "tab\there" }, source: "rocketmq-trace:/var/log/trace.ndjson", ...over,
  };
}

/** An event of each kind the builder tells apart: plain, repeated, expired, unstorable, with a borrowed time. */
const anEvent = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((n) => event(n)),
  fc.constant(event(1, { ts: T - 3 * 86_400_000 })),
  fc.constant(event(2, { bizKey: "bad\u0000key" })),
  fc.integer({ min: 50, max: 60 }).map((n) => event(n, { detail: { timeFrom: "arrival" } })),
);

describe("COPY rows built as events come", () => {
  it("are the rows of the whole batch however the events were handed over", () => {
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (events, sizes) => {
        const builder = new CopyRowsBuilder(WINDOW);
        let at = 0;
        for (let i = 0; at < events.length; i++) {
          const size = sizes[i % sizes.length]!;
          builder.add(events.slice(at, at + size));
          at += size;
        }
        const pieces = builder.finish();
        const whole = toCopyRows(events, WINDOW);
        const flat = (rows: typeof whole) => ({ ...rows, minutes: [...rows.minutes].sort(), chunks: rows.chunks.map((c) => ({ ...c, text: c.text.join("") })) });
        assert.deepEqual(flat(pieces), flat(whole));
      }),
    );
  });

  it("numbers each event by its place in the batch, repeats and refusals included", () => {
    const builder = new CopyRowsBuilder(WINDOW);
    builder.add([event(1), event(1)]);
    builder.add([event(2, { ts: T - 3 * 86_400_000 }), event(3)]);
    const rows = builder.finish();
    assert.equal(rows.count, 4);
    // A repeat is a row of its own: the database stores it once (tests/integration/store.test.ts).
    assert.deepEqual(rows.chunks.map((c) => c.indexes), [[0, 1, 3]]);
    assert.deepEqual(rows.rejected.map((r) => r.index), [2]);
    assert.equal(rows.outOfWindow, 1);
  });
});
