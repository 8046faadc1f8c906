import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseProbeConfig } from "../../../collectors/business-probe/config.ts";
import { rowToEvent } from "../../../collectors/business-probe/rows.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { toLanes, type Timeline } from "../../../lib/timeline/to-lanes.ts";
import { broker, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

/**
 * Rows of the business table read by `dupscope probe` (docs/probe.md) on the key page: a lane of their own per
 * probe after the consumers, one mark per row at the database's time, named by the row's key columns and state,
 * and nothing of theirs on the consumers' lanes.
 */

const KEY = "ORD-20261130-100231";
const MSG = "0A0803114A1918B4AAC27E5E2F3C0000";
const GROUP = "GID_payment";
const PRODUCER = "10.8.1.2";
const A = "10.8.3.17@23817";
const B = "10.8.3.18@4102";

const [PROBE] = parseProbeConfig(`
probes:
  - name: payment
    match: { group: ${GROUP}, topic: PAY_SUCCESS }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by, status FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id, instance: updated_by, state: status }
`);

/** A row as the probe stores it; `at` ms after T0 by the database's clock. */
function row(id: number, at: number, by: string, status: string): NormalizedEvent {
  const created = new Date(T0 + at).toISOString().replace("T", " ").replace("Z", "");
  const result = rowToEvent(PROBE!, KEY, { id, created_at: created, updated_by: by, status });
  assert.ok(result.ok, result.ok ? "" : result.reason);
  return result.event;
}

/** A's channel dropped after its consumption; the same copy went to B 20 s later, and both wrote a payment row. */
function leak(withRows = true): { events: NormalizedEvent[]; context: NormalizedEvent[] } {
  return {
    events: [
      trace.pub({ at: -400, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.17", costTime: 60 }),
      ...trace.consume({ at: 20 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.8.3.18", costTime: 60 }),
      ...(withRows ? [row(9001, 25, A, "PAID"), row(9002, 20 * SEC + 31, B, "PAID")] : []),
    ],
    context: [broker.lifecycle("channel_inactive", { at: 1000, group: GROUP, instance: A })],
  };
}

function timelineOf(story: { events: NormalizedEvent[]; context: NormalizedEvent[] }): Timeline {
  const diagnosis = diagnoseKey({ bizKey: KEY, ...story });
  return toLanes({ ...story, deliveries: diagnosis.deliveries, duplicates: diagnosis.duplicates, cited: diagnosis.duplicates.flatMap((v) => v.evidence.flatMap((e) => e.eventIds ?? [])) });
}

describe("timeline: business-table rows (dupscope probe)", () => {
  it("gives the probe's rows a lane of their own after the consumers, one mark per row at the database's time", () => {
    const story = leak(true);
    const t = timelineOf(story);
    assert.deepEqual(
      t.lanes.map((l) => [l.role, l.label]),
      [
        ["producer", PRODUCER],
        ["consumer", "10.8.3.17"],
        ["consumer", "10.8.3.18"],
        ["table", "payment"],
        ["broker", "broker-a"],
      ],
    );
    const table = t.lanes.find((l) => l.role === "table")!;
    assert.equal(table.id, "table:payment");
    assert.deepEqual(table.groups, [GROUP]);
    assert.deepEqual(table.spans, []);
    const rows = story.events.filter((e) => e.source === "probe:payment");
    assert.deepEqual(
      table.marks.map((m) => ({ eventId: m.eventId, ts: m.ts, kind: m.kind, note: m.note, context: m.context })),
      [
        { eventId: rows[0]!.id, ts: T0 + 25, kind: "row", note: "id=9001 · PAID", context: false },
        { eventId: rows[1]!.id, ts: T0 + 20 * SEC + 31, kind: "row", note: "id=9002 · PAID", context: false },
      ],
    );
  });

  it("puts nothing of the rows on the consumers' lanes, which stay as they are without rows", () => {
    const story = leak();
    const rowIds = new Set(story.events.filter((e) => e.source === "probe:payment").map((e) => e.id));
    const withRows = timelineOf(story);
    const without = timelineOf({ ...story, events: story.events.filter((e) => !rowIds.has(e.id)) });
    for (const lane of withRows.lanes.filter((l) => l.role !== "table")) {
      assert.ok(!lane.marks.some((m) => rowIds.has(m.eventId) || m.kind === "row"), `no row on ${lane.label}`);
    }
    assert.ok(!without.lanes.some((l) => l.role === "table"), "no table lane without rows");
    const strip = (t: Timeline) => t.lanes.filter((l) => l.role !== "table").map((l) => ({ ...l, spans: l.spans.map((s) => ({ ...s, effect: null })) }));
    // The rows make the diagnosis call both consumptions executed; the lanes are otherwise the same.
    assert.deepEqual(strip(withRows), strip(without));
    assert.deepEqual(
      withRows.lanes.filter((l) => l.role === "consumer").flatMap((l) => l.spans.map((s) => s.effect)),
      ["executed", "executed"],
    );
    assert.deepEqual(withRows.gaps, without.gaps);
  });

  it("names a row by every key column and leaves the state out when the probe read none", () => {
    const [multi] = parseProbeConfig(`
probes:
  - name: ledger
    match: { group: ${GROUP} }
    databaseUrlEnv: LEDGER_DB_URL
    sql: SELECT order_id, line, created_at FROM ledger WHERE order_id = :bizKey
    columns: { time: created_at, key: [order_id, line] }
`);
    const result = rowToEvent(multi!, KEY, { order_id: KEY, line: 2, created_at: new Date(T0 + 30).toISOString() });
    assert.ok(result.ok);
    const story = leak(false);
    story.events.push(result.event);
    const t = timelineOf(story);
    const table = t.lanes.find((l) => l.role === "table")!;
    assert.deepEqual([table.role, table.label], ["table", "ledger"]);
    assert.deepEqual(
      table.marks.map((m) => m.note),
      [`order_id=${KEY}, line=2`],
    );
  });
});
