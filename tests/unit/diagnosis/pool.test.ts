import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { keyPool, wholePool, type KeyPool } from "../../../lib/diagnosis/pool.ts";
import type { DiagnosisInput } from "../../../lib/diagnosis/types.ts";
import { bareEvent } from "../../helpers/diagnosis-events.ts";

const T = 1_700_000_000_000;
const KEYS = ["K1", "K2", "K3"];
const MSG_IDS = ["M1", "M2", "M3", "M4"];

function event(over: Partial<NormalizedEvent> & Pick<NormalizedEvent, "id" | "kind">): NormalizedEvent {
  return bareEvent({ ts: T, group: "pay-consumer", ...over });
}

/**
 * Lines filed under a key or keyless, naming a msgId, listing keys in detail.keys (with repeats and non-strings, as
 * a hostile producer may write them), send spans with and without a record, and context kinds; ids drawn from a
 * small set, and the key's events and the context drawing them from one set in some runs, so that they share one.
 */
const arbitraryEvent = fc.record({
  id: fc.integer({ min: 0, max: 60 }),
  ts: fc.integer({ min: 0, max: 600 }),
  kind: fc.constantFrom("publish", "send_attempt", "consume_start", "consume_end", "dedup", "rebalance", "instance_lifecycle", "transaction"),
  key: fc.option(fc.constantFrom(...KEYS), { nil: null }),
  msgId: fc.option(fc.constantFrom(...MSG_IDS), { nil: null }),
  listed: fc.option(fc.array(fc.oneof(fc.constantFrom(...KEYS, "K9"), fc.constant(7)), { maxLength: 4 }), { nil: null }),
  spanId: fc.option(fc.constantFrom("s1", "s2"), { nil: null, freq: 8 }),
  parentSpanId: fc.option(fc.constantFrom("s1", "s2"), { nil: null }),
});

type Drawn = typeof arbitraryEvent extends fc.Arbitrary<infer A> ? A : never;

function build(prefix: string, a: Drawn): NormalizedEvent {
  const detail: NormalizedEvent["detail"] = {};
  if (a.listed !== null) detail.keys = a.listed;
  if (a.spanId !== null) detail.spanId = a.spanId;
  if (a.parentSpanId !== null) detail.parentSpanId = a.parentSpanId;
  return event({ id: `${prefix}${a.id}`, ts: T + a.ts * 1000, kind: a.kind as NormalizedEvent["kind"], bizKey: a.key, msgId: a.msgId, detail });
}

function sameAnswers(fast: KeyPool, whole: KeyPool): void {
  assert.deepEqual(fast.keyEvents, whole.keyEvents);
  assert.deepEqual(fast.context, whole.context);
  assert.deepEqual(fast.all(), whole.all());
  for (const msgId of [...MSG_IDS, "M9"]) assert.equal(fast.published(msgId), whole.published(msgId), msgId);
}

describe("a key's pool read through the shared context", () => {
  it("answers as the whole pool walked: the key's events, the context kinds, publishes and the pool itself", () => {
    fc.assert(
      fc.property(fc.array(arbitraryEvent, { maxLength: 30 }), fc.array(arbitraryEvent, { maxLength: 60 }), fc.boolean(), (own, around, apart) => {
        const context = around.map((a) => build("e", a)).sort((a, b) => a.ts - b.ts);
        for (const bizKey of KEYS) {
          const input: DiagnosisInput = { bizKey, events: own.map((a) => build(apart ? "k" : "e", a)), context };
          sameAnswers(keyPool(input), wholePool(input));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("takes the shortcut for keys whose events are apart from the context, and answers alike after the list grew", () => {
    const context: NormalizedEvent[] = [
      event({ id: "c1", kind: "rebalance" }),
      event({ id: "c2", kind: "consume_end", msgId: "M1" }),
      event({ id: "c3", kind: "consume_start", detail: { keys: ["K1", "K1"] } }),
      event({ id: "c4", kind: "publish", msgId: "M2" }),
    ];
    const input: DiagnosisInput = { bizKey: "K1", events: [event({ id: "k1", kind: "consume_start", bizKey: "K1", msgId: "M1" })], context };
    const fast = keyPool(input);
    assert.deepEqual(
      fast.keyEvents.map((e) => e.id),
      ["k1", "c2", "c3"],
    );
    assert.equal(fast.context, keyPool({ ...input, bizKey: "K2", events: [] }).context, "keys without context-kind events of their own share one list");
    sameAnswers(fast, wholePool(input));
    context.push(event({ id: "c5", kind: "consume_end", bizKey: null, msgId: "M1" }));
    sameAnswers(keyPool(input), wholePool(input));
    assert.deepEqual(
      keyPool(input).keyEvents.map((e) => e.id),
      ["k1", "c2", "c3", "c5"],
    );
  });
});
