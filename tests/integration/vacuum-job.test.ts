import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { autovacuumRuns, runVacuumOnce, startVacuumJob, VERDICT_TABLES } from "../../lib/store/vacuum-job.ts";
import { orderStory, validated } from "../helpers/events.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * The vacuum job (lib/store/vacuum-job.ts) on both stores: where autovacuum does not run (PGlite always; this
 * machine's PostgreSQL runs with it off) the pages of the rows diagnosis and retention leave dead are given back.
 */

const KEYS = 300;

for (const backend of backends) {
  describe(`vacuum job on ${backend.name}`, () => {
    const store = useFreshStore(backend);
    const size = async (table: string) => Number((await store().driver.query<{ bytes: string | number }>(`SELECT pg_relation_size($1) AS bytes`, [table]))[0]!.bytes);

    /** Diagnosed keys with duplicates, then deleted as the retention job deletes them (verdicts first, by key). */
    async function deadVerdictRows(prefix: string): Promise<void> {
      const keys = Array.from({ length: KEYS }, (_, i) => `${prefix}-${i}`);
      await insertEvents(store().driver, validated(keys.flatMap((k) => orderStory(k))));
      await drainQueue(store().driver, 100);
      assert.ok((await size("verdicts")) >= 4 * 8192, `the verdicts take pages: ${await size("verdicts")} bytes`);
      await store().driver.run(`DELETE FROM verdicts WHERE biz_key LIKE $1`, [`${prefix}-%`]);
      await store().driver.run(`DELETE FROM key_diagnoses WHERE biz_key LIKE $1`, [`${prefix}-%`]);
    }

    it("names the stores autovacuum looks after: never the embedded one", async () => {
      const runs = await autovacuumRuns(store().driver);
      if (backend.name === "pglite") assert.equal(runs, false);
      else {
        const [row] = await store().driver.query<{ autovacuum: string; track_counts: string }>(`SELECT current_setting('autovacuum') AS autovacuum, current_setting('track_counts') AS track_counts`);
        assert.equal(runs, row!.autovacuum === "on" && row!.track_counts === "on");
      }
    });

    it("vacuums every verdict table where autovacuum does not run, and gives the dead rows' pages back", async () => {
      await deadVerdictRows("ORDER-VACUUM");
      const report = await runVacuumOnce(store().driver);
      assert.equal(report.vacuumed, !(await autovacuumRuns(store().driver)));
      if (!report.vacuumed) return;
      assert.equal(await size("verdicts"), 0, "every verdict was dead: the table is truncated to nothing");
      assert.equal(await size("key_diagnoses"), 0);
      if (backend.name === "postgres") {
        const stats = await store().driver.query<{ relname: string; vacuumed: boolean }>(`SELECT relname, last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE relname = ANY($1::text[])`, [[...VERDICT_TABLES]]);
        assert.deepEqual(
          stats.filter((s) => s.vacuumed).map((s) => s.relname).sort(),
          [...VERDICT_TABLES].sort(),
        );
      }
    });

    it("runs on its interval until stopped, and leaves the tables alone where autovacuum runs", async () => {
      const leftToAutovacuum = await autovacuumRuns(store().driver);
      await deadVerdictRows("ORDER-VACUUM-JOB");
      const job = startVacuumJob(store().driver, 50);
      try {
        const deadline = Date.now() + (leftToAutovacuum ? 1000 : 10_000);
        while ((await size("verdicts")) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        if (leftToAutovacuum) assert.ok((await size("verdicts")) > 0, "twenty intervals later the dead rows' pages are still there");
        else assert.equal(await size("verdicts"), 0);
      } finally {
        await job.stop();
      }
    });
  });
}
