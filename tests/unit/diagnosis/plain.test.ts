import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { isOneDelivery, mergePlain, PlainKeys, type PlainSummary } from "../../../lib/diagnosis/plain.ts";
import { msgIdsOf } from "../../../lib/diagnosis/scope.ts";
import type { DiagnosisInput } from "../../../lib/diagnosis/types.ts";
import { keyRow } from "../../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { runSimulation } from "../../../lib/simulator/run.ts";
import { contributionOf, namedKeysOf } from "../../../lib/store/ingest-journal.ts";
import { inputsOf } from "../../helpers/diagnosis-inputs.ts";
import { bareEvent } from "../../helpers/diagnosis-events.ts";
import { parseSimulation } from "../../helpers/simulated-events.ts";

/**
 * A key the ingest journal sums as delivered once (lib/diagnosis/plain.ts) is written without the engine, so the
 * engine must find exactly that in its events whatever their context: no duplicate, no normal retry, nothing lost,
 * and the same row (groups, topics, first and last times). Checked on events drawn around every condition's edge and
 * on every key of the simulator's scenarios; and summing events in two parts and merging them must equal summing all.
 */

const T = 1_700_000_000_000;
const MIN = 60_000;

const arbitraryEvent = fc.record({
  id: fc.integer({ min: 0, max: 1_000_000 }),
  kind: fc.constantFrom("publish", "publish", "consume_start", "consume_start", "consume_end", "consume_end", "dedup", "dedup", "ack", "business_effect"),
  // Within a millisecond or two (ties the engine orders by stage), seconds apart, and past a consume timeout (15 min).
  ts: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 40 * MIN })),
  msgId: fc.option(fc.constantFrom("M1", "M1", "M1", "M2"), { nil: null, freq: 12 }),
  group: fc.option(fc.constantFrom("pay", "pay", "pay", "audit"), { nil: null, freq: 8 }),
  topic: fc.option(fc.constantFrom("PAY", "PAY", "%RETRY%pay"), { nil: null, freq: 8 }),
  instance: fc.option(fc.constantFrom("10.0.1.10@7000", "10.0.1.10@7000", "10.0.1.10@7000", "10.0.1.11@7000", "10.0.1.10", "consumer-a", ""), { nil: null, freq: 12 }),
  queue: fc.constantFrom("broker-a:3", "broker-a:3", "broker-a:3", null, "broker-b:0"),
  queueOffset: fc.constantFrom(42, 42, 42, null, 43),
  retryTimes: fc.constantFrom(0, 0, 0, null, 1),
  requestId: fc.constantFrom("r1", "r1", null, "r2", ""),
  decision: fc.constantFrom("pass", "pass", "pass", "hit", "executed", "released", "failed", "maybe"),
  layer: fc.constantFrom("redis", "db", "bloom"),
  template: fc.constantFrom(null, null, null, "consume_exception", "send_expire_msg_back", "consume_ok"),
  success: fc.constantFrom(true, true, false, null),
});

type Drawn = typeof arbitraryEvent extends fc.Arbitrary<infer A> ? A : never;

/**
 * Events of one message that mostly stay candidates, so that keys with several dedup lines, two groups and late
 * ends are summed and settled often: the draws above give up on most keys after a line or two.
 */
const candidateEvent: fc.Arbitrary<Drawn> = fc.record({
  id: fc.integer({ min: 0, max: 1_000_000 }),
  kind: fc.constantFrom("publish", "consume_start", "consume_end", "dedup", "dedup", "dedup", "business_effect"),
  ts: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 40 * MIN })),
  msgId: fc.constant("M1"),
  group: fc.constantFrom("pay", "pay", "audit"),
  topic: fc.constantFrom("PAY", "PAY", null),
  instance: fc.constantFrom("10.0.1.10@7000", "10.0.1.10@7000", "10.0.1.10", "10.0.1.11@7000"),
  queue: fc.constant("broker-a:3"),
  queueOffset: fc.constant(42),
  retryTimes: fc.constantFrom(0, 0, null),
  requestId: fc.constantFrom("r1", "r1", "r2", null),
  decision: fc.constantFrom("pass", "pass", "executed"),
  layer: fc.constantFrom("bloom", "redis", "db"),
  template: fc.constant(null),
  success: fc.constantFrom(true, false, null),
});

/** A key's events, drawn around every condition's edge or mostly as candidates. */
const arbitraryKeyEvents = (minLength: number, maxLength: number) =>
  fc.oneof(fc.array(arbitraryEvent, { minLength, maxLength }), fc.array(candidateEvent, { minLength, maxLength }));

