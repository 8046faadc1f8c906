import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contextRows } from "../../../lib/views/context-rows.ts";
import { client, SEC, trace } from "../../helpers/diagnosis-events.ts";

/** A key consumed inside a rebalance storm: its own events at 0–3 s, the group's rebalance lines every 50 ms. */
const own = [trace.pub({ at: 0, bizKey: "PAY-1", msgId: "M1", offsetMsgId: "O1", host: "10.0.0.20" }), trace.pub({ at: 3 * SEC, bizKey: "PAY-1", msgId: "M1", offsetMsgId: "O2", host: "10.0.0.20" })];
const storm = Array.from({ length: 2000 }, (_, i) =>
  client.rebalance(i % 2 === 0 ? "add" : "remove", { at: -60 * SEC + i * 50, group: "cg_pay", queue: `broker-a:${i % 8}`, instance: i % 3 === 0 ? "10.0.0.5@123" : "10.0.0.7@88" }),
);

describe("context rows on the key page", () => {
  it("lists a quiet key's whole context", () => {
    const few = storm.slice(0, 30);
    assert.deepEqual(contextRows(few, own, new Set()), { shown: few, total: 30 });
  });

  it("in a storm, lists the lines nearest the key's events and every cited one, in time order", () => {
    const cited = storm[5]!;
    const { shown, total } = contextRows(storm, own, new Set([cited.id]), 200);
    assert.equal(total, 2000);
    assert.equal(shown.length, 200);
    assert.ok(shown.includes(cited), "a line the evidence cites is listed however far it is");
    assert.ok(shown.every((e, i) => i === 0 || e.ts >= shown[i - 1]!.ts), "time order");
    const uncited = shown.filter((e) => e !== cited);
    const farthestShown = Math.max(...uncited.map((e) => Math.min(Math.abs(e.ts - own[0]!.ts), Math.abs(e.ts - own[1]!.ts))));
    const nearestLeftOut = Math.min(
      ...storm.filter((e) => !shown.includes(e)).map((e) => Math.min(Math.abs(e.ts - own[0]!.ts), Math.abs(e.ts - own[1]!.ts))),
    );
    assert.ok(farthestShown <= nearestLeftOut, `nothing left out is nearer than what is listed (${farthestShown} ms vs ${nearestLeftOut} ms)`);
  });
});
