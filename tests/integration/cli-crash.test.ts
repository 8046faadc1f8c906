import assert from "node:assert/strict";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import { runCli, startCli } from "../helpers/cli.ts";
import { backends } from "../helpers/stores.ts";

const LINES = 1_000_000;

/** A million distinct rocketmq_client.log lines (5.x pattern), one rebalance event each. */
async function writeClientLog(file: string): Promise<void> {
  const out = createWriteStream(file);
  const start = Date.UTC(2026, 10, 30, 0, 0, 0);
  for (let i = 0; i < LINES; i++) {
    const local = new Date(start + i + 8 * 3600_000).toISOString().slice(0, 23).replace("T", " ");
    const line = `${local} INFO  [4121] [RebalanceService] [o.a.r.c.i.c.RebalanceImpl#updateProcessQueueTableInRebalance:489] - doRebalance, pay-consumer, add a new mq, MessageQueue [topic=PAY_SUCCESS, brokerName=broker-${i % 7}, queueId=${i % 16}]\n`;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

async function countEvents(url: string): Promise<{ total: number; distinct: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const row = (await client.query("SELECT count(*) AS total, count(DISTINCT id) AS distinct FROM events")).rows[0];
    return { total: Number(row.total), distinct: Number(row.distinct) };
  } catch {
    return { total: 0, distinct: 0 };
  } finally {
    await client.end();
  }
}

async function untilNoOtherSessions(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      if (Number(rows[0].n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the killed CLI's sessions did not end");
  } finally {
    await client.end();
  }
}

for (const backend of backends.filter((b) => b.name === "postgres")) {
  describe("dupscope ingest killed with SIGKILL mid-file", () => {
    it("re-run stores exactly the file's events, none twice", { timeout: 300_000 }, async () => {
      const created = await backend.create();
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-crash-"));
      const file = path.join(dir, "rocketmq_client.log");
      try {
        await writeClientLog(file);
        const url = created.env.DATABASE_URL!;
        const args = ["ingest", "--format", "rocketmq-client-log", "--instance", "10.0.0.5@4121", "--database", url, "--json", file];
        const cli = startCli(args);
        const exited = once(cli, "exit");
        let before = 0;
        while (before < LINES / 5) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          before = (await countEvents(url)).total;
          assert.equal(cli.exitCode, null, "the first run must still be going when it is killed");
        }
        cli.kill("SIGKILL");
        await exited;
        // A COPY whose data reached the server before the kill still commits; count once its session is gone.
        await untilNoOtherSessions(url);
        const atCrash = await countEvents(url);
        assert.ok(atCrash.total > 0 && atCrash.total < LINES, `killed mid-file (${atCrash.total} stored)`);

        const rerun = await runCli(args);
        assert.equal(rerun.code, 0, rerun.stderr);
        const summary = JSON.parse(rerun.stdout);
        assert.equal(summary.events, LINES);
        assert.equal(summary.accepted + summary.duplicates, LINES);
        assert.equal(summary.duplicates, atCrash.total, "everything stored before the kill is recognised");
        assert.deepEqual(await countEvents(url), { total: LINES, distinct: LINES });
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await created.dispose();
      }
    });
  });
}
