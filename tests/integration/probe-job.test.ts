import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { runCli } from "../helpers/cli.ts";
import { A, B, GROUP, story, T0, TOPIC, withDb, withUser } from "../helpers/probe-story.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { postgresAdminUrl } from "../helpers/stores.ts";

/**
 * The server's probe job (lib/probe/job.ts, docs/probe.md#server) against the machine's PostgreSQL
 * (TEST_DATABASE_URL, or postgres@127.0.0.1:5432/test): a built server with DUPSCOPE_PROBES_FILE is sent two
 * ordinary duplicates whose outcome it cannot tell (traces, the broker dropping A's channel, a dedup log from A
 * only). Its diagnosis worker stores them as unknown; the job, in the leader, reads the application's payment
 * table (two rows for one key, one for the other) through a SELECT-only role, stores the rows, and the worker
 * settles the verdicts: leaked and caught. Nobody runs `dupscope probe`.
 */

const PG_ADMIN = postgresAdminUrl ?? "postgres://postgres@127.0.0.1:5432/test";
const RUN = `${process.pid}_${Date.now().toString(36)}`;
const APP_DB = `dupscope_probejob_app_${RUN}`;
const STORE_DB = `dupscope_probejob_store_${RUN}`;
const ROLE = `dupscope_probejob_${RUN}`;

const LEAK = "ORD-JOB-LEAK-0001";
const CATCH = "ORD-JOB-CATCH-0002";

