import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { atKeptResolution, bucketFor, filterQuery, parseFilters } from "../../../lib/queries/filters.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0);
const MIN = 60_000;

describe("dashboard filters in the URL", () => {
  it("default to the last 24 hours in 15-minute buckets", () => {
    const f = parseFilters({}, NOW);
    assert.deepEqual([f.range, f.from, f.to, f.bucketMs, f.group, f.topic, f.cause], ["24h", NOW - 24 * 60 * MIN, NOW, 15 * MIN, null, null, null]);
  });

  it("read a preset, group, topic and cause, and ignore a cause that does not exist", () => {
    const f = parseFilters({ range: "15m", group: "cg_order_paid", topic: "order_paid", cause: "rebalance" }, NOW);
    assert.deepEqual([f.from, f.bucketMs, f.group, f.topic, f.cause], [NOW - 15 * MIN, 10_000, "cg_order_paid", "order_paid", "rebalance"]);
    assert.equal(parseFilters({ cause: "gremlins" }, NOW).cause, null);
  });

  it("read a custom range in UTC, in either order, as the filter bar or a URL writes it, or epoch ms", () => {
    const f = parseFilters({ range: "custom", from: "2026-11-30T10:00", to: "2026-11-29T10:00" }, NOW);
    assert.deepEqual([f.range, f.from, f.to, f.bucketMs], ["custom", Date.UTC(2026, 10, 29, 10), Date.UTC(2026, 10, 30, 10), 15 * MIN]);
    const typed = parseFilters({ range: "custom", from: "2026-11-29 10:00", to: "2026-11-30 10:30" }, NOW);
    assert.deepEqual([typed.from, typed.to], [Date.UTC(2026, 10, 29, 10), Date.UTC(2026, 10, 30, 10, 30)]);
    assert.equal(parseFilters({ range: "custom", from: String(NOW - 3_600_000) }, NOW).to, NOW, "to defaults to now");
    assert.equal(parseFilters({ range: "custom", from: "yesterday" }, NOW).range, "24h", "an unreadable custom range falls back to the default");
  });

  it("keep every range at 100 buckets or fewer", () => {
    for (const span of [15 * MIN, 60 * MIN, 6 * 60 * MIN, 24 * 60 * MIN, 7 * 24 * 60 * MIN, 90 * 24 * 60 * MIN]) assert.ok(span / bucketFor(span) <= 100, String(span));
  });

  it("chart a range that reaches back before the oldest raw events in whole minutes at least, and leave the rest as parsed", () => {
    const quarter = parseFilters({ range: "15m" }, NOW);
    assert.equal(quarter.bucketMs, 10_000);
    assert.equal(atKeptResolution(quarter, NOW - 10 * MIN).bucketMs, MIN, "its first 5 minutes have no raw events left");
    assert.equal(atKeptResolution(quarter, quarter.from), quarter, "every raw event of the range is kept");
    assert.equal(atKeptResolution(quarter, null), quarter, "nothing stored");
    const day = parseFilters({ range: "24h" }, NOW);
    assert.equal(atKeptResolution(day, NOW).bucketMs, day.bucketMs, "bars of whole minutes already");
    const grouped = { ...quarter, group: "cg_x" };
    assert.deepEqual(atKeptResolution(grouped, NOW), { ...grouped, bucketMs: MIN }, "the other filters kept");
  });

  it("write links that keep the filters, leaving a live preset without fixed times", () => {
    const f = parseFilters({ range: "1h", cause: "ack_lost" }, NOW);
    assert.equal(filterQuery(f), "?range=1h&cause=ack_lost");
    assert.equal(filterQuery(f, { cause: null, group: "cg_x" }), "?range=1h&group=cg_x");
    assert.equal(filterQuery(parseFilters({}, NOW)), "");
    assert.equal(filterQuery(f, { range: "custom", from: Date.UTC(2026, 10, 29), to: Date.UTC(2026, 10, 30) }), "?range=custom&from=2026-11-29T00%3A00&to=2026-11-30T00%3A00&cause=ack_lost");
  });
});
