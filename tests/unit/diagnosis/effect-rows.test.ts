import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseProbeConfig } from "../../../collectors/business-probe/config.ts";
import { rowToEvent } from "../../../collectors/business-probe/rows.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { KeyDiagnosis, Verdict } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { broker, dedup, redisOnce, SEC, T0, trace, valuesOf } from "../../helpers/diagnosis-events.ts";

/**
 * Rows of the business table read by `dupscope probe` (collectors/business-probe/rows.ts) next to the deliveries
 * of the key: two rows confirm a leak and give the gap between the two writes; one row with a second delivery
 * confirms a catch.
 */

const KEY = "ORD-20261130-100231";
const MSG = "0A0803114A1918B4AAC27E5E2F3C0000";
const GROUP = "GID_payment";
const A = "10.8.3.17@23817";
const B = "10.8.3.18@4102";

const [PROBE] = parseProbeConfig(`
probes:
  - name: payment
    match: { group: ${GROUP}, topic: PAY_SUCCESS }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id, instance: updated_by }
`);

let nextId = 1;
/** A row as the probe turns it into an event; `at` ms after T0 by the database's clock, `by` its updated_by. */
function row(at: number, by: string | null, probe = PROBE!): NormalizedEvent {
  const created = new Date(T0 + at).toISOString().replace("T", " ").replace("Z", "");
  const result = rowToEvent(probe, KEY, { id: nextId++, created_at: created, updated_by: by });
  assert.ok(result.ok, result.ok ? "" : result.reason);
  return result.event;
}

