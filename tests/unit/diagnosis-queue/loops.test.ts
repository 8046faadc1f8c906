import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnosisLoops } from "../../../lib/diagnosis-queue/worker.ts";

describe("DUPSCOPE_DIAGNOSIS_LOOPS", () => {
  it("is one loop unless set, and the number given from 1 to 8", () => {
    assert.equal(diagnosisLoops({}), 1);
    assert.equal(diagnosisLoops({ DUPSCOPE_DIAGNOSIS_LOOPS: " " }), 1);
    assert.equal(diagnosisLoops({ DUPSCOPE_DIAGNOSIS_LOOPS: "2" }), 2);
    assert.equal(diagnosisLoops({ DUPSCOPE_DIAGNOSIS_LOOPS: "8" }), 8);
  });

  it("refuses anything else with the setting's name and the value it got", () => {
    for (const raw of ["0", "9", "1.5", "two", "-1"]) {
      assert.throws(() => diagnosisLoops({ DUPSCOPE_DIAGNOSIS_LOOPS: raw }), new RegExp(`DUPSCOPE_DIAGNOSIS_LOOPS must be a whole number from 1 to 8, got "${raw.replace(".", "\\.")}"`));
    }
  });
});
