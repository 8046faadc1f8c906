import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { categoryAxisWidth, elide, estimateWidth } from "../../../components/charts/labels.ts";
import { timeLabelPx, timeTicks } from "../../../components/charts/time-axis.ts";
import { tooltipRows } from "../../../components/charts/tooltip-rows.ts";
import { funnelBars } from "../../../lib/views/overview.ts";
import type { FunnelStage } from "../../../lib/queries/overview.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** 2026-11-30 12:11:47.300 UTC: an instant on no round second, as "now" is. */
const NOW = Date.UTC(2026, 10, 30, 12, 11, 47, 300);

function labels(from: number, to: number, width: number, room = 0): string[] {
  const { ticks, format } = timeTicks(from, to, width, room);
  return ticks.map(format);
}

function assertReadable(from: number, to: number, width: number, room = 0): void {
  const { ticks, format } = timeTicks(from, to, width, room);
  const texts = ticks.map(format);
  assert.equal(new Set(texts).size, texts.length, `labels repeat: ${texts.join(" ")}`);
  for (const t of ticks) assert.ok(t >= from && t <= to, `tick ${t} outside [${from}, ${to}]`);
  const span = to - from;
  for (let i = 1; i < ticks.length; i++) {
    const apart = ((ticks[i]! - ticks[i - 1]!) / span) * width;
    const wider = Math.max(texts[i]!.length, texts[i - 1]!.length);
    assert.ok(apart >= timeLabelPx("0".repeat(wider)), `ticks ${texts[i - 1]} and ${texts[i]} ${apart.toFixed(1)} px apart overlap`);
  }
  for (const [i, t] of ticks.entries()) {
    const centre = span === 0 ? width / 2 : ((t - from) / span) * width;
    const half = timeLabelPx(texts[i]!) / 2;
    assert.ok(centre + half >= -room - 20 && centre - half <= width + room + 20, `${texts[i]} is drawn off the axis`);
  }
}

describe("time axis ticks", () => {
  it("a 15-minute range gets one label per whole minute at most, never two alike", () => {
    const texts = labels(NOW - 15 * MIN, NOW, 900);
    assert.ok(texts.length >= 5, texts.join(" "));
    assert.ok(texts.every((t) => /^\d\d:\d\d$/.test(t)), texts.join(" "));
    assert.equal(new Set(texts).size, texts.length);
  });

  it("the presets read as clock times, and dates where the range crosses days", () => {
    assert.ok(labels(NOW - HOUR, NOW, 900).every((t) => /^\d\d:\d\d$/.test(t)));
    assert.ok(labels(NOW - 6 * HOUR, NOW, 900).every((t) => /^\d\d:[03]0$/.test(t)));
    const week = labels(NOW - 7 * DAY, NOW, 900);
    assert.ok(week.every((t) => /^11-\d\d( \d\d:\d\d)?$/.test(t)), week.join(" "));
    assert.ok(week.length >= 3);
  });

  it("a day from midnight to midnight tells the two midnights apart, by their dates", () => {
    const from = Date.UTC(2026, 10, 30);
    const texts = labels(from, from + DAY, 900, 60);
    assert.equal(new Set(texts).size, texts.length, texts.join(" "));
    assert.ok(texts[0] === "11-30" && texts.at(-1) === "12-01", texts.join(" "));
    assert.ok(texts.slice(1, -1).every((t) => /^\d\d:\d\d$/.test(t)), texts.join(" "));
    assert.ok(labels(from, from + DAY, 900).every((t) => /^\d\d:\d\d$/.test(t)), "without the midnights, the hours alone");
  });

  it("the last 24 hours name their midnight by its date, the other hours by the clock", () => {
    const texts = labels(NOW - DAY, NOW, 900);
    assert.ok(texts.includes("11-30"), `the midnight of the 30th is dated: ${texts.join(" ")}`);
    assert.ok(texts.filter((t) => t !== "11-30").every((t) => /^\d\d:\d\d$/.test(t)), texts.join(" "));
    const seconds = labels(Date.UTC(2026, 10, 30) - 20_000, Date.UTC(2026, 10, 30) + 20_000, 900);
    assert.ok(seconds.includes("11-30") && seconds.filter((t) => t !== "11-30").every((t) => /^\d\d:\d\d:\d\d$/.test(t)), seconds.join(" "));
  });

  it("a range of seconds is labelled to the second", () => {
    const texts = labels(NOW, NOW + 40_000, 900);
    assert.ok(texts.length >= 3 && texts.every((t) => /^\d\d:\d\d:\d\d$/.test(t)), texts.join(" "));
  });

  it("a tick whose label would stick out of the chart is left off", () => {
    const from = Date.UTC(2026, 10, 30, 12, 0);
    const edge = timeTicks(from, from + 15 * MIN, 900, 0).ticks;
    assert.ok(!edge.includes(from) && !edge.includes(from + 15 * MIN), "the ends, on round minutes, have no room for a centred label");
    assert.ok(timeTicks(from, from + 15 * MIN, 900, 40).ticks.includes(from), "with room beside the axis they are shown");
  });

  it("presets at any moment and width never repeat or overlap a label", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(15 * MIN, HOUR, 6 * HOUR, DAY, 7 * DAY),
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
        fc.integer({ min: 120, max: 2000 }),
        (span, now, width) => assertReadable(now - span, now, width),
      ),
      { numRuns: 400 },
    );
  });

  it("custom ranges, from nothing to years, never repeat or overlap a label", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2035, 0, 1) }),
        fc.oneof(fc.integer({ min: 0, max: 5 * MIN }), fc.integer({ min: 0, max: 3 * DAY }), fc.integer({ min: 0, max: 4 * 365 * DAY })),
        fc.integer({ min: 1, max: 2500 }),
        fc.integer({ min: 0, max: 60 }),
        (from, span, width, room) => assertReadable(from, from + span, width, room),
      ),
      { numRuns: 600 },
    );
  });
});

