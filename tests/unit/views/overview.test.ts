import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCursor } from "../../../lib/views/duplicates.ts";
import { leaders } from "../../../lib/views/overview.ts";

describe("chart summaries", () => {
  it("name the three largest non-empty parts and count everything", () => {
    const counts = [
      { key: "producer_retry", n: 4 },
      { key: "consumer_crash", n: 0 },
      { key: "rebalance", n: 9 },
      { key: "timeout", n: 1 },
      { key: "dlq_replay", n: 2 },
    ];
    assert.deepEqual(leaders(counts), {
      total: 16,
      top: [
        { key: "rebalance", n: 9 },
        { key: "producer_retry", n: 4 },
        { key: "dlq_replay", n: 2 },
      ],
    });
  });

  it("leave out empty parts even when fewer than three remain", () => {
    assert.deepEqual(leaders([{ key: "a", n: 0 }, { key: "b", n: 3 }]), { total: 3, top: [{ key: "b", n: 3 }] });
    assert.deepEqual(leaders([]), { total: 0, top: [] });
  });
});

describe("duplicates paging", () => {
  it("reads a cursor whose verdict id itself holds colons", () => {
    assert.deepEqual(parseCursor("1764547200123:ORDER:42:dup-1"), { secondTs: 1764547200123, id: "ORDER:42:dup-1" });
  });
});
