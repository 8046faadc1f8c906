import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dialectOf, parseProbeConfig, ProbeConfigError, type ProbeConfig } from "../../../collectors/business-probe/config.ts";
import { rowTime, rowToEvent } from "../../../collectors/business-probe/rows.ts";
import { validateEvent } from "../../../lib/events/validate.ts";

const YAML = `
defaults:
  timeoutMs: 2000
probes:
  - name: payment
    match: { group: GID_payment, topic: PAY_SUCCESS }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by, status FROM payment WHERE order_id = :bizKey
    columns:
      time: created_at
      key: id
      instance: updated_by
      state: status
    utcOffset: "+08:00"
  - name: points
    match: { topic: ORDER_PAID }
    databaseUrlEnv: POINTS_DB_URL
    sql: SELECT ledger_id, account, created_at FROM points_ledger WHERE order_id = :bizKey
    columns: { time: created_at, key: [ledger_id, account] }
    maxRows: 10
    maxQueriesPerSecond: 20
`;

function probe(overrides: Partial<ProbeConfig> = {}): ProbeConfig {
  return { ...parseProbeConfig(YAML)[0]!, ...overrides };
}

describe("the probes file", () => {
  it("reads YAML with defaults and per-probe overrides", () => {
    const [payment, points] = parseProbeConfig(YAML);
    assert.deepEqual(payment, {
      name: "payment",
      match: { group: "GID_payment", topic: "PAY_SUCCESS" },
      broker: "rocketmq",
      databaseUrlEnv: "PAYMENT_DB_URL",
      sql: "SELECT id, created_at, updated_by, status FROM payment WHERE order_id = :bizKey",
      columns: { time: "created_at", key: ["id"], instance: "updated_by", state: "status" },
      utcOffset: "+08:00",
      timeoutMs: 2000,
      maxRows: 100,
      maxQueriesPerSecond: 5,
    });
    assert.deepEqual(points!.match, { group: null, topic: "ORDER_PAID" });
    assert.deepEqual(points!.columns.key, ["ledger_id", "account"]);
    assert.equal(points!.utcOffset, "Z");
    assert.equal(points!.maxRows, 10);
    assert.equal(points!.maxQueriesPerSecond, 20);
  });

  it("reads the same as JSON", () => {
    const json = JSON.stringify({
      probes: [{ name: "p", match: { group: "g" }, databaseUrlEnv: "DB", sql: "SELECT id, t FROM x WHERE k = :bizKey", columns: { time: "t", key: ["id"] } }],
    });
    assert.equal(parseProbeConfig(json)[0]!.name, "p");
  });

  it("refuses credentials in the file, and names every problem", () => {
    const withUrl = `probes:\n  - name: p\n    match: { group: g }\n    url: mysql://app:secret@db/app\n    sql: SELECT 1\n    columns: { time: t, key: id }\n`;
    assert.throws(() => parseProbeConfig(withUrl, "probes.yaml"), (e: Error) => e instanceof ProbeConfigError && /probes\.yaml: probes\.0\.url: credentials never go in the file/.test(e.message) && !e.message.includes("secret"));
    const bad = `probes:\n  - name: "has space"\n    match: {}\n    databaseUrlEnv: "not-a-var"\n    sql: ""\n    columns: { key: [] }\n    utcOffset: "8"\n`;
    assert.throws(
      () => parseProbeConfig(bad),
      (e: Error) =>
        ["probes.0.name", "probes.0.match: needs a group, a topic or both", "probes.0.databaseUrlEnv", "probes.0.sql", "probes.0.columns.time", "probes.0.columns.key", "probes.0.utcOffset"].every((s) => e.message.includes(s)),
    );
    assert.throws(() => parseProbeConfig("probes: []"), /needs at least one probe/);
    assert.throws(() => parseProbeConfig("probes: [\n"), /not YAML or JSON/);
    const twice = YAML.replace("name: points", "name: payment");
    assert.throws(() => parseProbeConfig(twice), /"payment" is used twice/);
  });

  it("tells the dialect from the URL's scheme", () => {
    assert.equal(dialectOf("mysql://root@127.0.0.1:3306/test"), "mysql");
    assert.equal(dialectOf("mariadb://u:p@db/app"), "mysql");
    assert.equal(dialectOf("postgres://postgres@127.0.0.1:5432/test"), "postgres");
    assert.equal(dialectOf("postgresql://x/y"), "postgres");
    assert.equal(dialectOf("sqlite:///tmp/x"), null);
    assert.equal(dialectOf("not a url"), null);
  });
});

