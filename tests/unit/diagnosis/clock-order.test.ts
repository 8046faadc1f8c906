import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { clockOrder, consumedBeforeSent, orderPair } from "../../../lib/diagnosis/clock-order.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { dedup, T0 } from "../../helpers/diagnosis-events.ts";

const stamp = fc.integer({ min: T0 - 3_600_000, max: T0 + 3_600_000 });
const delivery = fc.record({ n: fc.integer({ min: 1, max: 40 }), start: stamp }).map(({ n, start }) => ({ id: `d${n}`, start }));

describe("clock order of two events whose order is known", () => {
  it("measures a pair the clocks agree with as its gap, with no skew", () => {
    assert.deepEqual(clockOrder(T0, T0 + 390), { gapMs: 390, clockSkewMs: 0 });
    assert.deepEqual(clockOrder(T0, T0), { gapMs: 0, clockSkewMs: 0 });
  });

  it("measures a pair stamped the other way round as a positive gap and says the clocks disagree by as much", () => {
    assert.deepEqual(clockOrder(T0 + 189, T0), { gapMs: 189, clockSkewMs: 189 });
  });

  it("never gives a negative gap or skew, and gives a skew only when the later stamp is the smaller one", () => {
    fc.assert(
      fc.property(stamp, stamp, (earlier, later) => {
        const o = clockOrder(earlier, later);
        assert.ok(o.gapMs >= 0 && o.clockSkewMs >= 0);
        assert.ok(!Object.is(o.gapMs, -0) && !Object.is(o.clockSkewMs, -0));
        assert.equal(o.gapMs, Math.abs(later - earlier));
        assert.equal(o.clockSkewMs > 0, later < earlier);
      }),
    );
  });

  it("orders a pair of deliveries by the diagnosis's numbering, whatever order they are given in", () => {
    const d2 = { id: "d2", start: T0 };
    const d10 = { id: "d10", start: T0 + 189 };
    assert.deepEqual(orderPair(d10, d2), { first: d2, second: d10, gapMs: 189, clockSkewMs: 0 });
    fc.assert(
      fc.property(delivery, delivery, (a, b) => {
        fc.pre(a.id !== b.id);
        const one = orderPair(a, b);
        const other = orderPair(b, a);
        assert.deepEqual(one, other);
        assert.ok(Number(one.first.id.slice(1)) < Number(one.second.id.slice(1)));
        assert.ok(one.gapMs >= 0);
      }),
    );
  });

  it("says how far a consumption is stamped before the earliest send of its message", () => {
    assert.equal(consumedBeforeSent(T0, [T0 + 180, T0 + 3000]), 180);
    assert.equal(consumedBeforeSent(T0 + 400, [T0 + 180]), 0);
    assert.equal(consumedBeforeSent(T0, []), 0);
  });
});

describe("verdicts measured by clock order", () => {
  it("gives a pair the clocks put the other way round a positive gap and the skew, in the diagnosis's order", () => {
    // B's hit (stamped 189 ms before A's pass) must follow the pass that set the marker: the diagnosis reorders them.
    const line = (at: number, instance: string, decision: "pass" | "executed" | "hit") =>
      dedup({ at, bizKey: "K", msgId: "M", group: "g", instance, layer: "redis", decision });
    const events = [line(189, "10.0.0.5@1", "pass"), line(190, "10.0.0.5@1", "executed"), line(0, "10.0.0.6@2", "hit")];
    const [v, ...rest] = diagnoseKey({ bizKey: "K", events, context: [] }).duplicates;
    assert.deepEqual(rest, []);
    assert.deepEqual([v!.instances.first, v!.instances.second, v!.gapMs, v!.clockSkewMs, v!.gapClass], ["10.0.0.5@1", "10.0.0.6@2", 189, 189, "ms"]);
  });
});
