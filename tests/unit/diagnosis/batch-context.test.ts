import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { BatchContext } from "../../../lib/diagnosis/batch-context.ts";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS, contextOf } from "../../../lib/diagnosis/scope.ts";
import { bareEvent as event, client, MIN, SEC, trace } from "../../helpers/diagnosis-events.ts";

const GROUP = "pay-consumer";
const T = 1_700_000_000_000;

/**
 * Events of a few keys, groups and hosts over ~20 minutes, so windows overlap, touch and stand apart; on a 30-second
 * grid, so that lines fall exactly on a window's edges.
 */
const arbitraryEvent = fc.record({
  n: fc.nat(),
  ts: fc.integer({ min: 0, max: 40 }).map((k) => k * 30_000),
  key: fc.option(fc.constantFrom("K1", "K2", "K3"), { nil: null }),
  group: fc.option(fc.constantFrom("g1", "g2"), { nil: null }),
  host: fc.option(fc.constantFrom("10.0.0.1", "10.0.0.2", "10.0.0.3"), { nil: null }),
  kind: fc.constantFrom("rebalance", "instance_lifecycle", "consume_end", "consume_start", "send_attempt"),
  names: fc.option(fc.subarray(["K1", "K2", "K3", "K4"]), { nil: null }),
  msg: fc.option(fc.constantFrom("M1", "M2", "M3"), { nil: null }),
});

function build(a: { n: number; ts: number; key: string | null; group: string | null; host: string | null; kind: string; names: string[] | null; msg: string | null }, i: number): NormalizedEvent {
  return event({
    id: `e${i}-${a.n % 7}`,
    ts: T + a.ts,
    kind: a.kind as NormalizedEvent["kind"],
    bizKey: a.key,
    group: a.group,
    instance: a.host === null ? null : `${a.host}@${4000 + (a.n % 3)}`,
    msgId: a.msg,
    detail: a.names === null ? {} : { keys: a.names },
  });
}

describe("BatchContext", () => {
  it("answers contextOf's context for every key, element for element and in order", () => {
    fc.assert(
      fc.property(fc.array(arbitraryEvent, { maxLength: 80 }), fc.array(arbitraryEvent, { minLength: 1, maxLength: 6 }), fc.nat(), (pool, own, pick) => {
        const candidates = pool.map(build).filter((e) => e.bizKey === null).sort((a, b) => a.ts - b.ts);
        // A key's own events: its keyed ones and, sometimes, keyless ones also among the candidates (a line naming its msgId).
        const mine = own.map((a, i) => build({ ...a, key: "K1" }, 1000 + i));
        if (candidates.length > 0 && pick % 2 === 0) mine.push(candidates[pick % candidates.length]!);
        const batch = new BatchContext(candidates);
        for (const keyEvents of [mine, mine.map((e) => ({ ...e, bizKey: "K2" })), mine.slice(0, 1)]) {
          assert.deepEqual(batch.of(keyEvents).map((e) => e.id), contextOf(keyEvents, candidates).map((e) => e.id));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("gives keys with the same groups, hosts and stretch one shared list, and a key named by a line its own", () => {
    const moved = (at: number) => client.resultChanged({ at, group: GROUP, instance: "10.0.0.5@4121", queues: ["broker-a:3"] });
    const lines = [moved(-MIN), moved(0), moved(MIN)];
    const named = client.consumeException({
      at: 20 * SEC, group: GROUP, queue: "broker-a:3", instance: "10.0.0.5@4121", msgId: "7F0000010B2A18B4AAC2841F3D9C0001",
      offsetMsgId: "0A000005000029AA0000000000001000", queueOffset: 7, retryTimes: 1, keys: ["PAY-2"],
    });
    const candidates = [...lines, named].sort((a, b) => a.ts - b.ts);
    const consume = (bizKey: string, at: number) => trace.consume({ bizKey, msgId: `7F0000010B2A18B4AAC2841F3D9C${String(at).padStart(4, "0")}`, group: GROUP, at, host: "10.0.0.5" });
    const batch = new BatchContext(candidates);
    const first = batch.of(consume("PAY-1", 10));
    assert.equal(batch.of(consume("PAY-3", 12)), first);
    assert.deepEqual(first.map((e) => e.id), lines.map((e) => e.id));
    assert.deepEqual(batch.of(consume("PAY-2", 11)).map((e) => e.id), candidates.map((e) => e.id));
    assert.ok(CONTEXT_BEFORE_MS > MIN && CONTEXT_AFTER_MS > MIN, "every line lies inside each key's window");
  });

  it("refuses candidates out of time order, since it reads them by binary search", () => {
    assert.throws(() => new BatchContext([event({ id: "b", ts: T + 1, kind: "rebalance" }), event({ id: "a", ts: T, kind: "rebalance" })]), /time order/);
  });
});
