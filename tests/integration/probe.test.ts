import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import mysql from "mysql2/promise";
import pg from "pg";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { openProbeDatabase } from "../../lib/probe/database.ts";
import type { SqlDriver } from "../../lib/store/driver.ts";
import { openPgWriter } from "../../lib/store/pg-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { A, B, GROUP, story, T0, TOPIC, withDb, withUser } from "../helpers/probe-story.ts";
import { postgresAdminUrl } from "../helpers/stores.ts";

/**
 * `dupscope probe` against the machine's MariaDB (TEST_MARIADB_URL, default root@127.0.0.1:3306/test; skipped when
 * none answers) and PostgreSQL (TEST_DATABASE_URL, or
 * postgres@127.0.0.1:5432/test): a business table with two rows for a key whose duplicate leaked and one for a key
 * whose duplicate was caught, read by a user that may only SELECT. The duplicates themselves are ordinary ones
 * (traces, the broker dropping A's channel, a dedup log from A only, B's was never shipped), so dupscope cannot tell
 * their outcome until the probe's rows arrive.
 */

const MARIADB_ROOT = process.env.TEST_MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test";

/** Without a reachable MariaDB the suite is skipped, unless TEST_MARIADB_URL says one must be there. */
async function mariadbReachable(): Promise<boolean> {
  try {
    const c = await mysql.createConnection({ uri: MARIADB_ROOT, connectTimeout: 3000 });
    await c.end();
    return true;
  } catch (error) {
    if (process.env.TEST_MARIADB_URL) throw error;
    return false;
  }
}
const PG_ADMIN = postgresAdminUrl ?? "postgres://postgres@127.0.0.1:5432/test";
const RUN = `${process.pid}_${Date.now().toString(36)}`;
const TABLE = `dupscope_probe_payment_${RUN}`;
const PROBE_USER = `dupscope_probe_${RUN}`.slice(0, 32);
const PG_APP_DB = `dupscope_probe_app_${RUN}`;
const PG_STORE_DB = `dupscope_probe_store_${RUN}`;
const PG_ROLE = `dupscope_probe_${RUN}`;

/** The probe user's password in the statements the doc gives (`'…'` there). */
const PROBE_PASSWORD = `pw_${RUN}`;

/**
 * docs/probe.md's SQL blocks, as a reader runs them, with this run's names: the grant block (its MySQL half and its
 * PostgreSQL half) and the example table. The suite builds its databases with them, so the doc's SQL is run here.
 */
function documentedSql(): { mariadbGrants: string[]; postgresGrants: string[]; paymentTable: string } {
  const doc = readFileSync(path.join(import.meta.dirname, "..", "..", "docs", "probe.md"), "utf8");
  const blocks = [...doc.matchAll(/^```sql\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const grants = blocks.find((b) => b.includes("GRANT SELECT"));
  const table = blocks.find((b) => b.includes("CREATE TABLE payment"));
  assert.ok(grants && table, "docs/probe.md has its grant block and its payment table");
  const statements = (text: string) => text.split(";").map((st) => st.replace(/^--.*$/gm, "").trim()).filter((st) => st !== "");
  const [mariadb, postgres] = grants.split(/^-- PostgreSQL$/m);
  const renamed = (st: string) => {
    const out = st
      .replaceAll("'…'", `'${PROBE_PASSWORD}'`)
      .replaceAll("'dupscope_probe'@", `'${PROBE_USER}'@`)
      .replace(/\bshop\.payment\b/g, `test.\`${TABLE}\``)
      .replace(/\bDATABASE shop\b/g, `DATABASE "${PG_APP_DB}"`)
      .replace(/\b(ROLE|TO) dupscope_probe\b/g, `$1 "${PG_ROLE}"`);
    assert.doesNotMatch(out, /\bshop\b|\bdupscope_probe\b(?!_)/, `a name in docs/probe.md this suite does not rename: ${st}`);
    return out;
  };
  return {
    mariadbGrants: statements(mariadb!).map(renamed),
    postgresGrants: statements(postgres ?? "").map(renamed),
    paymentTable: statements(table)[0]!.replace(/^CREATE TABLE payment\b/, `CREATE TABLE \`${TABLE}\``),
  };
}