describe("category labels", () => {
  const measure = estimateWidth(12);

  it("a label that fits is left whole; one that does not keeps its start and an ellipsis, within the room", () => {
    assert.equal(elide("cg_order_paid", 200, measure), "cg_order_paid");
    const cut = elide("%RETRY%cg_order_paid_with_a_very_long_suffix", 120, measure);
    assert.ok(cut.endsWith("…") && "%RETRY%cg_order_paid_with_a_very_long_suffix".startsWith(cut.slice(0, -1)), cut);
    assert.ok(measure(cut) <= 120);
    assert.equal(elide("消费组订单支付重试队列很长的名字", 60, measure).length, 5, "CJK takes a full em each: four and the ellipsis");
  });

  it("the axis is as wide as its widest label plus a margin, up to the cap", () => {
    const w = categoryAxisWidth(["a", "%RETRY%cg_order_paid"], 400, measure);
    assert.equal(w, Math.ceil(measure("%RETRY%cg_order_paid") + 10));
    assert.equal(categoryAxisWidth(["%RETRY%cg_order_paid"], 80, measure), 80);
  });

  it("the estimate errs wide of a browser's 12 px sans-serif for what the dashboard names", () => {
    // Chromium's measure of these in DejaVu Sans, the widest of the fonts the page names that Debian ships.
    assert.ok(measure("%RETRY%cg_order_paid") >= 140);
    assert.ok(measure("leaked (ran twice)") >= 100);
  });
});

describe("chart tooltip rows", () => {
  const e = (name: string, value: number) => ({ name, value, color: "#000" });

  it("lists only the series with a value, largest first, ties in the order given", () => {
    const { rows, more } = tooltipRows([e("a", 0), e("b", 3), e("c", 0), e("d", 7), e("e", 3)], 400);
    assert.deepEqual(rows.map((r) => r.name), ["d", "b", "e"]);
    assert.equal(more, 0);
  });

  it("never lists more rows than the chart's height holds, and counts the rest", () => {
    const many = Array.from({ length: 15 }, (_, i) => e(`cause${i}`, i + 1));
    const { rows, more } = tooltipRows(many, 160);
    // 160 px less 16 of padding and 22 of header holds six 20 px rows: five series and the "+10 more" line.
    assert.equal(rows.length, 5);
    assert.equal(more, 10);
    assert.equal(rows[0]!.name, "cause14");
  });
});

describe("funnel bars", () => {
  it("draws each stage to the count it labels: checked, each layer's catches, the leaks", () => {
    const stages: FunnelStage[] = [
      { stage: "checked", reached: 400, caught: 0 },
      { stage: "bloom", reached: 400, caught: 112 },
      { stage: "redis", reached: 288, caught: 200 },
      { stage: "db", reached: 88, caught: 0 },
      { stage: "state", reached: 88, caught: 30 },
      { stage: "leaked", reached: 58, caught: 0 },
    ];
    const bars = funnelBars(stages);
    assert.deepEqual(
      bars.map((b) => [b.stage, b.value, b.kind]),
      [
        ["checked", 400, "checked"],
        ["bloom", 112, "caught"],
        ["redis", 200, "caught"],
        ["db", 0, "caught"],
        ["state", 30, "caught"],
        ["leaked", 58, "leaked"],
      ],
    );
    assert.ok(bars.every((b) => b.value >= 0));
    assert.equal(bars.filter((b) => b.kind !== "checked").reduce((s, b) => s + b.value, 0), 400, "catches and leaks add up to what was checked");
  });
});
