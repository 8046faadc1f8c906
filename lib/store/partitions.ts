import type { SqlDriver, SqlSession } from "./driver.ts";
import { parseDuration } from "./retention-config.ts";

/**
 * The time partitions of `events` (prisma/migrations/…_partitioned_events): one table per span of `ts`, a UTC day
 * by default (events_pYYYYMMDD; shorter spans, for soak tests, events_pYYYYMMDD_HHMM). Writers make sure a batch's
 * partitions exist before storing it; the retention job makes the next ones ahead of time and drops expired ones.
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export const minuteOf = (ts: number) => Math.floor(ts / MINUTE_MS);
export const dayOf = (ts: number) => Math.floor(ts / DAY_MS);

export interface EventPartition {
  name: string;
  /** A detach that did not finish (lib/retention/job.ts finishes it). */
  detachPending: boolean;
  /** First ms the partition holds, and the first of the next. */
  from: number;
  to: number;
}

/**
 * DUPSCOPE_PARTITION_INTERVAL: the span of one partition, `1d` by default; shorter ones (`1m`…`12h`) must divide a
 * day. Only a store's first partition reads it: the span is then recorded in the store (dupscope_settings), so
 * servers configured differently, or a later change, cannot create partitions that overlap.
 */
export function partitionSpanFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DUPSCOPE_PARTITION_INTERVAL?.trim();
  if (!raw) return DAY_MS;
  const ms = parseDuration("DUPSCOPE_PARTITION_INTERVAL", raw, MINUTE_MS, DAY_MS);
  if (DAY_MS % ms !== 0) throw new Error(`DUPSCOPE_PARTITION_INTERVAL must divide a day evenly (1m, 5m, 1h, 6h, 1d…), got "${raw}"`);
  return ms;
}

interface Known {
  span: number;
  /** Partition starts known to exist; only the retention job drops one, and it forgets it here. */
  starts: Set<number>;
}

const known = new WeakMap<SqlDriver, Known>();

const SPAN_SETTING = "event_partition_ms";

async function knownFor(driver: SqlDriver): Promise<Known> {
  let k = known.get(driver);
  if (!k) {
    await driver.run(`INSERT INTO dupscope_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [SPAN_SETTING, String(partitionSpanFromEnv())]);
    const [row] = await driver.query<{ value: string }>(`SELECT value FROM dupscope_settings WHERE name = $1`, [SPAN_SETTING]);
    k = { span: Number(row!.value), starts: new Set() };
    known.set(driver, k);
  }
  return k;
}

/** The span of this store's partitions, in ms. */
export async function partitionSpan(driver: SqlDriver): Promise<number> {
  return (await knownFor(driver)).span;
}

/** Forgets which partitions exist, so the next write checks them in the database again. */
export function forgetEventPartitions(driver: SqlDriver): void {
  known.get(driver)?.starts.clear();
}

const pad = (n: number) => String(n).padStart(2, "0");

function partitionName(from: number, span: number): string {
  const d = new Date(from);
  const day = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  return span % DAY_MS === 0 ? `events_p${day}` : `events_p${day}_${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
}

/**
 * Makes sure the partitions holding these minutes (minuteOf) exist. Cheap when they do: set lookups, no statement.
 * Each missing one is created in its own transaction, whose advisory lock serialises writers meeting it at once.
 */
export async function ensureEventPartitions(driver: SqlDriver, minutes: Iterable<number>): Promise<void> {
  const k = await knownFor(driver);
  const missing = new Set<number>();
  for (const minute of minutes) {
    const from = Math.floor((minute * MINUTE_MS) / k.span) * k.span;
    if (!k.starts.has(from)) missing.add(from);
  }
  for (const from of [...missing].sort((a, b) => a - b)) {
    await driver.query(`SELECT "dupscope_event_partition"($1, $2::bigint, $3::bigint)`, [partitionName(from, k.span), from, from + k.span]);
    k.starts.add(from);
  }
}

/** `FOR VALUES FROM ('1764547200000') TO ('1764633600000')`, as pg_get_expr prints a partition's bounds. */
const BOUNDS = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/;

/** The partitions that exist now, oldest first. */
export async function eventPartitions(driver: SqlSession): Promise<EventPartition[]> {
  const rows = await driver.query<{ name: string; bounds: string; pending: boolean }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bounds, i.inhdetachpending AS pending
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
  );
  return rows
    .flatMap((r) => {
      const m = BOUNDS.exec(r.bounds);
      return m ? [{ name: r.name, detachPending: r.pending, from: Number(m[1]), to: Number(m[2]) }] : [];
    })
    .sort((a, b) => a.from - b.from);
}

/**
 * Drops the partitions that end at or before `before`. On PostgreSQL each is first detached CONCURRENTLY, which
 * waits for the reads using it without stopping anyone else; a plain DROP would lock `events` exclusively and,
 * behind one long read, queue every writer and reader. A detach that cannot get its locks within a few seconds is
 * left pending and finished by the next run. PGlite is one connection: nothing runs beside the DROP there.
 */
export async function dropEventPartitionsBefore(driver: SqlDriver, before: number): Promise<{ dropped: string[]; waiting: string[] }> {
  const expired = (await eventPartitions(driver)).filter((p) => p.to <= before);
  const dropped: string[] = [];
  const waiting: string[] = [];
  for (const partition of expired) {
    const table = `"${partition.name}"`;
    try {
      if (driver.mode === "embedded") await driver.exec(`DROP TABLE ${table}`);
      else {
        await driver.session(async (session) => {
          await session.exec(`SET lock_timeout = '5s'`);
          try {
            await session.exec(`ALTER TABLE events DETACH PARTITION ${table} ${partition.detachPending ? "FINALIZE" : "CONCURRENTLY"}`);
            await session.exec(`DROP TABLE ${table}`);
          } finally {
            await session.exec(`RESET lock_timeout`);
          }
        });
      }
      dropped.push(partition.name);
      known.get(driver)?.starts.delete(partition.from);
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      waiting.push(partition.name);
    }
  }
  return { dropped, waiting };
}

const LOCK_NOT_AVAILABLE = "55P03";
