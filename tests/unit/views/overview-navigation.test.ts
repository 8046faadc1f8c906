import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFilters } from "../../../lib/queries/filters.ts";
import { kpiLinks } from "../../../lib/views/kpi-links.ts";
import { ranked, rankOrder, type RateRow } from "../../../lib/views/overview.ts";

const NOW = Date.UTC(2026, 11, 7, 3, 0);

describe("the overview's counts as links", () => {
  it("open the lists of what they count, under the overview's filters", () => {
    const links = kpiLinks(parseFilters({ range: "6h", group: "cg_order_paid", topic: "PAY_SUCCESS", cause: "rebalance" }, NOW));
    const q = "range=6h&group=cg_order_paid&topic=PAY_SUCCESS&cause=rebalance";
    assert.deepEqual(links, {
      keys: `/groups?${q}`,
      keysWithDuplicates: `/duplicates?${q}`,
      duplicates: `/duplicates?${q}`,
      caught: `/duplicates?${q}&outcome=caught`,
      leaked: `/duplicates?${q}&outcome=leaked`,
      lost: "/lost?range=6h&group=cg_order_paid&topic=PAY_SUCCESS",
    });
  });

  it("keep a custom range and leave the default one out", () => {
    const custom = kpiLinks(parseFilters({ range: "custom", from: "2026-12-06T01:00", to: "2026-12-06T03:30" }, NOW));
    assert.equal(custom.leaked, "/duplicates?range=custom&from=2026-12-06T01%3A00&to=2026-12-06T03%3A30&outcome=leaked");
    assert.deepEqual(kpiLinks(parseFilters({}, NOW)).duplicates, "/duplicates");
  });
});

describe("groups and topics ranked", () => {
  const row = (name: string, duplicates: number, keysWithDuplicates: number, keys: number): RateRow => ({ name, duplicates, keysWithDuplicates, keys, rate: keysWithDuplicates / keys });
  // A big group with many duplicates at a low rate, a small one with few at a high rate.
  const rows = [row("small", 4, 4, 10), row("big", 300, 250, 10_000), row("mid", 40, 30, 300), row("mid-twin", 40, 30, 300)];

  it("by duplicates puts the group with the most first, whatever its rate", () => {
    assert.deepEqual(ranked(rows, "duplicates").map((r) => r.name), ["big", "mid", "mid-twin", "small"]);
  });

  it("by rate puts the highest share first, ties by duplicates then name", () => {
    assert.deepEqual(ranked(rows, "rate").map((r) => r.name), ["small", "mid", "mid-twin", "big"]);
  });

  it("reads the order from the URL, duplicates unless it says rate", () => {
    assert.deepEqual([rankOrder("rate"), rankOrder(["rate", "duplicates"]), rankOrder("duplicates"), rankOrder("nonsense"), rankOrder(undefined)], ["rate", "rate", "duplicates", "duplicates", "duplicates"]);
  });
});
