import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evidence } from "../../../lib/diagnosis/evidence.ts";
import { formatDuration } from "../../../lib/format/duration.ts";
import { formatTime, formatUtcOffset } from "../../../lib/format/time.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";

describe("durations (lib/format/duration.ts)", () => {
  it("cuts at every boundary instead of rounding up into the next unit", () => {
    const cases: [number, string, string][] = [
      [999.6, "999 ms", "999 毫秒"],
      [1000, "1 s", "1 秒"],
      [9_960, "9.9 s", "9.9 秒"],
      [59_700, "59 s", "59 秒"],
      [59_960, "59 s", "59 秒"],
      [60_000, "1 min", "1 分钟"],
      [3_599_900, "59 min 59 s", "59 分钟 59 秒"],
      [3_600_000, "1 h", "1 小时"],
      [86_399_999, "23 h 59 min", "23 小时 59 分钟"],
      [86_400_000, "1 d", "1 天"],
    ];
    for (const [ms, en, zh] of cases) {
      assert.equal(formatDuration(ms), en, `${ms} ms in English`);
      assert.equal(formatDuration(ms, "en"), en);
      assert.equal(formatDuration(ms, "zh-CN"), zh, `${ms} ms in Chinese`);
    }
  });

  it("steps through the units with the precision each one gets", () => {
    assert.deepEqual(
      [0.4, 7.25, 390, 1234, 12_400, 90_500, 61 * 60_000, 26 * 3_600_000, 7 * 86_400_000].map((ms) => formatDuration(ms)),
      ["0.4 ms", "7.2 ms", "390 ms", "1.2 s", "12 s", "1 min 30 s", "1 h 1 min", "1 d 2 h", "7 d"],
    );
    assert.equal(formatDuration(90_500, "zh-CN"), "1 分钟 30 秒");
  });

  it("is not fooled by binary noise: 2.3 s from seconds is 2.3 s", () => {
    assert.equal(formatDuration(2.3 * 1000), "2.3 s");
    assert.equal(formatDuration(0.3 * 1000), "300 ms");
  });

  it("writes zero, negative and unknown durations", () => {
    assert.equal(formatDuration(0), "0 ms");
    assert.equal(formatDuration(-0), "0 ms");
    assert.equal(formatDuration(0, "zh-CN"), "0 毫秒");
    assert.equal(formatDuration(-250), "−250 ms");
    assert.equal(formatDuration(-59_700), "−59 s");
    assert.equal(formatDuration(-3_599_900, "zh-CN"), "−59 分钟 59 秒");
    assert.equal(formatDuration(null), "?");
    assert.equal(formatDuration(null, "zh-CN"), "?");
    assert.equal(formatDuration(Number.NaN), "?");
    assert.equal(formatDuration(Number.POSITIVE_INFINITY), "?");
  });

  it("is what the diagnosis sentences say, in both languages", () => {
    const e = evidence("gap_over_ttl", "defect", [], { gapMs: 59_960, ttlMs: 60_000, layer: "redis" });
    assert.equal(describeEvidence(e), "the Redis marker lives 1 min; the second check came 59 s after the first");
    assert.equal(describeEvidence(e, { locale: "zh-CN" }), "Redis 标记的有效期是 1 分钟；第二次检查在第一次之后 59 秒才到来");
  });
});

describe("times (lib/format/time.ts)", () => {
  const ts = Date.UTC(2026, 10, 30, 12, 0, 59, 704);

  it("writes an instant in UTC, to the millisecond unless asked otherwise, cut rather than rounded", () => {
    assert.equal(formatTime(ts), "2026-11-30 12:00:59.704");
    assert.equal(formatTime(ts, { precision: "s" }), "2026-11-30 12:00:59");
    assert.equal(formatTime(ts, { precision: "min" }), "2026-11-30 12:00");
    assert.equal(formatTime(ts, { precision: "min", date: "short" }), "11-30 12:00");
    assert.equal(formatTime(ts, { date: "none" }), "12:00:59.704");
  });

  it("shifts to a UTC offset, across midnight, and says the offset when asked", () => {
    assert.equal(formatTime(ts, { utcOffsetMinutes: 480, zone: true }), "2026-11-30 20:00:59.704 UTC+8");
    assert.equal(formatTime(ts, { utcOffsetMinutes: 12 * 60 + 45, precision: "s" }), "2026-12-01 00:45:59");
    assert.equal(formatTime(ts, { utcOffsetMinutes: -210, precision: "min", zone: true }), "2026-11-30 08:30 UTC-3:30");
    assert.equal(formatTime(ts, { precision: "s", zone: true }), "2026-11-30 12:00:59 UTC");
    assert.deepEqual([0, 480, 330, -300, -210].map(formatUtcOffset), ["UTC", "UTC+8", "UTC+5:30", "UTC-5", "UTC-3:30"]);
  });

  it("is what the diagnosis sentences say, at the reader's offset and the source's precision", () => {
    const e = evidence("queue_added", "cause", [], { topic: null, queue: "broker-a:3", instance: "B", ts });
    assert.equal(describeEvidence(e), "B took queue broker-a:3 at 12:00:59.704");
    assert.equal(describeEvidence(e, { utcOffsetMinutes: 480 }), "B took queue broker-a:3 at 20:00:59.704");
    const coarse = evidence("queue_added", "cause", [], { topic: null, queue: "broker-a:3", instance: "B", ts }, { coarse: true });
    assert.equal(describeEvidence(coarse), "B took queue broker-a:3 at 12:00:59 (broker time, to the second)");
  });
});