/** The `i`th event of a key: each one a record of its own, as the store keeps them (one id, one row). */
function build(a: Drawn, i: number): NormalizedEvent {
  const detail: NormalizedEvent["detail"] = {};
  if (a.requestId !== null) detail.requestId = a.requestId;
  if (a.kind === "dedup" || a.kind === "business_effect") Object.assign(detail, { decision: a.decision, layer: a.layer });
  if (a.kind === "consume_end" && a.template !== null) detail.template = a.template;
  const source = a.kind === "dedup" ? "dedup-log:app.log" : a.template !== null && a.kind === "consume_end" ? "rocketmq-client-log:c.log" : "rocketmq-trace:t";
  return bareEvent({
    id: `${source.split(":")[0]}:${(a.id * 100 + i).toString(16).padStart(32, "0")}`,
    kind: a.kind as NormalizedEvent["kind"],
    ts: T + a.ts,
    bizKey: "K",
    msgId: a.msgId,
    group: a.kind === "publish" ? null : a.group,
    topic: a.topic,
    instance: a.kind === "publish" ? "10.0.0.9" : a.instance,
    queue: a.queue,
    queueOffset: a.queueOffset,
    retryTimes: a.retryTimes,
    success: a.kind === "consume_end" ? a.success : null,
    detail,
    source,
  });
}

/** Keyless lines around the key that name neither it nor its message: rebalances, a consumer leaving, a resend. */
const arbitraryContext = fc.array(
  fc.record({
    ts: fc.integer({ min: -3 * MIN, max: 40 * MIN }),
    kind: fc.constantFrom("rebalance", "instance_lifecycle", "send_attempt", "consume_end"),
    instance: fc.constantFrom("10.0.1.10@7000", "10.0.1.11@7000", "10.0.0.9"),
    group: fc.option(fc.constant("pay"), { nil: null }),
  }),
  { maxLength: 6 },
);

function summaryOf(events: readonly NormalizedEvent[]): PlainSummary | null {
  const keys = new PlainKeys();
  for (const e of events) keys.add("K", contributionOf(e));
  return keys.entries()[0]?.[1] ?? null;
}

/** The row a worker would store for this input, and whether the engine found nothing. */
function engineRow(input: DiagnosisInput) {
  const diagnosis = diagnoseKey(input);
  const row = keyRow({ input: { ...input, contextTruncated: false }, diagnosis });
  const perGroup = new Map<string | null, number>();
  for (const d of diagnosis.deliveries) perGroup.set(d.group, (perGroup.get(d.group) ?? 0) + 1);
  return { ...row, g: [...row.g].sort(), t: [...row.t].sort(), perGroup: Math.max(0, ...perGroup.values()) };
}

function assertSettledAsEngine(input: DiagnosisInput, summary: PlainSummary): void {
  const row = engineRow(input);
  assert.deepEqual(
    { g: row.g, t: row.t, f: row.f, l: row.l, d: row.d, lk: row.lk, lo: row.lo, nr: row.nr, dj: row.dj },
    { g: summary.groups, t: summary.topics, f: summary.first, l: summary.last, d: 0, lk: 0, lo: 0, nr: 0, dj: null },
    JSON.stringify(input.events.map((e) => [e.kind, e.ts - T, e.msgId, e.group, e.instance, e.queue, e.queueOffset, e.retryTimes, e.detail])),
  );
  assert.ok(row.perGroup <= 1);
}

