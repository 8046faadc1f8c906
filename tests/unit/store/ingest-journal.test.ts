import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { contributionOf, formatOfId, JournalBuilder, journalOf } from "../../../lib/store/ingest-journal.ts";

const HEX = "0123456789abcdef0123456789abcdef";
const T = Date.UTC(2026, 10, 30, 4, 0, 0);

function event(over: Partial<NormalizedEvent>): NormalizedEvent {
  return {
    id: `rocketmq-trace:${HEX}`, kind: "consume_start", ts: T, tsPrecision: "ms", bizKey: null, msgId: null, offsetMsgId: null, broker: "rocketmq",
    topic: null, group: null, queue: null, queueOffset: null, instance: null, retryTimes: null, redelivered: null, success: null, detail: {}, source: "s",
    ...over,
  };
}

describe("ingest journal", () => {
  it("names a collector's format by its id prefix, and anything else as normalized events", () => {
    assert.equal(formatOfId(`rocketmq-client-log:${HEX}`), "rocketmq-client-log");
    assert.equal(formatOfId(`otlp-traces:${HEX}:2`), "otlp-traces");
    assert.equal(formatOfId(`sha256:${HEX}`), "events", "the server's content hash");
    assert.equal(formatOfId("order-42-consumed"), "events");
    assert.equal(formatOfId(`Rocketmq:${HEX}`), "events", "upper case is no collector's name");
  });

  it("reads detail fields as detail->>'…' does: strings as they are, other values as JSON text, a null decision as a decision", () => {
    assert.deepEqual(
      ([{ layer: "redis", decision: "pass" }, { layer: 3, decision: null }, {}] as NormalizedEvent["detail"][]).map((detail) => {
        const c = contributionOf(event({ kind: "dedup", detail }));
        return [c.layer, c.decision];
      }),
      [["redis", "pass"], ["3", null], [null, undefined]],
    );
  });

  it("sums a batch into what the queue, marks, counters and rollups need", () => {
    const rows = [
      event({ id: `rocketmq-trace:${HEX}:1`, bizKey: "K1", msgId: "M1", group: "cg", ts: T }),
      event({ id: `rocketmq-trace:${HEX}:2`, bizKey: "K1", msgId: "M1", group: "cg", ts: T + 5 }),
      event({ id: `dedup-log:${HEX}`, kind: "dedup", bizKey: "K2", group: "cg", detail: { layer: "redis", decision: "hit" }, source: "d", ts: T + 7 }),
      event({ id: `dedup-log:${HEX}:b`, kind: "business_effect", bizKey: "K2", group: "cg", detail: { decision: "executed" }, source: "d", ts: T + 9 }),
      event({ id: `dedup-log:${HEX}:c`, kind: "business_effect", bizKey: "K3", group: "cg", detail: {}, source: "d", ts: T + 9 }),
      event({ id: `rocketmq-client-log:${HEX}:1`, kind: "rebalance", group: "cg", topic: "t", detail: { action: "add" }, source: "c", ts: T + 10_001 }),
      event({ id: `rocketmq-client-log:${HEX}:2`, kind: "rebalance", group: "cg", topic: "t", detail: { action: "drop_timeout" }, source: "c", ts: T + 3 }),
      event({ id: `rocketmq-client-log:${HEX}:3`, kind: "consume_end", msgId: "M9", group: "cg", source: "c", ts: T + 20_000 }),
      event({ id: `rocketmq-broker-log:${HEX}`, kind: "rebalance", topic: "t", detail: { action: "add" }, source: "b", ts: T }),
    ].map(contributionOf);
    const j = journalOf(rows);
    assert.deepEqual(j.keys, ["K1", "K2", "K3"]);
    assert.deepEqual(j.keysFrom, [T, T + 7, T + 9], "each key's earliest event");
    assert.deepEqual(j.keylessMsgIds, ["M9"]);
    assert.deepEqual(
      j.marks,
      [
        ["cg", T + 3, T + 20_000, false],
        [null, T, T, false],
      ],
      "the keyless lines of a group, from the first to the last; those without a group in a mark of their own",
    );
    assert.deepEqual(j.sources, [
      ["s", "rocketmq-trace", 2, T + 5],
      ["d", "dedup-log", 3, T + 9],
      ["c", "rocketmq-client-log", 3, T + 20_000],
      ["b", "rocketmq-broker-log", 1, T],
    ]);
    assert.deepEqual(j.decisions, [["cg", "redis", "hit", 1], ["cg", "", "executed", 1]], "only events that state a decision");
    assert.deepEqual(j.rebalances, [["cg", "t", 2], ["", "t", 1]]);
    assert.deepEqual(j.slots, [[T + 10_000, "cg", "t", 1]], "ownership changes of a group, by 10-second slot");
  });

  it("calls a mark loud when one of its lines gives a queue up, whichever way the rows come", () => {
    const line = (n: number, group: string, detail: NormalizedEvent["detail"], queue: string | null = "broker-a:1") =>
      event({ id: `rocketmq-client-log:${HEX}:${n}`, kind: "rebalance", group, queue, detail, ts: T + n });
    const rows = [
      line(1, "adds", { action: "add" }),
      line(2, "adds", { action: "assign" }),
      line(3, "removes", { action: "add" }),
      line(4, "removes", { action: "remove" }),
      line(5, "unnamed", { action: "remove" }, null),
      line(6, "dropped", { action: "dropped_without_result" }),
      line(7, "result", { action: "result", queues: ["broker-a:1"] }),
    ];
    const expected = [["adds", T + 1, T + 2, false], ["removes", T + 3, T + 4, true], ["unnamed", T + 5, T + 5, false], ["dropped", T + 6, T + 6, true], ["result", T + 7, T + 7, true]];
    assert.deepEqual(journalOf(rows.map(contributionOf)).marks, expected);
    const built = new JournalBuilder();
    for (const e of rows) built.addEvent(e);
    assert.deepEqual(built.finish().marks, expected, "summed from the events as from their rows");
  });

  it("queues a key a keyless line names from the line's time, and keeps each key's earliest", () => {
    const j = journalOf(
      [
        event({ id: `rocketmq-trace:${HEX}:1`, bizKey: "K1", group: "cg", ts: T + 50 }),
        event({ id: `rocketmq-client-log:${HEX}:1`, kind: "consume_end", group: "cg", detail: { keys: ["K2", "K1"] }, ts: T + 20 }),
        event({ id: `rocketmq-trace:${HEX}:2`, bizKey: "K2", group: "cg", ts: T + 30 }),
      ].map(contributionOf),
    );
    assert.deepEqual(
      j.keys.map((k, i) => [k, j.keysFrom[i]]),
      [
        ["K1", T + 20],
        ["K2", T + 20],
      ],
    );
  });

  it("carries a summary for each key whose events could be one delivery per group, none for a key a keyless line lists", () => {
    const j = journalOf(
      [
        event({ id: `rocketmq-trace:${HEX}:1`, kind: "publish", bizKey: "K1", msgId: "M1", ts: T }),
        event({ id: `rocketmq-trace:${HEX}:2`, bizKey: "K1", msgId: "M1", group: "cg", instance: "10.0.0.5", detail: { requestId: "r1" }, ts: T + 40 }),
        event({ id: `rocketmq-trace:${HEX}:3`, kind: "consume_end", bizKey: "K1", msgId: "M1", group: "cg", instance: "10.0.0.5", detail: { requestId: "r1" }, ts: T + 90 }),
        event({ id: `rocketmq-trace:${HEX}:4`, bizKey: "K2", msgId: "M2", group: "cg", ts: T + 50 }),
        event({ id: `rocketmq-client-log:${HEX}:1`, kind: "consume_end", group: "cg", detail: { keys: ["K2"] }, ts: T + 60 }),
        event({ id: `rocketmq-trace:${HEX}:5`, bizKey: "K3", msgId: "M3", group: "cg", ts: T + 70 }),
        event({ id: `rocketmq-trace:${HEX}:6`, bizKey: "K3", msgId: "M3", group: "cg", ts: T + 1500 }),
      ].map(contributionOf),
    );
    assert.deepEqual(j.keys, ["K1", "K2", "K3"]);
    assert.deepEqual(j.plain, [[0, ["cg"], [], T, T + 90, ["M1", [["cg", [T + 40, "r1", "10.0.0.5", null], [T + 90, "r1", "10.0.0.5"], null]]]]]);
  });

  it("sums events as it sums their contributions, whatever their ids, kinds and details", () => {
    const hex = fc.stringMatching(/^[0-9a-f]{30,34}$/);
    const id = fc.oneof(
      fc.tuple(fc.constantFrom("rocketmq-trace", "dedup-log", "sha256", "Rocketmq", "a", "x-1"), fc.constantFrom(":", "-"), hex, fc.constantFrom("", ":1", "G")).map((p) => p.join("")),
      fc.string(),
    );
    const row = fc.record({
      id,
      kind: fc.constantFrom("dedup", "business_effect", "rebalance", "consume_end"),
      bizKey: fc.option(fc.constantFrom("K1", "K2"), { nil: null }),
      msgId: fc.option(fc.constantFrom("M1", "M2"), { nil: null }),
      group: fc.option(fc.constantFrom("cg", "cg2"), { nil: null }),
      topic: fc.option(fc.constantFrom("t"), { nil: null }),
      source: fc.constantFrom("s", "c"),
      ts: fc.integer({ min: T, max: T + 60_000 }),
      detail: fc.dictionary(fc.constantFrom("layer", "decision", "action"), fc.oneof(fc.constantFrom("redis", "hit", "add", "drop_timeout"), fc.constant(null), fc.integer())),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const events = rows.map((r) => event(r as Partial<NormalizedEvent>));
        const builder = new JournalBuilder();
        for (const e of events) builder.addEvent(e);
        const journal = builder.finish();
        assert.deepEqual(journal, journalOf(events.map(contributionOf)));
        // The builder remembers the last collector prefix instead of matching every id: the formats must not change.
        const sources = new Map<string, [string, string, number, number]>();
        for (const e of events) {
          const key = `${e.source} ${formatOfId(e.id)}`;
          const seen = sources.get(key);
          sources.set(key, seen ? [e.source, formatOfId(e.id), seen[2] + 1, Math.max(seen[3], e.ts)] : [e.source, formatOfId(e.id), 1, e.ts]);
        }
        assert.deepEqual(
          [...journal.sources].sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`)),
          [...sources.values()].sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`)),
        );
      }),
    );
  });
});