interface KeyBody {
  duplicates: { outcome: string; evidence: { code: string }[] }[];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the server's probe job", () => {
  let dir: string;
  let admin: pg.Client;
  let store: pg.Client;
  let storeUrl: string;
  let server: RunningServer | undefined;
  let probesFile: string;
  let appUrl: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "dupscope-probe-job-"));
    admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${APP_DB}"`);
    await admin.query(`CREATE DATABASE "${STORE_DB}"`);
    await admin.query(`CREATE ROLE "${ROLE}" LOGIN`);
    const app = new pg.Client({ connectionString: withDb(PG_ADMIN, APP_DB) });
    await app.connect();
    try {
      await app.query("CREATE TABLE payment (id BIGSERIAL PRIMARY KEY, order_id TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL, updated_by TEXT, status TEXT)");
      const t = (n: number) => T0 + n * 60_000;
      await app.query("INSERT INTO payment (order_id, created_at, updated_by, status) VALUES ($1, $2, $3, 'PAID'), ($1, $4, $5, 'PAID'), ($6, $7, $3, 'PAID')", [
        LEAK, new Date(t(1) + 495), A, new Date(t(1) + 20_050), B, CATCH, new Date(t(2) + 495),
      ]);
      await app.query(`GRANT CONNECT ON DATABASE "${APP_DB}" TO "${ROLE}"`);
      await app.query(`GRANT USAGE ON SCHEMA public TO "${ROLE}"`);
      await app.query(`GRANT SELECT ON payment TO "${ROLE}"`);
    } finally {
      await app.end();
    }
    appUrl = withUser(withDb(PG_ADMIN, APP_DB), ROLE);
    storeUrl = withDb(PG_ADMIN, STORE_DB);
    probesFile = path.join(dir, "probes.yaml");
    writeFileSync(
      probesFile,
      `probes:
  - name: payment
    match: { group: ${GROUP}, topic: ${TOPIC} }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by, status FROM payment WHERE order_id = :bizKey ORDER BY id
    columns: { time: created_at, key: id, instance: updated_by, state: status }
    maxQueriesPerSecond: 50
`,
    );
  });

  after(async () => {
    await server?.stop();
    await store?.end().catch(() => {});
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS "${APP_DB}" WITH (FORCE)`).catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS "${STORE_DB}" WITH (FORCE)`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS "${ROLE}"`).catch(() => {});
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a probes file it cannot use is logged loudly and disables the job; the server still starts", async () => {
    const broken = await startServer({ DATABASE_URL: storeUrl, DUPSCOPE_PROBES_FILE: probesFile, DUPSCOPE_PROBE_INTERVAL_MS: "300" });
    try {
      assert.equal((await fetch(`${broken.url}/api/health`)).status, 200);
      await until("the log line", async () => (/probe job is DISABLED: .*PAYMENT_DB_URL is not set/.test(broken.output()) ? true : undefined), 10_000);
    } finally {
      await broken.stop();
    }
  });

  it("probes the keys whose duplicates the worker stored as unknown, once, and the worker settles them: two rows leaked, one row caught", async () => {
    server = await startServer({
      DATABASE_URL: storeUrl,
      DUPSCOPE_PROBES_FILE: probesFile,
      PAYMENT_DB_URL: appUrl,
      DUPSCOPE_PROBE_INTERVAL_MS: "300",
      DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200",
    });
    const stories = [story(LEAK, 1), story(CATCH, 2)];
    writeFileSync(path.join(dir, "story.ndjson"), stories.flatMap((s) => s.events.map((e) => JSON.stringify(e))).join("\n") + "\n");
    writeFileSync(path.join(dir, "dedup.log"), stories.flatMap((s) => s.dedupLines).join("\n") + "\n");
    for (const [format, file] of [
      ["events", "story.ndjson"],
      ["dedup-log", "dedup.log"],
    ] as const) {
      const ingest = await runCli(["ingest", "--format", format, "--server", server.url, path.join(dir, file)]);
      assert.equal(ingest.code, 0, ingest.stderr);
    }

    const outcome = async (key: string) => {
      const body = (await (await fetch(`${server!.url}/api/v1/keys/${key}`)).json()) as KeyBody;
      return body.duplicates.length === 1 ? body.duplicates[0]! : undefined;
    };
    const leak = await until("the leak", async () => ((await outcome(LEAK))?.outcome === "leaked" ? outcome(LEAK) : undefined));
    assert.ok(leak.evidence.some((e) => e.code === "written_twice"));
    const caught = await until("the catch", async () => ((await outcome(CATCH))?.outcome === "caught" ? outcome(CATCH) : undefined));
    assert.ok(caught.evidence.some((e) => e.code === "written_once"));

    // The stored verdicts (what lists and alerts read) follow: the worker diagnosed the keys again.
    store = new pg.Client({ connectionString: storeUrl });
    await store.connect();
    const stored = await until("the stored verdicts", async () => {
      const { rows } = await store.query<{ biz_key: string; outcome: string }>("SELECT biz_key, outcome FROM verdicts ORDER BY biz_key");
      const pairs = rows.map((r) => [r.biz_key, r.outcome]);
      return pairs.some(([, o]) => o === "unknown") || pairs.length < 2 ? undefined : pairs;
    });
    assert.deepEqual(stored, [
      [CATCH, "caught"],
      [LEAK, "leaked"],
    ]);
    const { rows: events } = await store.query<{ biz_key: string; n: string }>("SELECT biz_key, count(*)::text AS n FROM events WHERE source = 'probe:payment' GROUP BY biz_key ORDER BY biz_key");
    assert.deepEqual(events.map((r) => [r.biz_key, r.n]), [
      [CATCH, "1"],
      [LEAK, "2"],
    ]);

    // Each key was looked up once: several more runs ask the business database nothing.
    const { rows: runs } = await store.query<{ biz_key: string; probed_at: Date }>("SELECT biz_key, probed_at FROM probe_runs WHERE probe = 'payment' ORDER BY biz_key");
    assert.deepEqual(runs.map((r) => r.biz_key), [CATCH, LEAK]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { rows: later } = await store.query<{ biz_key: string; probed_at: Date }>("SELECT biz_key, probed_at FROM probe_runs WHERE probe = 'payment' ORDER BY biz_key");
    assert.deepEqual(later, runs);
  });
});
