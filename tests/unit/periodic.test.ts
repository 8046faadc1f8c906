import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventLoopTurns } from "../../lib/periodic.ts";

/** Counts the turns the event loop takes: one tick per turn, each scheduling the next. */
function countTurns(): { stop: () => number } {
  let turns = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      stopped = true;
      return turns;
    },
  };
}

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe("eventLoopTurns", () => {
  it("gives the event loop a turn once the interval has passed, and none before", async () => {
    const turn = eventLoopTurns(1);
    assert.equal(turn(), undefined);
    busy(1.5);
    let after = false;
    setImmediate(() => (after = true));
    const pending = turn();
    assert.ok(pending instanceof Promise);
    await pending;
    assert.ok(after, "an immediate queued before the turn ran during it");
    assert.equal(turn(), undefined, "the interval starts again from the turn");
  });

  it("lets I/O and timers through a long synchronous job, about once per interval", async () => {
    const counter = countTurns();
    const turn = eventLoopTurns(2);
    const started = performance.now();
    // 40 ms of work in 0.2 ms pieces, awaiting each answer as the ingest pipeline and the diagnosis loop do.
    for (let i = 0; i < 200; i++) {
      busy(0.2);
      await turn();
    }
    const elapsed = performance.now() - started;
    const turns = counter.stop();
    // Bounded by the time the job really took: on a loaded machine the turns themselves take longer, and the job with
    // them, and ~20 turns in 40 ms became 26 in 52 (seen in a full unit run beside other work).
    assert.ok(turns >= 5 && turns <= elapsed / 2 + 2, `expected at most one turn per 2 ms of the job's ${elapsed.toFixed(1)} ms and several, got ${turns}`);
  });
});
