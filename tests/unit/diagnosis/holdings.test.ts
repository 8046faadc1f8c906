import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { foldHoldings, holdingChangesIn, holdingsFor, queuesOf } from "../../../lib/diagnosis/holdings.ts";
import { memberChangesIn } from "../../../lib/diagnosis/members.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { broker, client, dedup, HOUR, kafka, MIN, redisOnce, SEC, T0, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

/**
 * Who held which queue over time (lib/diagnosis/holdings.ts), folded from the rebalance lines and the members'
 * closes: the intervals do not depend on the order lines arrive in, a line ingested twice is one change, and no
 * holding stays open once its holder is gone.
 */

const GROUP = "pay-consumer";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";
const Q = "broker-a:3";

const fold = (events: readonly NormalizedEvent[]) => foldHoldings(holdingChangesIn(events), memberChangesIn(events));
const shape = (events: readonly NormalizedEvent[]) => fold(events).map((i) => [i.topic, i.queue, i.holder, i.since, i.until, i.closedBy]);

describe("queue holdings over time", () => {
  it("ends a holding when another member takes the queue, and the old owner's late remove changes nothing", () => {
    const events = [
      client.rebalance("add", { at: 0, group: GROUP, queue: Q, instance: A }),
      client.rebalance("add", { at: 2 * HOUR, group: GROUP, queue: Q, instance: B }),
      client.rebalance("remove", { at: 2 * HOUR + 300, group: GROUP, queue: Q, instance: A }),
    ];
    assert.deepEqual(shape(events), [
      ["PAY_SUCCESS", Q, A, T0, T0 + 2 * HOUR, "taken"],
      ["PAY_SUCCESS", Q, B, T0 + 2 * HOUR, null, null],
    ]);
  });

  it("gives the same intervals whatever order the lines arrive in, and once for a line ingested twice", () => {
    const events = [
      client.resultChanged({ at: 0, group: GROUP, instance: A, queues: ["broker-a:0", "broker-a:1", Q] }),
      client.rebalance("add", { at: 0, group: GROUP, queue: "broker-a:0", instance: A }),
      client.resultChanged({ at: HOUR, group: GROUP, instance: A, queues: ["broker-a:0", "broker-a:1"] }),
      client.rebalance("add", { at: HOUR + 5, group: GROUP, queue: Q, instance: B }),
      client.rebalance("remove", { at: 2 * HOUR, group: GROUP, queue: "broker-a:0", instance: A }),
      client.lifecycle("shutdown", { at: 3 * HOUR, group: GROUP, instance: A }),
      client.rebalance("remove", { at: 4 * HOUR, group: GROUP, queue: "broker-b:0", instance: B }),
      kafka.partition("assign", { at: 0, group: GROUP, topic: "orders", partition: 0, instance: "consumer-pay-1" }),
      kafka.partition("lost", { at: MIN, group: GROUP, topic: "orders", partition: 0, instance: "consumer-pay-1" }),
    ];
    const inOrder = shape(events);
    fc.assert(
      fc.property(fc.shuffledSubarray([...events, ...events], { minLength: events.length * 2, maxLength: events.length * 2 }), (shuffled) => {
        assert.deepEqual(shape(shuffled), inOrder);
      }),
    );
    assert.deepEqual(inOrder, [
      ["PAY_SUCCESS", "broker-a:0", A, T0, T0 + 2 * HOUR, "removed"],
      ["PAY_SUCCESS", "broker-a:1", A, T0, T0 + 3 * HOUR, "closed"],
      ["PAY_SUCCESS", Q, A, T0, T0 + HOUR, "removed"],
      ["PAY_SUCCESS", Q, B, T0 + HOUR + 5, null, null],
      ["PAY_SUCCESS", "broker-b:0", B, null, T0 + 4 * HOUR, "removed"],
      ["orders", "orders-0", "consumer-pay-1", T0, T0 + MIN, "lost"],
    ]);
  });

  it("leaves no holding open once the broker dropped its holder's channel, whichever line came first", () => {
    const events = [client.rebalance("add", { at: -MIN, group: GROUP, queue: Q, instance: A }), broker.lifecycle("channel_inactive", { at: 7 * SEC, group: GROUP, instance: A })];
    assert.deepEqual(shape(events), [["PAY_SUCCESS", Q, A, T0 - MIN, Math.floor((T0 + 7 * SEC) / 1000) * 1000, "closed"]]);
    assert.deepEqual(shape([...events].reverse()), shape(events));
  });

  it("reads a key's holdings of the queues its deliveries came from, within its span", () => {
    const lines = [
      client.rebalance("add", { at: -3 * HOUR, group: GROUP, queue: Q, instance: A }),
      client.rebalance("add", { at: 5 * SEC, group: GROUP, queue: Q, instance: B }),
      client.rebalance("add", { at: -3 * HOUR, group: GROUP, queue: "broker-a:1", instance: A }),
    ];
    const events = redisOnce({ at: 0, bizKey: "K-1", msgId: "M-1", group: GROUP, instance: A, queue: Q, queueOffset: 88123 });
    const queues = queuesOf(events);
    assert.deepEqual(queues, [{ group: GROUP, topic: "PAY_SUCCESS", queue: Q }]);
    const read = holdingsFor(fold(lines), queues, { from: T0 - 10 * MIN, to: T0 + 3 * MIN });
    assert.deepEqual(read.map((i) => [i.holder, i.closedBy]), [[A, "taken"], [B, null]]);
  });

  it("property: any shuffle and duplication of random rebalance lines folds to the same intervals, and none stays open past its holder's close", () => {
    const holders = [A, B, "10.0.0.9@7"];
    const line = fc.record({
      at: fc.integer({ min: 0, max: 20 }).map((n) => n * SEC),
      holder: fc.constantFrom(...holders),
      queue: fc.constantFrom("broker-a:0", "broker-a:1"),
      what: fc.constantFrom("add", "remove", "set", "shutdown"),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.infiniteStream(fc.nat()), (drawn, seeds) => {
        const events = drawn.map((d) =>
          d.what === "set"
            ? client.resultChanged({ at: d.at, group: GROUP, instance: d.holder, queues: [d.queue] })
            : d.what === "shutdown"
              ? client.lifecycle("shutdown", { at: d.at, group: GROUP, instance: d.holder })
              : client.rebalance(d.what, { at: d.at, group: GROUP, queue: d.queue, instance: d.holder }),
        );
        const doubled = [...events, ...events];
        const it = seeds[Symbol.iterator]();
        for (let i = doubled.length - 1; i > 0; i--) {
          const j = it.next().value! % (i + 1);
          [doubled[i], doubled[j]] = [doubled[j]!, doubled[i]!];
        }
        const intervals = fold(events);
        assert.deepEqual(fold(doubled), intervals);
        for (const d of drawn.filter((x) => x.what === "shutdown")) {
          const stillOpen = intervals.filter((i) => i.holder === d.holder && i.until === null && i.since !== null && i.since <= T0 + d.at);
          assert.deepEqual(stillOpen, [], "a shutdown ends every holding its holder had taken by then");
        }
      }),
    );
  });
});

