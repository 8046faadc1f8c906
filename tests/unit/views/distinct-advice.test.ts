import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { distinctAdvice } from "../../../lib/views/key-report.ts";

describe("a key's advice across its groups", () => {
  it("lists each distinct sentence once, with every group it was given for, in order of first mention", () => {
    const findings = [
      { group: "cg_points", adviceText: ["use one atomic SET", "add a DB unique key"] },
      { group: "cg_invoice", adviceText: ["add a DB unique key", "use one atomic SET"] },
      { group: null, adviceText: ["add the dedup log"] },
    ];
    assert.deepEqual(distinctAdvice(findings), [
      { text: "use one atomic SET", groups: ["cg_points", "cg_invoice"] },
      { text: "add a DB unique key", groups: ["cg_points", "cg_invoice"] },
      { text: "add the dedup log", groups: [null] },
    ]);
  });

  it("names a group once even when its findings are split by topic", () => {
    assert.deepEqual(distinctAdvice([{ group: "g", adviceText: ["a"] }, { group: "g", adviceText: ["a"] }]), [{ text: "a", groups: ["g"] }]);
  });
});
