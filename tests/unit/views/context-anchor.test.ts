import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS, contextOf, contextScope } from "../../../lib/diagnosis/scope.ts";
import { contextAnchor } from "../../../lib/views/context-rows.ts";
import { shownWindows } from "../../../lib/views/key-page.ts";
import { client, HOUR, MIN, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

/**
 * "Around them" on a key page (issue 48): the caption says each line is from 2 min before to 3 min after one of
 * the key's events, and a key consumed again three hours later listed lines hours from its verdict. Each line now
 * names the key's event it was read around, and is within the caption's bounds of it.
 */

const GROUP = "cg_pay";
const HOST = "10.0.0.7";
const INSTANCE = `${HOST}@88`;
const own = [
  trace.pub({ at: 0, bizKey: "PAY-1", msgId: "M1", offsetMsgId: "O1", host: "10.0.0.20" }),
  ...trace.consume({ at: 2 * SEC, bizKey: "PAY-1", msgId: "M1", group: GROUP, host: HOST }),
  // The replay of the next morning: a second delivery three hours on.
  ...trace.consume({ at: 3 * HOUR, bizKey: "PAY-1", msgId: "M1", group: GROUP, host: HOST }),
];
const line = (at: number) => client.rebalance("add", { at, group: GROUP, queue: "broker-a:1", instance: INSTANCE });
const candidates = [line(-90 * SEC), line(19 * MIN), line(3 * HOUR - 100 * SEC), line(3 * HOUR + 170 * SEC), line(3 * HOUR + 19 * MIN)];

describe("the context lines of a key whose events lie hours apart", () => {
  const context = contextOf(own, candidates);

  it("are the lines within the caption's window of one of the key's events, and only those", () => {
    assert.deepEqual(
      context.map((e) => e.ts - T0),
      [-90 * SEC, 3 * HOUR - 100 * SEC, 3 * HOUR + 170 * SEC],
      "19 minutes from every event of the key is no context of it",
    );
  });

  it("each names the key's event it was read around, within 2 min before to 3 min after it", () => {
    for (const e of context) {
      const anchor = contextAnchor(e.ts, own);
      assert.ok(anchor, `a line at ${e.ts - T0} ms has an anchor`);
      assert.ok(anchor.offsetMs >= -CONTEXT_BEFORE_MS && anchor.offsetMs <= CONTEXT_AFTER_MS, `${anchor.offsetMs} ms`);
      assert.equal(anchor.offsetMs, e.ts - anchor.event.ts);
    }
    const late = contextAnchor(T0 + 3 * HOUR + 170 * SEC, own)!;
    assert.ok(late.event.ts >= T0 + 3 * HOUR && late.offsetMs <= CONTEXT_AFTER_MS, "read around the replay, not the first delivery");
    assert.equal(contextAnchor(T0 + 19 * MIN, own), undefined, "a line in no window has none");
  });

  it("prefers the nearer event whose window holds the line over a nearer one whose window does not", () => {
    const a = trace.pub({ at: 0, bizKey: "K", msgId: "M", offsetMsgId: "O", host: HOST });
    const b = trace.pub({ at: 5 * MIN + 30 * SEC, bizKey: "K", msgId: "M", offsetMsgId: "O", host: HOST });
    // 2 min 50 s after a (inside its 3 min tail), 2 min 40 s before b (outside its 2 min lead).
    const anchor = contextAnchor(T0 + 2 * MIN + 50 * SEC, [a, b])!;
    assert.deepEqual([anchor.event, anchor.offsetMs], [a, 2 * MIN + 50 * SEC]);
  });

  it("names windows less than a second apart as one stretch", () => {
    const windows = contextScope(own)!.windows;
    assert.equal(windows.length, 2, "the first delivery's stretch and the replay's");
    assert.deepEqual(shownWindows([{ from: 0, to: 300_000 }, { from: 300_400, to: 600_000 }, { from: 700_000, to: 800_000 }]), [
      { from: 0, to: 600_000 },
      { from: 700_000, to: 800_000 },
    ]);
  });
});