describe("rebalance attribution from the holdings", () => {
  const KEY = "ORD-20261130-000042";
  const MSG = "0A000005216C18B4AAC27A9E2A3F0001";
  const keyEvents = () => [
    trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: "10.0.0.20" }),
    ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
    ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: Q, queueOffset: 88123 }),
    ...trace.consume({ at: 1690, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
    dedup({ at: 1692, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: Q, queueOffset: 88123, dedupKey: `pay:${KEY}` }),
  ];

  it("names the old holder when only the new owner's take is among the raw lines: held since days before (raw line expired)", () => {
    const takenLongAgo = client.rebalance("add", { at: -3 * 24 * HOUR, group: GROUP, queue: Q, instance: A });
    const takeOver = client.rebalance("add", { at: 1500, group: GROUP, queue: Q, instance: B });
    const events = keyEvents();
    const holdings = foldHoldings(holdingChangesIn([takenLongAgo, takeOver])).map((i) => ({ ...i, sinceRaw: i.sinceEvent === takeOver.id }));
    const without = diagnoseKey({ bizKey: KEY, events, context: [takeOver], holdings: [] }).duplicates[0]!;
    const v = diagnoseKey({ bizKey: KEY, events, context: [takeOver], holdings }).duplicates[0]!;
    assert.equal(v.cause, "rebalance");
    assert.ok(v.confidence > without.confidence, `${v.confidence} over ${without.confidence} (${without.cause}) without the holdings`);
    const taken = valuesOf(v.evidence, "queue_taken_over");
    assert.deepEqual([taken.from, taken.to, taken.since, taken.expired, taken.position], [A, B, T0 - 3 * 24 * HOUR, true, "between"]);
    const text = describeEvidence(v.evidence.find((e) => e.code === "queue_taken_over")!);
    assert.match(text, /^10\.0\.0\.5@4121 had held queue .*broker-a:3.* since .* \(raw line expired\) until 10\.0\.0\.7@88 took it at /);
  });

  it("decides as before when the old owner's remove is among the raw lines, and never reads a crash as a take-over", () => {
    const events = keyEvents();
    const context = [client.rebalance("remove", { at: 1400, group: GROUP, queue: Q, instance: A }), client.rebalance("add", { at: 1500, group: GROUP, queue: Q, instance: B })];
    const longAgo = client.rebalance("add", { at: -3 * 24 * HOUR, group: GROUP, queue: Q, instance: A });
    const raw = diagnoseKey({ bizKey: KEY, events, context, holdings: [] }).duplicates[0]!;
    const held = diagnoseKey({ bizKey: KEY, events, context, holdings: fold([longAgo, ...context]) }).duplicates[0]!;
    assert.deepEqual([held.cause, held.confidence, held.evidence.map((e) => e.code)], [raw.cause, raw.confidence, raw.evidence.map((e) => e.code)]);

    const crash = [broker.lifecycle("channel_inactive", { at: 1450, group: GROUP, instance: A }), client.rebalance("add", { at: 1500, group: GROUP, queue: Q, instance: B })];
    const holdings = fold([longAgo, ...crash]);
    assert.equal(holdings.find((i) => i.holder === A)!.closedBy, "closed");
    const v = diagnoseKey({ bizKey: KEY, events, context: crash, holdings }).duplicates[0]!;
    assert.ok(!v.evidence.some((e) => e.code === "queue_taken_over"));
  });
});
