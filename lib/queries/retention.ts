import type { KeyDiagnosis } from "../diagnosis/types.ts";
import type { SqlSession } from "../store/driver.ts";
import { eventPartitions } from "../store/partitions.ts";

export interface RetentionRunRow {
  ranAt: string;
  eventsBefore: string;
  verdictsBefore: string;
  droppedPartitions: string[];
  deleted: Record<string, number>;
  error: string | null;
}

type RunSql = { ran_at: Date; events_before: string; verdicts_before: string; dropped_partitions: string[]; deleted: Record<string, number>; error: string | null };

const runView = (r: RunSql | undefined): RetentionRunRow | null =>
  r
    ? {
        ranAt: new Date(r.ran_at).toISOString(),
        eventsBefore: new Date(Number(r.events_before)).toISOString(),
        verdictsBefore: new Date(Number(r.verdicts_before)).toISOString(),
        droppedPartitions: r.dropped_partitions,
        deleted: r.deleted,
        error: r.error,
      }
    : null;

/** The retention job's latest run, and its latest failed run (the same row when the job is failing now). */
export async function latestRetentionRuns(driver: SqlSession): Promise<{ last: RetentionRunRow | null; lastError: RetentionRunRow | null }> {
  const latest = (where: string) => driver.query<RunSql>(`SELECT * FROM retention_runs ${where} ORDER BY ran_at DESC, id DESC LIMIT 1`);
  const [[last], [lastError]] = await Promise.all([latest(""), latest("WHERE error IS NOT NULL")]);
  return { last: runView(last), lastError: runView(lastError) };
}

/**
 * From when raw events are still stored: the start of the oldest day partition, or null with none. A key whose
 * first event is older had raw events in a partition the retention job dropped.
 */
export async function rawEventsFrom(driver: SqlSession): Promise<number | null> {
  const [oldest] = await eventPartitions(driver);
  return oldest?.from ?? null;
}

export interface StoredKeyDiagnosis {
  firstTs: number;
  lastTs: number;
  diagnosedAt: string;
  /** The full diagnosis, stored only for keys with a duplicate or a lost message. */
  diagnosis: KeyDiagnosis | null;
}

/** The worker's last diagnosis of a key, as stored: what remains of it once its raw events have expired. */
export async function storedKeyDiagnosis(driver: SqlSession, bizKey: string): Promise<StoredKeyDiagnosis | undefined> {
  const [row] = await driver.query<{ first_ts: string; last_ts: string; diagnosed_at: Date; diagnosis: KeyDiagnosis | null }>(
    `SELECT first_ts, last_ts, diagnosed_at, diagnosis FROM key_diagnoses WHERE biz_key = $1`,
    [bizKey],
  );
  if (!row) return undefined;
  return { firstTs: Number(row.first_ts), lastTs: Number(row.last_ts), diagnosedAt: new Date(row.diagnosed_at).toISOString(), diagnosis: row.diagnosis };
}
