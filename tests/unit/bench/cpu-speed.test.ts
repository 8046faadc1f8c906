import assert from "node:assert/strict";
import { test } from "node:test";
import { CpuSpeedProbe, slowness } from "../../../bench/cpu-speed.ts";

test("slowness is the median of a sample's readings against the base median", () => {
  assert.equal(slowness([5000, 5200, 9000], 5000), 1.04, "one reading taken while the probe was scheduled out does not move it");
  assert.equal(slowness([6500, 6500], 5000), 1.3);
  assert.equal(slowness([], 5000), null);
  assert.equal(slowness([5000], null), null);
});

test("the probe reports its work's CPU time once a second, and its child ends when stopped", async () => {
  const probe = new CpuSpeedProbe();
  try {
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.equal(probe.take(), 1, "the first sample is its own base");
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const next = probe.take();
    // Loose bounds: the unit tests share the machine with other work; a soak compares minutes of readings.
    assert.ok(next !== null && next > 0.25 && next < 4, String(next));
  } finally {
    probe.stop();
  }
});
