import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { parseProbeConfig } from "../../../collectors/business-probe/config.ts";
import { ProbeTimeoutError, type ProbeDatabase, type ProbeQuery } from "../../../lib/probe/database.ts";
import { keysPerRun, keysToProbe, loadProbeJob, ProbeJobConfigError, probeJobAtStartup, probeJobSettings, runProbeJobOnce } from "../../../lib/probe/job.ts";
import { prepareProbes } from "../../../lib/probe/run.ts";
import { pgliteDriver, type SqlDriver } from "../../../lib/store/driver.ts";
import { applyMigrations, loadMigrations } from "../../../lib/store/migrations.ts";

const YAML = `
probes:
  - name: payment
    match: { group: GID_payment }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id }
    maxQueriesPerSecond: 5
`;
const ENV = { PAYMENT_DB_URL: "postgres://probe@db/pay" };

describe("the probe job's settings", () => {
  it("is off without DUPSCOPE_PROBES_FILE, runs every 30 s by default, and refuses a bad interval", () => {
    assert.equal(probeJobSettings({}), null);
    assert.deepEqual(probeJobSettings({ DUPSCOPE_PROBES_FILE: "p.yaml" }), { file: "p.yaml", intervalMs: 30_000 });
    assert.deepEqual(probeJobSettings({ DUPSCOPE_PROBES_FILE: "p.yaml", DUPSCOPE_PROBE_INTERVAL_MS: "0" }), { file: "p.yaml", intervalMs: 0 });
    assert.throws(() => probeJobSettings({ DUPSCOPE_PROBES_FILE: "p.yaml", DUPSCOPE_PROBE_INTERVAL_MS: "soon" }), ProbeJobConfigError);
  });

  it("takes as many keys a run as the probe's rate allows in one interval, at least one", () => {
    assert.equal(keysPerRun({ maxQueriesPerSecond: 5 }, 30_000), 150);
    assert.equal(keysPerRun({ maxQueriesPerSecond: 5 }, 100), 1);
    assert.equal(keysPerRun({ maxQueriesPerSecond: 1000 }, 600_000), 1000);
  });

  it("a missing file, bad YAML or an unset database variable is a config error that disables the job, not a crash", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-probe-job-"));
    try {
      assert.throws(() => loadProbeJob(path.join(dir, "none.yaml"), ENV), /cannot read .*ENOENT/);
      writeFileSync(path.join(dir, "bad.yaml"), "probes: [");
      assert.throws(() => loadProbeJob(path.join(dir, "bad.yaml"), ENV), ProbeJobConfigError);
      writeFileSync(path.join(dir, "p.yaml"), YAML);
      assert.throws(() => loadProbeJob(path.join(dir, "p.yaml"), {}), /PAYMENT_DB_URL is not set/);
      assert.equal(loadProbeJob(path.join(dir, "p.yaml"), ENV).length, 1);
      assert.equal(probeJobAtStartup({ DUPSCOPE_PROBES_FILE: path.join(dir, "p.yaml") }), null);
      assert.equal(probeJobAtStartup({ DUPSCOPE_PROBES_FILE: path.join(dir, "p.yaml"), DUPSCOPE_PROBE_INTERVAL_MS: "-1", ...ENV }), null);
      assert.equal(probeJobAtStartup({ DUPSCOPE_PROBES_FILE: path.join(dir, "p.yaml"), ...ENV })?.intervalMs, 30_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("which keys the job probes", () => {
  let driver: SqlDriver;
  const probe = parseProbeConfig(YAML)[0]!;
  const verdict = (key: string, i: number, outcome: string, secondTs: number, group = "GID_payment") =>
    driver.run(
      `INSERT INTO verdicts (id, biz_key, group_name, topic, cause, confidence, outcome, gap_ms, gap_class, first_ts, second_ts, same_instance, reach_ts)
       VALUES ($1, $2, $3, 'PAY', 'ack_lost', 0.9, $4, 100, 'seconds', $5, $6, false, $6)`,
      [`${key}#${i}`, key, group, outcome, secondTs - 100, secondTs],
    );
  const picked = async () => (await keysToProbe(driver, probe, 10)).map((k) => k.bizKey);

  before(async () => {
    driver = pgliteDriver(await PGlite.create(), () => {});
    await applyMigrations(driver, loadMigrations());
    await verdict("K-unknown", 0, "unknown", 2000);
    await verdict("K-older", 0, "unknown", 1000);
    await verdict("K-caught", 0, "caught", 3000);
    await verdict("K-other-group", 0, "unknown", 4000, "GID_other");
  });
  after(async () => driver?.close());

  it("takes keys with a duplicate of unknown outcome in the probe's group, newest first, and each only once for the same duplicates", async () => {
    assert.deepEqual(await picked(), ["K-unknown", "K-older"]);
    const queries: ProbeQuery[] = [];
    const db: ProbeDatabase = { dialect: "postgres", server: "postgres 17", query: async (q) => (queries.push(q), { rows: [], truncated: false }), close: async () => {} };
    const first = await runProbeJobOnce(driver, prepareProbes([probe], ENV), { intervalMs: 30_000, open: async () => db });
    assert.equal(first.summaries[0]!.keys, 2);
    assert.deepEqual(queries.map((q) => q.bizKey), ["K-unknown", "K-older"]);
    // No rows, so no events: probe_runs is what keeps the job from asking again.
    assert.deepEqual(await picked(), []);
    const again = await runProbeJobOnce(driver, prepareProbes([probe], ENV), { intervalMs: 30_000, open: async () => db });
    assert.equal(again.summaries[0]!.queries, 0);

    // A new duplicate of the key is a new set of duplicates: probed again.
    await verdict("K-older", 1, "unknown", 5000);
    assert.deepEqual(await picked(), ["K-older"]);
  });

  it("tries a key again when its query failed", async () => {
    await verdict("K-flaky", 0, "unknown", 6000);
    const failing: ProbeDatabase = {
      dialect: "postgres",
      server: "postgres 17",
      query: async (q) => {
        if (q.bizKey === "K-flaky") throw new ProbeTimeoutError("ran past its 2000 ms timeout and was cancelled");
        return { rows: [], truncated: false };
      },
      close: async () => {},
    };
    // K-flaky's query times out, K-older's (its new duplicate) answers: only K-older is remembered.
    await runProbeJobOnce(driver, prepareProbes([probe], ENV), { intervalMs: 30_000, open: async () => failing });
    assert.deepEqual(await picked(), ["K-flaky"]);
  });
});
