import { logger } from "../log.ts";
import { runEvery, type PeriodicHandle } from "../periodic.ts";
import { rawEventsFrom } from "../queries/retention.ts";
import type { SqlDriver, SqlSession } from "../store/driver.ts";
import { dropEventPartitionsBefore, ensureEventPartitions, minuteOf, partitionSpan } from "../store/partitions.ts";
import { pruneMembers } from "../store/group-members.ts";
import { backfillGroupState, type BackfillReport } from "../store/group-state-backfill.ts";
import { recordRawEventsFrom } from "../store/raw-events-from.ts";
import type { Retention } from "../store/retention-config.ts";

/**
 * The retention job (docs/deploy.md#retention), run by one server at a time (lib/store/leadership.ts): makes the
 * next event partitions ahead of the writers, drops the partitions of raw events older than
 * DUPSCOPE_RETENTION_EVENTS with the keys whose diagnosis found nothing, and deletes the verdicts, the key diagnoses
 * with a finding, rollups and alert history older than DUPSCOPE_RETENTION_VERDICTS. Each run is logged and stored in
 * retention_runs, which /api/health shows.
 */

/** Partitions made ahead of the current one, so a day's first writer never waits on a CREATE TABLE. */
const PARTITIONS_AHEAD = 2;
/** Rows per DELETE statement: a run never holds locks on a huge set, and writers keep going between batches. */
const DELETE_BATCH = 5000;

export interface RetentionRunReport {
  ranAt: number;
  eventsBefore: number;
  verdictsBefore: number;
  droppedPartitions: string[];
  /** Expired partitions a long read kept locked; the next run drops them. */
  waitingPartitions: string[];
  deleted: Record<string, number>;
  /** The group lines read into the group state before anything was dropped (lib/store/group-state-backfill.ts), once. */
  backfilled?: BackfillReport;
}

/** Deletes, batch by batch, the rows `select` names (by ctid) from `table`, and returns how many went. */
async function deleteInBatches(session: SqlSession, table: string, where: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await session.run(`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${DELETE_BATCH}))`, params);
    total += n;
    if (n < DELETE_BATCH) return total;
  }
}

/**
 * Deletes, oldest first, the key diagnoses whose last event is before `before` (only those whose diagnosis found
 * nothing with `withoutFindings`), with the verdicts of those that had a finding: a key goes whole, so the key page
 * never shows half a history. The delete triggers leave the key and verdict rollups of the minutes before `before`
 * alone (migration …_expired_rollups_left_alone): the run deletes those rows itself when they expire, and the counts
 * of keys forgotten with their raw events stay until then (runRetentionOnce).
 */
async function deleteKeysBefore(driver: SqlDriver, before: number, withoutFindings: boolean): Promise<{ keys: number; verdicts: number }> {
  const unfound = withoutFindings ? "diagnosis IS NULL AND " : "";
  let keys = 0;
  let verdicts = 0;
  for (;;) {
    const batch = await driver.transaction(async (tx) => {
      await tx.query(`SELECT set_config('dupscope.rollups_expire_before', $1, true)`, [String(before)]);
      // Oldest first along key_diagnoses_last_ts_idx (or its partial twin without findings): in key order each batch
      // walked the primary key past the live keys. One statement: the subquery and the delete share a snapshot, so an
      // address names the row it was read from, and a row changed meanwhile is checked again against the conditions.
      // Selected, then deleted by key, with each key looked up in verdicts though only keys with a finding have any,
      // a batch of 5,000 of 1.4 million keys took 30–50 ms against 21–29
      // (docs/performance-log.md#keys-with-nothing-found-forgotten-with-their-events). Rows lock in the order the plan
      // visits them; a deadlock with a fold or a save fails this run, which the next one repeats.
      const gone = await tx.query<{ biz_key: string; found: boolean }>(
        `DELETE FROM key_diagnoses WHERE ctid = ANY(ARRAY(
           SELECT ctid FROM key_diagnoses WHERE ${unfound}last_ts < $1 ORDER BY last_ts LIMIT ${DELETE_BATCH}))
           AND ${unfound}last_ts < $1
         RETURNING biz_key, diagnosis IS NOT NULL AS found`,
        [before],
      );
      const found = gone.filter((r) => r.found).map((r) => r.biz_key);
      if (found.length > 0) verdicts += await tx.run(`DELETE FROM verdicts WHERE biz_key = ANY($1::text[])`, [found]);
      return gone.length;
    });
    keys += batch;
    if (batch < DELETE_BATCH) return { keys, verdicts };
  }
}

