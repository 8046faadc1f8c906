import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseProbeConfig } from "../../../collectors/business-probe/config.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { ProbeTimeoutError, type ProbeDatabase, type ProbeQuery } from "../../../lib/probe/database.ts";
import { RateLimiter } from "../../../lib/probe/rate-limit.ts";
import { prepareProbes, ProbeSetupError, runProbes } from "../../../lib/probe/run.ts";

const CONFIG = parseProbeConfig(`
probes:
  - name: payment
    match: { group: GID_payment }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id, instance: updated_by }
    maxRows: 2
    maxQueriesPerSecond: 4
  - name: invoice
    match: { topic: ORDER_PAID }
    databaseUrlEnv: INVOICE_DB_URL
    sql: SELECT invoice_no, issued_at FROM invoice WHERE order_id = :bizKey
    columns: { time: issued_at, key: invoice_no }
`);

const ENV = { PAYMENT_DB_URL: "mysql://probe:secret@db:3306/pay", INVOICE_DB_URL: "postgres://probe@db/invoice" };

/** A fake clock whose sleeps advance it. */
function clock() {
  let t = 0;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps, at: () => t };
}

function fakeDatabase(answer: (q: ProbeQuery) => Record<string, unknown>[] | Error, queries: ProbeQuery[] = []): ProbeDatabase {
  return {
    dialect: "mysql",
    server: "mariadb 10.11.19",
    async query(q) {
      queries.push(q);
      const rows = answer(q);
      if (rows instanceof Error) throw rows;
      return rows.length > q.maxRows ? { rows: rows.slice(0, q.maxRows), truncated: true } : { rows, truncated: false };
    },
    async close() {},
  };
}

describe("preparing probes", () => {
  it("resolves each database from its environment variable and rewrites the query for its driver", () => {
    const [payment, invoice] = prepareProbes(CONFIG, ENV);
    assert.equal(payment!.dialect, "mysql");
    assert.equal(payment!.sql, "SELECT id, created_at, updated_by FROM payment WHERE order_id = ?");
    assert.equal(invoice!.dialect, "postgres");
    assert.equal(invoice!.sql, "SELECT invoice_no, issued_at FROM invoice WHERE order_id = $1");
  });

  it("names every problem before connecting anywhere, and never the URL's password", () => {
    const refused = CONFIG.map((p, i) => (i === 1 ? { ...p, sql: "DELETE FROM invoice WHERE order_id = :bizKey" } : p));
    assert.throws(
      () => prepareProbes(refused, { PAYMENT_DB_URL: "sqlite:///secret.db" }),
      (e: Error) => e instanceof ProbeSetupError && /PAYMENT_DB_URL must hold a mysql:\/\//.test(e.message) && /INVOICE_DB_URL is not set/.test(e.message) && !e.message.includes("secret"),
    );
    assert.throws(() => prepareProbes(refused, ENV), /probe invoice: sql refused: the query must be a SELECT/);
  });
});