describe("a key delivered once, told from its events", () => {
  it("is what the engine makes of them, whatever context lines that name neither it nor its message surround them", () => {
    let settled = 0;
    let runs = 0;
    fc.assert(
      fc.property(arbitraryKeyEvents(1, 7), arbitraryContext, (drawn, around) => {
        runs++;
        const events = drawn.map(build);
        const summary = summaryOf(events);
        if (summary === null || !isOneDelivery(summary)) return;
        settled++;
        const context = around.map((c, i) =>
          bareEvent({ id: `rocketmq-client-log:${i.toString(16).padStart(32, "0")}`, kind: c.kind as NormalizedEvent["kind"], ts: T + c.ts, group: c.group, instance: c.instance, detail: c.kind === "consume_end" ? { keys: ["OTHER"] } : {} }),
        );
        assertSettledAsEngine({ bizKey: "K", events, context }, summary);
      }),
      { numRuns: 5000 },
    );
    // The draws reach both sides of the conditions: neither nearly always settled nor nearly never.
    assert.ok(settled > runs * 0.05 && settled < runs * 0.9, `${settled} of ${runs} draws settled`);
  });

  it("is left to the engine at the edges the drawn events seldom reach, where the engine finds two deliveries", () => {
    let id = 0;
    const at = (over: Partial<Drawn>): Drawn => ({
      id: id++, kind: "consume_start", ts: 0, msgId: "M1", group: "pay", topic: "PAY", instance: "10.0.1.10@7000",
      queue: "broker-a:3", queueOffset: 42, retryTimes: 0, requestId: "r1", decision: "pass", layer: "redis", template: null, success: true, ...over,
    });
    const cases: [string, Drawn[]][] = [
      ["an executed dedup line before a pass of the same millisecond and layer", [at({}), at({ kind: "dedup", decision: "executed", ts: 5 }), at({ kind: "dedup", ts: 5 }), at({ kind: "consume_end", ts: 9 })]],
      ["a dedup run after its attempt ended", [at({}), at({ kind: "consume_end", ts: 9 }), at({ kind: "dedup", ts: 9 + 4000 })]],
      ["a dedup run of another process", [at({}), at({ kind: "dedup", ts: 1, instance: "10.0.1.11@7000" }), at({ kind: "consume_end", ts: 9 })]],
      ["a dedup run of another retry round", [at({}), at({ kind: "dedup", ts: 1, retryTimes: 1 }), at({ kind: "consume_end", ts: 9 })]],
      ["an end before its start without a shared requestId", [at({ ts: 10, requestId: null }), at({ kind: "consume_end", ts: 5, requestId: null })]],
      [
        "another group's loose end, taken for this group's attempt, which then ends before its dedup run",
        [at({}), at({ kind: "consume_end", group: "audit", ts: 10, requestId: null }), at({ kind: "dedup", ts: 20_000 })],
      ],
      [
        "two groups' starts of one requestId, paired with each other's ends",
        [at({}), at({ group: "audit", ts: 1 }), at({ kind: "consume_end", group: "audit", ts: 2 }), at({ kind: "consume_end", ts: 30_000 }), at({ kind: "dedup", ts: 10_000 })],
      ],
    ];
    for (const [what, drawn] of cases) {
      const events = drawn.map(build);
      const summary = summaryOf(events);
      assert.ok(summary !== null, what);
      assert.equal(isOneDelivery(summary), false, what);
      const row = engineRow({ bizKey: "K", events, context: [] });
      assert.equal(row.perGroup, 2, `${what}: the engine joins two deliveries`);
    }
  });

  it("leaves to the engine a business effect that states a decision other than executed, which has no place among an attempt's lines", () => {
    // Found by the drawn events: the engine orders two effects of one millisecond as given, so an `executed` effect
    // stored before a passing one ends its run and the pass begins a second delivery.
    const effect = (decision: Drawn["decision"], id: number) =>
      build({ id, kind: "business_effect", ts: 1, msgId: "M1", group: "pay", topic: "PAY", instance: "10.0.1.10@7000", queue: "broker-a:3", queueOffset: 42, retryTimes: 0, requestId: "r1", decision, layer: "bloom", template: null, success: true }, 0);
    const events = [effect("executed", 0), effect("pass", 1)];
    assert.equal(summaryOf(events), null);
    assert.equal(engineRow({ bizKey: "K", events, context: [] }).perGroup, 2);
  });

  it("sums in parts as it sums whole: merging two parts' summaries gives the summary of all their events", () => {
    fc.assert(
      fc.property(arbitraryKeyEvents(2, 7), fc.integer({ min: 1, max: 6 }), (drawn, cut) => {
        const events = drawn.map(build);
        const at = Math.min(cut, events.length - 1);
        const whole = summaryOf(events);
        const a = summaryOf(events.slice(0, at));
        const b = summaryOf(events.slice(at));
        const merged = a === null || b === null ? null : mergePlain(a, b);
        assert.deepEqual(merged, whole);
      }),
      { numRuns: 2000 },
    );
  });

  it("is what the engine makes of every key of the simulator's scenarios that it settles, with their whole context", () => {
    let settled = 0;
    let keys = 0;
    for (const seed of [7, 8]) {
      const { events } = parseSimulation(runSimulation({ scenario: "all", keys: 400, seed, skewMs: 1500 }));
      const keyless = events.filter((e) => e.bizKey === null);
      for (const input of inputsOf(events)) {
        keys++;
        const own = input.events.filter((e) => e.bizKey === input.bizKey);
        const summary = summaryOf(own);
        if (summary === null || !isOneDelivery(summary)) continue;
        // What the fold checks in the store before it settles a key (lib/store/plain-keys.ts): no keyless line names
        // its message, or lists it.
        const msgIds = new Set(msgIdsOf(own));
        if (keyless.some((e) => (e.msgId !== null && msgIds.has(e.msgId)) || namedKeysOf(e.detail.keys).includes(input.bizKey))) continue;
        settled++;
        assertSettledAsEngine(input, summary);
      }
    }
    assert.ok(settled > 50, `${settled} of ${keys} keys settled`);
  });
});