describe("a row becomes a business_effect event", () => {
  const row = { id: 9001, created_at: "2026-11-30 20:00:01.204", updated_by: "10.8.3.17@23817#2310457739811", status: "PAID", card_number: "4111111111111111" };

  it("with the database's time, the key columns only, the probe's group and topic, and a stable id", () => {
    const result = rowToEvent(probe(), "ORD-20261130-100231", row);
    assert.ok(result.ok);
    const e = result.event;
    assert.equal(e.kind, "business_effect");
    assert.equal(e.ts, Date.UTC(2026, 10, 30, 12, 0, 1, 204), "20:00:01.204 at +08:00");
    assert.equal(e.tsPrecision, "ms");
    assert.equal(e.bizKey, "ORD-20261130-100231");
    assert.equal(e.msgId, null);
    assert.equal(e.group, "GID_payment");
    assert.equal(e.topic, "PAY_SUCCESS");
    assert.equal(e.instance, "10.8.3.17@23817");
    assert.equal(e.success, true);
    assert.equal(e.source, "probe:payment");
    assert.deepEqual(e.detail, { probe: "payment", clock: "database", row: { id: 9001 }, state: "PAID", instanceRaw: "10.8.3.17@23817#2310457739811" });
    assert.ok(!JSON.stringify(e).includes("4111"), "columns that are not configured never leave the database");
    assert.match(e.id, /^probe:[0-9a-f]{32}$/);
    const again = rowToEvent(probe(), "ORD-20261130-100231", { ...row, status: "REFUNDED", created_at: "2026-11-30 20:00:02" });
    assert.ok(again.ok && again.event.id === e.id, "the same row probed again has the same id");
    const other = rowToEvent(probe(), "ORD-20261130-100231", { ...row, id: 9002 });
    assert.ok(other.ok && other.event.id !== e.id);
    assert.deepEqual(validateEvent(e), { ok: true, event: e }, "the store takes it unchanged");
  });

  it("reads the time forms the drivers return", () => {
    assert.deepEqual(rowTime("2026-11-30 12:00:01", "Z"), { ts: Date.UTC(2026, 10, 30, 12, 0, 1), precision: "s" });
    assert.deepEqual(rowTime("2026-11-30 12:00:01.204+00", "+08:00"), { ts: Date.UTC(2026, 10, 30, 12, 0, 1, 204), precision: "ms" }, "a zone printed wins");
    assert.deepEqual(rowTime("2026-11-30 17:30:01.204567+05:30", "Z"), { ts: Date.UTC(2026, 10, 30, 12, 0, 1, 204), precision: "ms" });
    assert.deepEqual(rowTime(new Date(Date.UTC(2026, 10, 30, 12)), "Z"), { ts: Date.UTC(2026, 10, 30, 12), precision: "ms" });
    assert.deepEqual(rowTime(1796011201206, "Z"), { ts: 1796011201206, precision: "ms" });
    assert.deepEqual(rowTime("1796011201206", "Z"), { ts: 1796011201206, precision: "ms" }, "a BIGINT column comes back as text");
    assert.deepEqual(rowTime(1796011201, "Z"), { ts: 1796011201000, precision: "s" });
    assert.match(rowTime(null, "Z") as string, /NULL/);
    assert.match(rowTime("0000-00-00 00:00:00", "Z") as string, /impossible|outside/);
    assert.match(rowTime("yesterday", "Z") as string, /not a date-time/);
    assert.match(rowTime("2026-11-30", "Z") as string, /not a date-time/);
  });

  it("composite keys, bytes and big numbers as text; rows without a usable time or key are refused", () => {
    const points = parseProbeConfig(YAML)[1]!;
    const r = rowToEvent(points, "K1", { ledger_id: "9007199254740993", account: Buffer.from([0xca, 0xfe]), created_at: "2026-11-30 12:00:01.204" });
    assert.ok(r.ok);
    assert.deepEqual(r.event.detail.row, { ledger_id: "9007199254740993", account: "cafe" });
    assert.equal(r.event.group, null);
    assert.equal(r.event.instance, null);
    assert.deepEqual(rowToEvent(points, "K1", { ledger_id: null, account: "a", created_at: "2026-11-30 12:00:01" }), { ok: false, reason: "key column ledger_id is NULL" });
    const noTime = rowToEvent(points, "K1", { ledger_id: 1, account: "a", created_at: null });
    assert.ok(!noTime.ok && /created_at is empty/.test(noTime.reason));
    const missing = rowToEvent(points, "K1", { ledger_id: 1, created_at: "2026-11-30 12:00:01" });
    assert.ok(!missing.ok && /returns no column "account"/.test(missing.reason));
  });
});
