import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { transition, type StoredState } from "../../../lib/alerts/state-machine.ts";

const inactive: StoredState = { state: "inactive", activeSince: null, lastNotifiedAt: null };
const FOR = 60_000;
const REPEAT = 3_600_000;

/** Runs a sequence of (time, active) evaluations and returns the states and notifications. */
function run(steps: [number, boolean][], forMs = FOR, repeatMs = REPEAT, start = inactive) {
  let state = start;
  return steps.map(([now, active]) => {
    const t = transition(state, active, now, forMs, repeatMs);
    state = t.next;
    return `${t.next.state}${t.notify ? `:${t.notify}` : ""}`;
  });
}

describe("alert state machine", () => {
  it("goes inactive → pending → firing → resolved, notifying only firing and resolved", () => {
    assert.deepEqual(run([[0, false], [1000, true], [30_000, true], [61_000, true], [90_000, true], [120_000, false], [150_000, false]]), [
      "inactive",
      "pending",
      "pending",
      "firing:firing",
      "firing",
      "resolved:resolved",
      "resolved",
    ]);
  });

  it("fires at once when `for` is 0", () => {
    assert.deepEqual(run([[0, true], [1, true]], 0), ["firing:firing", "firing"]);
  });

  it("drops a breach that ends before `for` without a word", () => {
    assert.deepEqual(run([[0, true], [59_000, false], [70_000, true], [100_000, true], [130_000, true]]), [
      "pending",
      "inactive",
      "pending",
      "pending",
      "firing:firing",
    ]);
  });

  it("counts `for` from the start of the breach, across evaluations", () => {
    const pending = transition(inactive, true, 10_000, FOR, REPEAT).next;
    assert.equal(pending.activeSince, 10_000);
    assert.equal(transition(pending, true, 69_999, FOR, REPEAT).notify, null);
    assert.equal(transition(pending, true, 70_000, FOR, REPEAT).notify, "firing");
  });

  it("reminds every repeat interval while firing, and never when the interval is 0", () => {
    assert.deepEqual(run([[0, true], [REPEAT - 1, true], [REPEAT, true], [REPEAT + 1, true], [2 * REPEAT, true]], 0), [
      "firing:firing",
      "firing",
      "firing:repeat",
      "firing",
      "firing:repeat",
    ]);
    assert.deepEqual(run([[0, true], [10 * REPEAT, true]], 0, 0), ["firing:firing", "firing"]);
  });

  it("fires again after a resolution, through pending", () => {
    const resolved: StoredState = { state: "resolved", activeSince: null, lastNotifiedAt: 0 };
    assert.deepEqual(run([[1000, true], [61_000, true], [62_000, false]], FOR, REPEAT, resolved), ["pending", "firing:firing", "resolved:resolved"]);
  });

  it("resumes from a stored state as if it had never stopped (a restart sends nothing)", () => {
    const stored: StoredState = { state: "firing", activeSince: 0, lastNotifiedAt: 60_000 };
    assert.deepEqual(transition(stored, true, 120_000, FOR, REPEAT), { next: stored, notify: null });
  });
});