/** The first delivery on A, then A's channel dropped and the same copy redelivered to B 20 s later: ack_lost. */
function ackLost(gapMs = 20 * SEC): { events: NormalizedEvent[]; context: NormalizedEvent[] } {
  return {
    events: [
      trace.pub({ at: -400, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: "10.8.1.2" }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", costTime: 60 }),
      ...trace.consume({ at: gapMs, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18", costTime: 60 }),
    ],
    context: [broker.lifecycle("channel_inactive", { at: 1000, group: GROUP, instance: A })],
  };
}

const diagnose = (events: NormalizedEvent[], context: NormalizedEvent[] = []): KeyDiagnosis => diagnoseKey({ bizKey: KEY, events, context });

function only(result: KeyDiagnosis): Verdict {
  assert.equal(result.duplicates.length, 1);
  return result.duplicates[0]!;
}

describe("business-table rows (dupscope probe) and the outcome of a duplicate", () => {
  it("without rows or a dedup log the outcome is unknown: the baseline", () => {
    const { events, context } = ackLost();
    const v = only(diagnose(events, context));
    assert.equal(v.cause, "ack_lost");
    assert.equal(v.outcome, "unknown");
  });

  it("two rows, written by each delivery, confirm the leak and give the gap between the two writes", () => {
    const { events, context } = ackLost();
    const first = row(25, "10.8.3.17@23817#2310457739811");
    const second = row(20 * SEC + 31, B);
    const result = diagnose([...events, first, second], context);
    const v = only(result);
    assert.equal(v.cause, "ack_lost", "the rows change the outcome, not the cause");
    assert.equal(v.outcome, "leaked");
    assert.equal(v.defect, undefined, "no dedup log: no defect to name");
    assert.deepEqual(valuesOf(v.evidence, "written_twice"), { probe: "payment", rows: 2, firstInstance: A, firstTs: T0 + 25, secondInstance: B, secondTs: T0 + 20 * SEC + 31, gapMs: 20_006 });
    assert.deepEqual(v.evidence.find((e) => e.code === "written_twice")!.eventIds, [first.id, second.id]);
    const [d1, d2] = result.deliveries;
    assert.deepEqual([d1!.effectRows, d2!.effectRows], [[first.id], [second.id]], "each row is put on the delivery that wrote it");
    assert.deepEqual([d1!.effect, d2!.effect], ["executed", "executed"]);
    assert.equal(result.deliveries.length, 2, "rows are no deliveries");
    assert.ok(!result.missing.some((m) => m.code === "no_dedup_log"), "the table answered what the dedup log would have");
  });

  it("one row with a second delivery confirms a catch (no layer named without the dedup log)", () => {
    const { events, context } = ackLost();
    const only_ = row(25, A);
    const result = diagnose([...events, only_], context);
    const v = only(result);
    assert.equal(v.outcome, "caught");
    assert.equal(v.layer, undefined);
    assert.deepEqual(valuesOf(v.evidence, "written_once"), { probe: "payment", instance: A, ts: T0 + 25 });
    assert.equal(result.deliveries[1]!.effectRows, undefined);
  });

  it("with the dedup log: one row keeps the layer that said hit; two rows settle a duplicate the log has no line for", () => {
    const { events, context } = ackLost();
    const logged = [...redisOnce({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A }), dedup({ at: 20 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit" })];
    const caught = only(diagnose([...events, ...logged, row(30, A)], context));
    assert.equal(caught.outcome, "caught");
    assert.equal(caught.layer, "redis");
    assert.deepEqual(
      caught.evidence.filter((e) => e.role === "outcome").map((e) => e.code),
      ["dedup_hit", "written_once"],
    );

    // B's dedup log was not shipped: no line for the second delivery, so the log alone leaves the outcome open.
    const firstOnly = redisOnce({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A });
    assert.equal(only(diagnose([...events, ...firstOnly], context)).outcome, "unknown");
    const leaked = only(diagnose([...events, ...firstOnly, row(30, A), row(20 * SEC + 40, B)], context));
    assert.equal(leaked.outcome, "leaked");
    assert.equal(valuesOf(leaked.evidence, "written_twice").gapMs, 20_010);
  });

  it("a unique-key violation in the dedup log and one row: the database layer held", () => {
    const { events, context } = ackLost();
    const dbKey = `payment:${KEY}`;
    const logged = [
      dedup({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "db", decision: "pass", dedupKey: dbKey }),
      dedup({ at: 30, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "db", decision: "executed" }),
      // B's INSERT of the same order id hit the unique key (@dupscope/dedup's dbUniqueInsert logs it as a db hit).
      dedup({ at: 20 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "db", decision: "hit", dedupKey: dbKey }),
    ];
    const held = only(diagnose([...events, ...logged, row(28, A)], context));
    assert.equal(held.cause, "ack_lost");
    assert.equal(held.outcome, "caught");
    assert.equal(held.layer, "db");
    assert.deepEqual(
      held.evidence.filter((e) => e.role === "outcome").map((e) => e.code),
      ["dedup_hit", "written_once"],
    );
  });

  it("never overrules two executed lines: one row then stays a leak, with the row shown", () => {
    const { events, context } = ackLost();
    const logged = [...redisOnce({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, ttlMs: 10_000 }), ...redisOnce({ at: 20 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, ttlMs: 10_000 })];
    const v = only(diagnose([...events, ...logged, row(30, A)], context));
    assert.equal(v.outcome, "leaked");
    assert.equal(v.defect, "marker_expired");
    assert.ok(v.evidence.some((e) => e.code === "executed_twice") && v.evidence.some((e) => e.code === "written_once"));
  });

  it("three deliveries and two rows: the one that wrote no row was caught, the one that did leaked", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", costTime: 60 }),
      ...trace.consume({ at: 20 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18", costTime: 60 }),
      ...trace.consume({ at: 50 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.19", costTime: 60 }),
      row(30, A),
      row(50 * SEC + 30, "10.8.3.19@777"),
    ];
    const result = diagnose(events);
    assert.deepEqual(
      result.duplicates.map((v) => [v.deliveries[1], v.outcome]),
      [
        ["d2", "caught"],
        ["d3", "leaked"],
      ],
    );
    assert.deepEqual(valuesOf(result.duplicates[0]!.evidence, "not_written"), { probe: "payment", rows: 2, instance: "10.8.3.18", ts: T0 + 20 * SEC });
    assert.equal(valuesOf(result.duplicates[1]!.evidence, "written_twice").gapMs, 50 * SEC);
  });

  it("rows no delivery can have written still count: two rows are two effects", () => {
    const { events, context } = ackLost();
    // The database's clock is far off (or the rows came from a batch job): neither row falls in a delivery.
    const v = only(diagnose([...events, row(-10 * 60 * SEC, null), row(-9 * 60 * SEC, null)], context));
    assert.equal(v.outcome, "leaked");
    assert.equal(valuesOf(v.evidence, "written_twice").gapMs, 60 * SEC);
  });

  it("a probe that named only a topic files its rows under the one group that consumed the key on it", () => {
    const topicOnly = { ...PROBE!, name: "payment-by-topic", match: { group: null, topic: "PAY_SUCCESS" } };
    const { events, context } = ackLost();
    const v = only(diagnose([...events, row(30, A, topicOnly), row(20 * SEC + 30, B, topicOnly)], context));
    assert.equal(v.outcome, "leaked");
    assert.equal(valuesOf(v.evidence, "written_twice").probe, "payment-by-topic");
  });

  it("rows of another group leave this group's verdict alone", () => {
    const other = { ...PROBE!, match: { group: "GID_invoice", topic: null } };
    const { events, context } = ackLost();
    assert.equal(only(diagnose([...events, row(30, A, other), row(20 * SEC + 30, B, other)], context)).outcome, "unknown");
  });

  it("a row puts a commit on an attempt the dedup log left unfinished, which makes the next delivery a duplicate", () => {
    const events = [
      trace.consumeStart({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17" }),
      dedup({ at: 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, layer: "redis", decision: "pass", ttlMs: 30_000 }),
      ...trace.consume({ at: 40 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18" }),
      ...redisOnce({ at: 40 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, ttlMs: 30_000 }),
    ];
    const before = diagnose(events);
    assert.equal(before.duplicates.length, 0, "A never logged executed: B's delivery looked like the first effect");
    const after = diagnose([...events, row(50, A), row(40 * SEC + 30, B)]);
    const v = only(after);
    assert.equal(after.deliveries[0]!.effect, "executed");
    assert.equal(v.outcome, "leaked");
    assert.equal(valuesOf(v.evidence, "written_twice").gapMs, 40 * SEC - 20);
  });
});
