import { logger } from "../log.ts";
import { runEvery, type PeriodicHandle } from "../periodic.ts";
import type { SqlDriver } from "./driver.ts";

/**
 * Vacuums the tables the diagnosis rewrites all the time, when nothing else does. Each diagnosed key updates its
 * key diagnosis, replaces its verdicts, moves rows of the rollups their triggers keep, and passes its verdicts through
 * the metric tables; the retention job deletes the oldest of all of them. Left alone, the dead rows pile up under the
 * reads of every step: in a soak at 17,500 events/s with autovacuum off, the read of a step's stored verdicts grew
 * from 3 to 15 ms and the diagnosis fell behind after 25 minutes; vacuumed every minute it kept up for all 30
 * (docs/performance-log.md#vacuuming-the-verdict-tables).
 *
 * PostgreSQL's autovacuum does this where it runs, so the job only acts where it does not: a server with
 * `autovacuum` or `track_counts` off, and PGlite, the embedded store, which has no autovacuum launcher (its
 * `autovacuum` setting reads "on" all the same). The queue's own tables are vacuumed by the diagnosis worker,
 * more often and in every case (lib/diagnosis-queue/queue.ts, vacuumQueueTables).
 */

/** The tables the diagnosis and the retention job update and delete from on every run. */
export const VERDICT_TABLES = [
  "key_diagnoses",
  "verdicts",
  "key_rollups",
  "duplicate_rollups",
  "rebalance_rollups",
  "metric_verdicts_pending",
  "metric_verdicts_counted",
] as const;

export const VACUUM_INTERVAL_MS = 60_000;

/** Whether an autovacuum launcher looks after the store's tables. */
export async function autovacuumRuns(driver: SqlDriver): Promise<boolean> {
  if (driver.mode === "embedded") return false;
  const [row] = await driver.query<{ on: boolean }>(`SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' AS on`);
  return row?.on === true;
}

/** SKIP_LOCKED: a table another session is vacuuming (or autovacuum, turned on meanwhile) is left to it. */
export async function vacuumVerdictTables(driver: SqlDriver): Promise<void> {
  await driver.exec(`VACUUM (SKIP_LOCKED) ${VERDICT_TABLES.join(", ")}`);
}

export interface VacuumRunReport {
  /** False when autovacuum runs and the job left the tables to it. */
  vacuumed: boolean;
  ms: number;
}

/** Asks on every run, so that turning autovacuum on or off (a reload, no restart) takes effect at the next one. */
export async function runVacuumOnce(driver: SqlDriver): Promise<VacuumRunReport> {
  const started = Date.now();
  if (await autovacuumRuns(driver)) return { vacuumed: false, ms: Date.now() - started };
  await vacuumVerdictTables(driver);
  return { vacuumed: true, ms: Date.now() - started };
}

export function startVacuumJob(driver: SqlDriver, intervalMs = VACUUM_INTERVAL_MS): PeriodicHandle {
  const log = logger.child({ component: "vacuum" });
  let announced: boolean | undefined;
  return runEvery(intervalMs, async () => {
    try {
      const report = await runVacuumOnce(driver);
      if (report.vacuumed !== announced) {
        announced = report.vacuumed;
        log.info({ tables: VERDICT_TABLES, intervalMs }, report.vacuumed ? "autovacuum is off: this server vacuums the verdict tables" : "autovacuum runs: the verdict tables are left to it");
      }
      if (report.vacuumed) log.debug({ ms: report.ms }, "vacuumed the verdict tables");
    } catch (error) {
      log.warn({ err: error }, "vacuum of the verdict tables failed; will retry");
    }
  });
}
