import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLogTime, parseUtcOffset } from "../../../collectors/codecs/log-time.ts";

describe("zone-less log timestamps", () => {
  it("reads logback (.SSS) and log4j (,SSS) millisecond stamps at GMT+8", () => {
    const expected = Date.UTC(2026, 10, 30, 12, 0, 1, 204);
    assert.deepEqual(parseLogTime("2026-11-30 20:00:01.204 INFO …", "+08:00"), { ts: expected, precision: "ms" });
    assert.deepEqual(parseLogTime("2026-11-30 20:00:01,204 INFO …", "+08:00"), { ts: expected, precision: "ms" });
  });

  it("keeps second precision for broker.log stamps", () => {
    assert.deepEqual(parseLogTime("2026-11-30 20:00:01 INFO …", "+08:00"), { ts: Date.UTC(2026, 10, 30, 12, 0, 1), precision: "s" });
  });

  it("refuses impossible dates and bad offsets", () => {
    assert.equal(parseLogTime("2026-02-30 10:00:00", "Z"), undefined);
    assert.equal(parseLogTime("not a time", "Z"), undefined);
    assert.throws(() => parseUtcOffset("GMT+8"), /must look like \+08:00/);
  });
});