export async function runRetentionOnce(driver: SqlDriver, retention: Retention, now = Date.now()): Promise<RetentionRunReport> {
  const eventsBefore = now - retention.eventsMs;
  const verdictsBefore = now - retention.verdictsMs;
  const span = await partitionSpan(driver);
  await ensureEventPartitions(driver, Array.from({ length: PARTITIONS_AHEAD + 1 }, (_, i) => minuteOf(now + i * span)));
  // Before any line goes: the group lines of a store older than its group state are read into it once.
  const backfilled = await backfillGroupState(driver);
  if (backfilled !== null) logger.info(backfilled, `group state: read ${backfilled.lines} stored membership and queue lines of ${backfilled.groups} groups into it`);
  const { dropped, waiting } = await dropEventPartitionsBefore(driver, eventsBefore);
  // Keys whose diagnosis found nothing (no duplicate, no lost message), nearly every key, go with their raw events:
  // those whose last event is older than the oldest partition still kept. Kept for the verdicts' retention, a row per
  // key outweighed the events themselves at production rates (docs/deploy.md#retention). Such a key has no verdict;
  // its count in the key rollups stays until DUPSCOPE_RETENTION_VERDICTS, as the overview's rates need it.
  const keptFrom = (await rawEventsFrom(driver)) ?? eventsBefore;
  await recordRawEventsFrom(driver, keptFrom);
  const { keys: keysWithoutFindings } = await deleteKeysBefore(driver, keptFrom, true);
  const at = new Date(verdictsBefore);
  const { keys, verdicts } = await deleteKeysBefore(driver, verdictsBefore, false);
  const deleted: Record<string, number> = await driver.session(async (session) => {
    return {
      keysWithoutFindings,
      keyDiagnoses: keys,
      verdicts,
      // The minutes of the verdicts and key diagnoses deleted above, whose delete triggers left these rows alone.
      duplicateRollups: await deleteInBatches(session, "duplicate_rollups", "minute < $1", [verdictsBefore]),
      keyRollups: await deleteInBatches(session, "key_rollups", "minute < $1", [verdictsBefore]),
      rebalanceRollups: await deleteInBatches(session, "rebalance_rollups", "slot < $1", [verdictsBefore]),
      countedVerdicts: await deleteInBatches(session, "metric_verdicts_counted", "counted_at < $1", [at]),
      // Verdicts wait here for a /metrics scrape to count them; where nothing scrapes, they would pile up for ever
      // (400,000 rows in a 30-minute soak at 50,000 events/s). One written longer ago than the retention is no
      // longer counted.
      pendingVerdicts: await deleteInBatches(session, "metric_verdicts_pending", "seen_at < $1", [at]),
      alertNotifications: await deleteInBatches(session, "alert_notifications", "created_at < $1", [at]),
      alertFirings: await deleteInBatches(session, "alert_firings", "resolved_at < $1", [at]),
      probeRuns: await deleteInBatches(session, "probe_runs", "probed_at < $1", [at]),
      // A mark asks to re-diagnose keys around keyless events; once those events are gone it can only mislead.
      diagnosisMarks: await deleteInBatches(session, "diagnosis_marks", "to_ts < $1", [eventsBefore]),
      retentionRuns: await deleteInBatches(session, "retention_runs", "ran_at < $1", [at]),
      // What a source skipped is news while its raw events are kept; a shape or source not met since is forgotten.
      unrecognisedShapes: await deleteInBatches(session, "unrecognised_shapes", "last_seen < $1", [new Date(eventsBefore)]),
      unrecognisedSources: await deleteInBatches(session, "unrecognised_sources", "last_seen < $1", [new Date(eventsBefore)]),
    };
  });
  // A group's members and who held its queues outlive the raw lines that told of them: an interval still open is kept
  // however old its first line, one that ended goes with the verdicts it could explain.
  const group = await pruneMembers(driver, verdictsBefore);
  deleted.memberChanges = group.members;
  deleted.holdingChanges = group.holdings;
  const report: RetentionRunReport = {
    ranAt: now,
    eventsBefore,
    verdictsBefore,
    droppedPartitions: dropped,
    waitingPartitions: waiting,
    deleted,
    ...(backfilled === null ? {} : { backfilled }),
  };
  await driver.run(`INSERT INTO retention_runs (ran_at, events_before, verdicts_before, dropped_partitions, deleted) VALUES ($1, $2, $3, $4, $5)`, [
    new Date(now),
    eventsBefore,
    verdictsBefore,
    dropped,
    JSON.stringify({ ...deleted, ...(waiting.length > 0 ? { waitingPartitions: waiting.length } : {}) }),
  ]);
  return report;
}

export type RetentionJobHandle = PeriodicHandle;

export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

export function retentionIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DUPSCOPE_RETENTION_INTERVAL_MS?.trim();
  if (!raw) return DEFAULT_RETENTION_INTERVAL_MS;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 1000) throw new Error(`DUPSCOPE_RETENTION_INTERVAL_MS must be a whole number of ms, at least 1000, got "${raw}"`);
  return ms;
}

/** Runs the job now and every `intervalMs`, one run at a time; a failed run is logged and recorded, and retried next time. */
export function startRetentionJob(driver: SqlDriver, retention: Retention, intervalMs: number): RetentionJobHandle {
  const log = logger.child({ component: "retention" });
  const tick = async () => {
    const started = Date.now();
    try {
      const report = await runRetentionOnce(driver, retention);
      const removed = Object.fromEntries(Object.entries(report.deleted).filter(([, n]) => n > 0));
      log.info(
        { droppedPartitions: report.droppedPartitions, waitingPartitions: report.waitingPartitions, deleted: removed, eventsBefore: new Date(report.eventsBefore).toISOString(), verdictsBefore: new Date(report.verdictsBefore).toISOString(), ms: Date.now() - started },
        report.droppedPartitions.length > 0 || Object.keys(removed).length > 0 ? "retention removed expired data" : "retention: nothing expired",
      );
      if (report.waitingPartitions.length > 0) log.warn({ partitions: report.waitingPartitions }, "expired partitions locked by a long read; dropped next run");
    } catch (error) {
      log.error({ err: error }, "retention run failed; will retry");
      await driver
        .run(`INSERT INTO retention_runs (events_before, verdicts_before, dropped_partitions, deleted, error) VALUES ($1, $2, '{}', '{}', $3)`, [
          started - retention.eventsMs,
          started - retention.verdictsMs,
          error instanceof Error ? error.message : String(error),
        ])
        .catch(() => {});
    }
  };
  log.info({ eventsMs: retention.eventsMs, verdictsMs: retention.verdictsMs, intervalMs }, "retention job started");
  return runEvery(intervalMs, tick, { immediately: true });
}