const KEYS = { mariaLeak: "ORD-M-LEAK-0001", mariaCatch: "ORD-M-CATCH-0002", pgLeak: "ORD-P-LEAK-0003", pgCatch: "ORD-P-CATCH-0004" };

/** MariaDB DATETIME at +08:00, as the application wrote it. */
const wallClock = (ms: number) => new Date(ms + 8 * 3_600_000).toISOString().replace("T", " ").replace("Z", "");

describe("dupscope probe against MariaDB and PostgreSQL", { skip: !(await mariadbReachable()) && `no MariaDB at ${MARIADB_ROOT} (set TEST_MARIADB_URL)` }, () => {
  let dir: string;
  let root: mysql.Connection;
  let pgAdmin: pg.Client;
  let storeUrl: string;
  let store: SqlDriver;
  let env: Record<string, string>;
  let config: string;

  const probeArgs = (...more: string[]) => ["probe", "--config", config, ...more];
  const allKeys = Object.values(KEYS).flatMap((k) => ["--key", k]);

  async function report(key: string): Promise<{ duplicates: { cause: string; outcome: string; layer?: string; evidence: { code: string; values: Record<string, unknown>; text: string }[] }[] }> {
    const result = await runCli(["diagnose", key, "--database", storeUrl, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  }

  async function businessTables(): Promise<string> {
    const [[m]] = await root.query<mysql.RowDataPacket[]>(`CHECKSUM TABLE \`${TABLE}\``);
    const app = new pg.Client({ connectionString: withDb(PG_ADMIN, PG_APP_DB) });
    await app.connect();
    try {
      const { rows } = await app.query<{ sum: string; seq: string }>("SELECT md5(string_agg(p::text, ',' ORDER BY id)) AS sum, (SELECT last_value FROM payment_id_seq)::text AS seq FROM payment p");
      return `${m!.Checksum} ${rows[0]!.sum} ${rows[0]!.seq}`;
    } finally {
      await app.end();
    }
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "dupscope-probe-"));

    // MariaDB: the application's payment table, and a user that may only read it.
    const sql = documentedSql();
    root = await mysql.createConnection({ uri: MARIADB_ROOT, dateStrings: true });
    // The doc's table, and a column the probe must never read.
    await root.query(sql.paymentTable);
    await root.query(`ALTER TABLE \`${TABLE}\` ADD COLUMN card_number VARCHAR(32)`);
    const mariaT = (n: number) => T0 + n * 60_000;
    await root.query(`INSERT INTO \`${TABLE}\` (order_id, created_at, updated_by, status, card_number) VALUES ?`, [
      [
        [KEYS.mariaLeak, wallClock(mariaT(1) + 495), `${A}#2310457739811`, "PAID", "4111111111111111"],
        [KEYS.mariaLeak, wallClock(mariaT(1) + 20_050), B, "PAID", "4111111111111111"],
        [KEYS.mariaCatch, wallClock(mariaT(2) + 495), `${A}#2310457739811`, "PAID", "4111111111111111"],
      ],
    ]);
    for (const statement of sql.mariadbGrants) await root.query(statement);

    // PostgreSQL: the same table in an application database of its own, and a role with only SELECT on it.
    pgAdmin = new pg.Client({ connectionString: PG_ADMIN });
    await pgAdmin.connect();
    await pgAdmin.query(`CREATE DATABASE "${PG_APP_DB}"`);
    await pgAdmin.query(`CREATE DATABASE "${PG_STORE_DB}"`);
    const app = new pg.Client({ connectionString: withDb(PG_ADMIN, PG_APP_DB) });
    await app.connect();
    try {
      await app.query("CREATE TABLE payment (id BIGSERIAL PRIMARY KEY, order_id TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL, updated_by TEXT, status TEXT, card_number TEXT)");
      const pgT = (n: number) => T0 + n * 60_000;
      await app.query(
        "INSERT INTO payment (order_id, created_at, updated_by, status, card_number) VALUES ($1, $2, $3, 'PAID', '4111111111111111'), ($1, $4, $5, 'PAID', '4111111111111111'), ($6, $7, $3, 'PAID', '4111111111111111')",
        [KEYS.pgLeak, new Date(pgT(3) + 495), A, new Date(pgT(3) + 20_050), B, KEYS.pgCatch, new Date(pgT(4) + 495)],
      );
      for (const statement of sql.postgresGrants) await app.query(statement);
    } finally {
      await app.end();
    }

    // dupscope's own store, with the four duplicates in it.
    storeUrl = withDb(PG_ADMIN, PG_STORE_DB);
    const stories = [KEYS.mariaLeak, KEYS.mariaCatch, KEYS.pgLeak, KEYS.pgCatch].map((k, i) => story(k, i + 1));
    writeFileSync(path.join(dir, "story.ndjson"), stories.flatMap((s) => s.events.map((e) => JSON.stringify(e))).join("\n") + "\n");
    writeFileSync(path.join(dir, "dedup.log"), stories.flatMap((s) => s.dedupLines).join("\n") + "\n");
    for (const [format, file] of [
      ["events", "story.ndjson"],
      ["dedup-log", "dedup.log"],
    ]) {
      const ingest = await runCli(["ingest", "--format", format!, "--database", storeUrl, path.join(dir, file!)]);
      assert.equal(ingest.code, 0, ingest.stderr);
    }
    store = await openPgWriter(storeUrl);

    config = path.join(dir, "probes.yaml");
    writeFileSync(
      config,
      `# the probes of the payment service
defaults:
  timeoutMs: 3000
  maxQueriesPerSecond: 50
probes:
  - name: payment-mariadb
    match: { group: ${GROUP}, topic: ${TOPIC} }
    databaseUrlEnv: PAYMENT_MARIADB_URL
    sql: SELECT id, created_at, updated_by, status FROM \`${TABLE}\` WHERE order_id = :bizKey ORDER BY id
    columns: { time: created_at, key: id, instance: updated_by, state: status }
    utcOffset: "+08:00"
  - name: payment-pg
    match: { group: ${GROUP} }
    databaseUrlEnv: PAYMENT_PG_URL
    sql: |
      SELECT id, created_at, updated_by -- what the probe needs, nothing more
        FROM payment
       WHERE order_id = :bizKey
    columns: { time: created_at, key: [id], instance: updated_by }
`,
    );
    env = { PAYMENT_MARIADB_URL: withUser(MARIADB_ROOT, PROBE_USER, PROBE_PASSWORD), PAYMENT_PG_URL: withUser(withDb(PG_ADMIN, PG_APP_DB), PG_ROLE, PROBE_PASSWORD) };
  });

  after(async () => {
    await store?.close();
    await root?.query(`DROP TABLE IF EXISTS \`${TABLE}\``).catch(() => {});
    await root?.query(`DROP USER IF EXISTS '${PROBE_USER}'@'%'`).catch(() => {});
    await root?.query(`DROP FUNCTION IF EXISTS dupscope_probe_write_${RUN}`).catch(() => {});
    await root?.end();
    if (pgAdmin) {
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${PG_APP_DB}" WITH (FORCE)`).catch(() => {});
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${PG_STORE_DB}" WITH (FORCE)`).catch(() => {});
      await pgAdmin.query(`DROP ROLE IF EXISTS "${PG_ROLE}"`).catch(() => {});
      await pgAdmin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("before the probe, dupscope cannot tell whether the duplicates were caught", async () => {
    for (const key of Object.values(KEYS)) {
      const r = await report(key);
      assert.equal(r.duplicates.length, 1, key);
      assert.equal(r.duplicates[0]!.cause, "ack_lost", key);
      assert.equal(r.duplicates[0]!.outcome, "unknown", key);
    }
  });

  it("--dry-run prints one event per row: the database's time, the key columns and no other column", async () => {
    const before = await businessTables();
    const result = await runCli([...probeArgs("--dry-run"), ...allKeys], env);
    assert.equal(result.code, 0, result.stderr);
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(events.length, 6);
    assert.deepEqual(
      events.map((e) => [e.source, e.bizKey, e.instance, e.ts - T0]),
      [
        ["probe:payment-mariadb", KEYS.mariaLeak, A, 60_000 + 495],
        ["probe:payment-mariadb", KEYS.mariaLeak, B, 60_000 + 20_050],
        ["probe:payment-mariadb", KEYS.mariaCatch, A, 120_000 + 495],
        ["probe:payment-pg", KEYS.pgLeak, A, 180_000 + 495],
        ["probe:payment-pg", KEYS.pgLeak, B, 180_000 + 20_050],
        ["probe:payment-pg", KEYS.pgCatch, A, 240_000 + 495],
      ],
    );
    const first = events[0];
    assert.equal(first.kind, "business_effect");
    assert.equal(first.success, true);
    assert.equal(first.msgId, null);
    assert.equal(first.group, GROUP);
    assert.equal(first.topic, TOPIC);
    assert.deepEqual(first.detail, { probe: "payment-mariadb", clock: "database", row: { id: 1 }, state: "PAID", instanceRaw: `${A}#2310457739811` });
    assert.deepEqual(events[3].detail, { probe: "payment-pg", clock: "database", row: { id: 1 } });
    assert.ok(!result.stdout.includes("4111"), "a column the probe does not name never leaves the database");
    assert.match(result.stderr, /probe payment-mariadb \(mariadb [\d.]+\): 4 keys, 4 queries, 3 rows, 3 events, 2 keys with rows/);
    assert.match(result.stderr, /probe payment-pg \(postgres [\d.]+\): 4 keys, 4 queries, 3 rows/);
    assert.equal(await businessTables(), before);
  });

  it("stores the rows like ingest does, and they settle the outcomes: two rows a leak with the gap between the writes, one row a catch", async () => {
    const result = await runCli([...probeArgs("--database", storeUrl, "--json"), ...allKeys], env);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.deepEqual(summary.stored, { accepted: 6, duplicates: 0, rejected: [] });

    for (const key of [KEYS.mariaLeak, KEYS.pgLeak]) {
      const [v] = (await report(key)).duplicates;
      assert.equal(v!.cause, "ack_lost", key);
      assert.equal(v!.outcome, "leaked", key);
      const written = v!.evidence.find((e) => e.code === "written_twice")!;
      assert.equal(written.values.gapMs, 19_555, key);
      assert.deepEqual([written.values.firstInstance, written.values.secondInstance], [A, B]);
      assert.match(written.text, /written on 10\.0\.0\.5@4121 at .* and on 10\.0\.0\.7@88 at .*, 19 s apart \(database clock\)/);
    }
    for (const key of [KEYS.mariaCatch, KEYS.pgCatch]) {
      const [v] = (await report(key)).duplicates;
      assert.equal(v!.outcome, "caught", key);
      assert.ok(v!.evidence.some((e) => e.code === "written_once"), key);
    }

    // Probing again stores nothing twice.
    const again = await runCli([...probeArgs("--database", storeUrl, "--json"), ...allKeys], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout).stored, { accepted: 0, duplicates: 6, rejected: [] });
  });

  it("--keys-from-verdicts takes the keys of stored duplicates whose outcome is still unknown", async () => {
    // A fresh key whose duplicate the diagnosis worker has stored as unknown.
    const extra = story("ORD-M-NEW-0005", 5);
    writeFileSync(path.join(dir, "extra.ndjson"), extra.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    assert.equal((await runCli(["ingest", "--format", "events", "--database", storeUrl, path.join(dir, "extra.ndjson")])).code, 0);
    await root.query(`INSERT INTO \`${TABLE}\` (order_id, created_at, updated_by) VALUES (?, ?, ?)`, ["ORD-M-NEW-0005", wallClock(T0 + 5 * 60_000 + 30), A]);
    await drainQueue(store);
    const result = await runCli(probeArgs("--keys-from-verdicts", "--probe", "payment-mariadb", "--database", storeUrl, "--json"), env);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.probes[0].keys, 1, "only the key still unknown: the others were settled by the rows stored before");
    assert.deepEqual(summary.stored, { accepted: 1, duplicates: 0, rejected: [] });
    await drainQueue(store);
    const stored = await store.query<{ biz_key: string; outcome: string }>("SELECT biz_key, outcome FROM verdicts");
    const byKey = (a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : 1);
    assert.deepEqual(
      stored.map((r) => [r.biz_key, r.outcome]).sort(byKey),
      [
        [KEYS.mariaLeak, "leaked"],
        [KEYS.mariaCatch, "caught"],
        [KEYS.pgLeak, "leaked"],
        [KEYS.pgCatch, "caught"],
        ["ORD-M-NEW-0005", "caught"],
      ].sort(byKey),
      "the verdicts the worker stores follow the rows",
    );
  });

  it("refuses a query that is not a single SELECT before connecting: a write, two statements, SELECT … INTO, a data-modifying WITH, FOR UPDATE", async () => {
    const before = await businessTables();
    const bad: [string, string, RegExp][] = [
      ["PAYMENT_MARIADB_URL", `DELETE FROM \`${TABLE}\` WHERE order_id = :bizKey`, /must be a SELECT .*not DELETE/],
      ["PAYMENT_MARIADB_URL", `SELECT id, created_at FROM \`${TABLE}\` WHERE order_id = :bizKey; DELETE FROM \`${TABLE}\``, /";" at \d+: the query must be a single statement/],
      ["PAYMENT_MARIADB_URL", `SELECT id, created_at FROM \`${TABLE}\` WHERE order_id = :bizKey INTO OUTFILE '/tmp/dupscope-probe.csv'`, /INTO at \d+/],
      ["PAYMENT_MARIADB_URL", `SELECT id, created_at FROM \`${TABLE}\` WHERE order_id = :bizKey FOR UPDATE`, /UPDATE at \d+/],
      ["PAYMENT_PG_URL", "WITH gone AS (DELETE FROM payment WHERE order_id = :bizKey RETURNING *) SELECT id, created_at FROM gone", /DELETE at \d+/],
      ["PAYMENT_PG_URL", "SELECT id, created_at INTO payment_copy FROM payment WHERE order_id = :bizKey", /INTO at \d+/],
    ];
    for (const [variable, sql, reason] of bad) {
      const file = path.join(dir, "bad.yaml");
      writeFileSync(file, JSON.stringify({ probes: [{ name: "bad", match: { group: GROUP }, databaseUrlEnv: variable, sql, columns: { time: "created_at", key: "id" } }] }));
      const result = await runCli(["probe", "--config", file, "--key", KEYS.mariaLeak, "--dry-run"], env);
      assert.equal(result.code, 2, `${sql}: ${result.stderr}`);
      assert.match(result.stderr, reason, sql);
      assert.equal(result.stdout, "");
    }
    assert.equal(await businessTables(), before);
  });

  it("cuts a slow query at the timeout, on MariaDB (SLEEP) and PostgreSQL (pg_sleep), and goes on with the next key", async () => {
    const file = path.join(dir, "slow.yaml");
    writeFileSync(
      file,
      JSON.stringify({
        defaults: { timeoutMs: 1000 },
        probes: [
          { name: "slow-mariadb", match: { group: GROUP }, databaseUrlEnv: "PAYMENT_MARIADB_URL", sql: "SELECT :bizKey AS id, NOW() AS created_at, SLEEP(5) AS slept", columns: { time: "created_at", key: "id" } },
          { name: "slow-pg", match: { group: GROUP }, databaseUrlEnv: "PAYMENT_PG_URL", sql: "SELECT :bizKey::text AS id, now() AS created_at, pg_sleep(5) AS slept", columns: { time: "created_at", key: "id" } },
        ],
      }),
    );
    const started = Date.now();
    const result = await runCli(["probe", "--config", file, "--key", KEYS.mariaLeak, "--key", KEYS.pgLeak, "--dry-run"], env);
    const tookMs = Date.now() - started;
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /probe slow-mariadb \(mariadb [\d.]+\): 2 keys, 2 queries, 0 rows, 0 events, 0 keys with rows, 2 failed/);
    assert.match(result.stderr, /probe slow-pg \(postgres [\d.]+\): 2 keys, 2 queries, 0 rows, 0 events, 0 keys with rows, 2 failed/);
    assert.equal(result.stderr.match(/ran past its 1000 ms timeout and was cancelled/g)?.length, 4);
    assert.match(result.stderr, /dupscope: 4 queries failed/);
    assert.ok(tookMs < 12_000, `four 5 s sleeps cut at 1 s took ${tookMs} ms`);
  });

  it("never writes: the read-only transaction refuses a write hidden in a SELECT even for an all-powerful user, and the probe user may only read", async () => {
    const before = await businessTables();
    // Past the query check on purpose: a SELECT that writes through a function or a sequence.
    await root.query(`CREATE FUNCTION dupscope_probe_write_${RUN}() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO \`${TABLE}\` (order_id, created_at) VALUES ('written', NOW()); RETURN 1; END`);
    const mariaRoot = await openProbeDatabase(MARIADB_ROOT, "mysql", { utcOffset: "+08:00" });
    try {
      await assert.rejects(
        mariaRoot.query({ sql: `SELECT dupscope_probe_write_${RUN}() AS w, ? AS k`, params: 1, bizKey: "x", maxRows: 10, timeoutMs: 2000 }),
        /READ ONLY transaction/,
      );
    } finally {
      await mariaRoot.close();
    }
    const pgSuper = await openProbeDatabase(withDb(PG_ADMIN, PG_APP_DB), "postgres", { utcOffset: "Z" });
    try {
      await assert.rejects(pgSuper.query({ sql: "SELECT nextval('payment_id_seq') AS id, $1::text AS k", params: 1, bizKey: "x", maxRows: 10, timeoutMs: 2000 }), /read-only transaction/);
    } finally {
      await pgSuper.close();
    }

    // The probe's own users: reading works (the tests above), writing is not granted.
    const probeUser = await mysql.createConnection({ uri: env.PAYMENT_MARIADB_URL! });
    try {
      await assert.rejects(probeUser.query(`DELETE FROM \`${TABLE}\``), /command denied/);
    } finally {
      await probeUser.end();
    }
    const probeRole = new pg.Client({ connectionString: env.PAYMENT_PG_URL });
    await probeRole.connect();
    try {
      await assert.rejects(probeRole.query("DELETE FROM payment"), /permission denied/);
    } finally {
      await probeRole.end();
    }
    assert.equal(await businessTables(), before);
  });

  it("is a usage error without the database variable, with both --key and --keys-from-verdicts, or neither", async () => {
    const missing = await runCli([...probeArgs("--dry-run"), "--key", "K"], { PAYMENT_PG_URL: env.PAYMENT_PG_URL! });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /the environment variable PAYMENT_MARIADB_URL is not set/);
    assert.equal((await runCli([...probeArgs("--dry-run", "--keys-from-verdicts"), "--key", "K"], env)).code, 2);
    assert.equal((await runCli(probeArgs("--dry-run"), env)).code, 2);
  });
});
