import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { simulate } from "../../lib/simulator/simulate.ts";
import type { SimulationResult } from "../../lib/simulator/run.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { leakStory, startHttpReceiver, type HttpReceiver } from "../helpers/alerts-fixtures.ts";
import { runCli } from "../helpers/cli.ts";
import { toNdjson } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends, postgresAdminUrl } from "../helpers/stores.ts";

/**
 * Production's shape on one PostgreSQL: three servers and four CLI ingests at once, one server killed with
 * SIGKILL in the middle of the diagnosis backlog. Every key ends diagnosed as one process alone diagnoses it, no
 * claim is left behind, and the one alert notification is sent once.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 3000;

async function snapshot(store: Store): Promise<string> {
  const verdicts = await store.driver.query(`SELECT id, biz_key, cause, outcome, layer, defect, first_ts::text, second_ts::text, first_instance, second_instance FROM verdicts ORDER BY id`);
  const keys = await store.driver.query(`SELECT biz_key, duplicates, leaked, lost, normal_retries FROM key_diagnoses ORDER BY biz_key`);
  return JSON.stringify({ verdicts, keys });
}

/** The manifest's files as `dupscope ingest` arguments, dealt round-robin to `n` CLI processes. */
function ingestJobs(sim: SimulationResult, dir: string, url: string, n: number): string[][][] {
  const jobs: string[][][] = Array.from({ length: n }, () => []);
  sim.manifest.files.forEach((f, i) => {
    jobs[i % n]!.push(["ingest", "--format", f.format, ...(f.instance ? ["--instance", f.instance] : []), "--database", url, path.join(dir, f.path)]);
  });
  return jobs;
}

describe("three servers and four ingests on one PostgreSQL", { skip: postgresAdminUrl === undefined && "set TEST_DATABASE_URL" }, () => {
  const postgres = backends.find((b) => b.name === "postgres")!;
  const disposals: (() => Promise<void>)[] = [];
  const stores: Store[] = [];
  const servers: RunningServer[] = [];
  let dir: string;
  let receiver: HttpReceiver;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "dupscope-multi-"));
  });
  after(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    for (const s of stores) await s.close().catch(() => {});
    for (const d of disposals) await d();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("diagnoses every key as one process does, with no claim left and one notification, after a server dies mid-backlog", async () => {
    const sim = await simulate({ scenario: "all", keys: 1500, seed: 11, out: dir });
    const shared = await postgres.create();
    const alone = await postgres.create();
    disposals.push(shared.dispose, alone.dispose);
    receiver = await startHttpReceiver();
    const sharedUrl = shared.env.DATABASE_URL!;
    const env = { ...shared.env, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "100", DUPSCOPE_DIAGNOSIS_LEASE_MS: String(LEASE_MS), DUPSCOPE_ALERT_INTERVAL_MS: "300" };
    // One of them runs two step loops (DUPSCOPE_DIAGNOSIS_LOOPS): they claim apart, like two servers.
    for (let i = 0; i < 3; i++) servers.push(await startServer(i === 0 ? { ...env, DUPSCOPE_DIAGNOSIS_LOOPS: "2" } : env));

    const [first] = servers;
    const api = async (url: string, body: unknown) => {
      const response = await fetch(`${first!.url}${url}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      const text = await response.text();
      assert.ok(response.ok, `${url}: ${response.status} ${text}`);
      return JSON.parse(text) as { id: string };
    };
    const channel = await api("/api/v1/alerts/channels", { name: "hook", type: "webhook", config: { url: `${receiver.url}/webhook` } });
    await api("/api/v1/alerts/rules", { name: "payment leak", condition: { kind: "leaked_duplicates", group: "pay-consumer", threshold: 0, windowSeconds: 600 }, severity: "critical", channelIds: [channel.id] });

    // Four CLI processes write the simulation at once, one of them the leak story over HTTP as well.
    const jobs = ingestJobs(sim, dir, sharedUrl, 4);
    const ingests = jobs.map(async (files) => {
      for (const args of files) {
        const run = await runCli(args);
        assert.equal(run.code, 0, `${args.join(" ")}\n${run.stderr}`);
      }
    });
    const leakFile = path.join(dir, "leak.ndjson");
    writeFileSync(leakFile, toNdjson(leakStory("PAY-LEAK-MULTI-1", Date.now())));
    const leak = await fetch(`${servers[1]!.url}/api/v1/events`, { method: "POST", body: readFileSync(leakFile, "utf8"), headers: { "content-type": "application/x-ndjson" } });
    assert.equal(leak.status, 200);

    // Kill a server while it holds claims on keys it is diagnosing: they must come back to the others.
    const probe = await openStore(shared.config);
    stores.push(probe);
    const state = async () => (await probe.driver.query<{ queued: number; claimed: number }>(`SELECT count(*)::int AS queued, count(claimed_by)::int AS claimed FROM diagnosis_queue`))[0]!;
    const victim = servers[2]!;
    const holds = async () =>
      (await probe.driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM diagnosis_queue WHERE claimed_by LIKE $1`, [`%@${victim.pid}#%`]))[0]!.n;
    // A step holds its claims for milliseconds: freeze the server (SIGSTOP) once it holds some, so it cannot release
    // them before the SIGKILL lands; let it go on if it released them just before the freeze.
    const deadline = Date.now() + 60_000;
    let orphaned = 0;
    while (orphaned === 0 && Date.now() < deadline) {
      if ((await holds()) > 0) {
        process.kill(victim.pid, "SIGSTOP");
        orphaned = await holds();
        if (orphaned === 0) process.kill(victim.pid, "SIGCONT");
      }
      if (orphaned === 0) await sleep(2);
    }
    await victim.kill();
    assert.ok(orphaned > 0, "the killed server held claims");
    await Promise.all(ingests);

    // Drained: nothing queued (keys a rebalance line queued wait 10 s first), no marks, and no journal row a worker
    // has yet to fold into more of either, seen in one snapshot: a fold and a mark's expansion each commit at once.
    const until = Date.now() + 120_000;
    for (;;) {
      const [left] = await probe.driver.query<{ queued: number; marks: number; journal: number }>(
        `SELECT (SELECT count(*)::int FROM diagnosis_queue) AS queued, (SELECT count(*)::int FROM diagnosis_marks) AS marks,
                (SELECT count(*)::int FROM ingest_journal) AS journal`,
      );
      if (left!.queued === 0 && left!.marks === 0 && left!.journal === 0) break;
      assert.ok(Date.now() < until, `queue not drained: ${JSON.stringify(left)}`);
      await sleep(200);
    }
    assert.deepEqual(await state(), { queued: 0, claimed: 0 });

    // The same input through one process.
    for (const files of ingestJobs(sim, dir, alone.env.DATABASE_URL!, 1)) for (const args of files) assert.equal((await runCli(args)).code, 0);
    assert.equal((await runCli(["ingest", "--format", "events", "--database", alone.env.DATABASE_URL!, leakFile])).code, 0);
    const single = await openStore(alone.config);
    stores.push(single);
    await drainQueue(single.driver);
    assert.equal(await snapshot(probe), await snapshot(single));

    // The leak fired once, from whichever server led the alerts.
    const wait = Date.now() + 30_000;
    while (receiver.received.length === 0 && Date.now() < wait) await sleep(100);
    await sleep(2000);
    assert.equal(receiver.received.filter((r) => r.path === "/webhook").length, 1, `notifications: ${receiver.received.length}`);
  });
});