describe("running probes", () => {
  it("queries each key once, at most maxQueriesPerSecond, and hands each key's rows on as events", async () => {
    const c = clock();
    const queries: ProbeQuery[] = [];
    const emitted: NormalizedEvent[][] = [];
    const rows: Record<string, Record<string, unknown>[]> = {
      K1: [
        { id: 1, created_at: "2026-11-30 12:00:01.204", updated_by: "10.0.0.5@4121" },
        { id: 2, created_at: "2026-11-30 12:00:48.010", updated_by: "10.0.0.7@88" },
      ],
      K2: [{ id: 3, created_at: "2026-11-30 12:05:00.000", updated_by: "10.0.0.5@4121" }],
      K3: [],
    };
    const [summary] = await runProbes(prepareProbes(CONFIG.slice(0, 1), ENV), {
      keysFor: () => ["K1", "K2", "K3", "K2"],
      emit: async (events) => void emitted.push(events),
      log: () => {},
      open: async () => fakeDatabase((q) => rows[q.bizKey] ?? [], queries),
      now: c.now,
      sleep: c.sleep,
    });
    assert.deepEqual(
      queries.map((q) => [q.bizKey, q.params, q.maxRows, q.timeoutMs]),
      [
        ["K1", 1, 2, 5000],
        ["K2", 1, 2, 5000],
        ["K3", 1, 2, 5000],
      ],
    );
    assert.equal(c.at(), 500, "3 queries at 4 a second: the third starts 500 ms after the first");
    assert.deepEqual(
      emitted.map((list) => list.map((e) => [e.bizKey, e.detail.row])),
      [
        [
          ["K1", { id: 1 }],
          ["K1", { id: 2 }],
        ],
        [["K2", { id: 3 }]],
      ],
    );
    assert.deepEqual({ ...summary, failed: summary!.failed.length }, { probe: "payment", server: "mariadb 10.11.19", keys: 3, queries: 3, rows: 3, events: 3, keysWithRows: 2, truncated: [], failed: 0, rowIssues: [], aborted: null });
  });

  it("says which keys were cut at the row cap, skips rows it cannot read, and goes on past a timeout", async () => {
    const c = clock();
    const [summary] = await runProbes(prepareProbes(CONFIG.slice(0, 1), ENV), {
      keysFor: () => ["MANY", "SLOW", "BAD"],
      emit: async () => {},
      log: () => {},
      open: async () =>
        fakeDatabase((q) =>
          q.bizKey === "SLOW"
            ? new ProbeTimeoutError("the query ran past its 5000 ms timeout and was cancelled")
            : q.bizKey === "BAD"
              ? [{ id: 7, created_at: null, updated_by: null }]
              : [1, 2, 3].map((id) => ({ id, created_at: "2026-11-30 12:00:00", updated_by: null })),
        ),
      now: c.now,
      sleep: c.sleep,
    });
    assert.deepEqual(summary!.truncated, ["MANY"]);
    assert.equal(summary!.events, 2);
    assert.deepEqual(summary!.failed, [{ bizKey: "SLOW", reason: "the query ran past its 5000 ms timeout and was cancelled" }]);
    assert.deepEqual(summary!.rowIssues, [{ bizKey: "BAD", reason: "created_at is empty (NULL)" }]);
    assert.equal(summary!.aborted, null);
  });

  it("stops a probe whose first query the database refuses, or whose query lacks a configured column", async () => {
    const c = clock();
    const lines: string[] = [];
    const queries: ProbeQuery[] = [];
    const summaries = await runProbes(prepareProbes(CONFIG, ENV), {
      keysFor: () => ["K1", "K2"],
      emit: async () => {},
      log: (l) => lines.push(l),
      open: async (url) =>
        url.startsWith("mysql:")
          ? fakeDatabase(() => Object.assign(new Error("SELECT command denied to user 'probe'@'%' for table 'payment'"), { errno: 1142 }), queries)
          : fakeDatabase(() => [{ invoice_no: "INV-1", created: "2026-11-30 12:00:00" }], queries),
      now: c.now,
      sleep: c.sleep,
    });
    assert.equal(queries.length, 2, "one query each, then stopped");
    assert.match(summaries[0]!.aborted!, /first query failed: SELECT command denied/);
    assert.match(summaries[1]!.aborted!, /returns no column "issued_at" \(it returns invoice_no, created\)/);
    assert.equal(lines.length, 2);
  });

  it("reports a database it cannot reach without trying any key", async () => {
    const [summary] = await runProbes(prepareProbes(CONFIG.slice(1), ENV), {
      keysFor: () => ["K1"],
      emit: async () => {},
      log: () => {},
      open: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      },
    });
    assert.equal(summary!.queries, 0);
    assert.equal(summary!.aborted, "cannot connect through INVOICE_DB_URL: connect ECONNREFUSED 127.0.0.1:5432");
  });
});

describe("the rate limiter", () => {
  it("spaces starts 1/perSecond apart, and lets a caller that waited long enough go at once", async () => {
    const c = clock();
    const limiter = new RateLimiter(10, c.now, c.sleep);
    for (let i = 0; i < 5; i++) await limiter.take();
    assert.equal(c.at(), 400);
    await c.sleep(1000);
    const before = c.sleeps.length;
    await limiter.take();
    assert.equal(c.sleeps.length, before, "no wait after a pause");
    assert.throws(() => new RateLimiter(0), RangeError);
  });
});
