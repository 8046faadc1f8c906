import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evidence, mergeRepeatedEvidence } from "../../../lib/diagnosis/evidence.ts";

/** A verdict lists each fact once, however many lines state it (lib/diagnosis/evidence.ts, mergeRepeatedEvidence). */
describe("repeated evidence", () => {
  it("merges items that say the same thing into one citing every line, in first-seen order", () => {
    const joinedA = evidence("member_joined", "cause", ["broker-a:1"], { instance: "10.0.11.14@45954", ts: 1000, beforeFirstMs: 1000, intervalMs: 20_000 }, { coarse: true });
    const joinedB = evidence("member_joined", "cause", ["broker-b:7"], { instance: "10.0.11.14@45954", ts: 1000, beforeFirstMs: 1000, intervalMs: 20_000 }, { coarse: true });
    const alive = evidence("owner_still_alive", "cause", ["c:2"], { instance: "10.0.11.12@9453", ts: 5000 });
    const merged = mergeRepeatedEvidence([joinedA, alive, joinedB]);
    assert.deepEqual(merged.map((e) => [e.code, e.eventIds]), [["member_joined", ["broker-a:1", "broker-b:7"]], ["owner_still_alive", ["c:2"]]]);
    assert.deepEqual(joinedA.eventIds, ["broker-a:1"], "the items given are left as they were");
  });

  it("keeps items apart when anything they say differs", () => {
    const at = (ts: number, coarse: boolean) => evidence("member_joined", "cause", [`e${ts}${coarse}`], { instance: "10.0.11.14@45954", ts, beforeFirstMs: 1000, intervalMs: 20_000 }, { coarse });
    assert.equal(mergeRepeatedEvidence([at(1000, true), at(2000, true), at(1000, false)]).length, 3);
  });
});
