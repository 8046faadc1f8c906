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
  const rows = await driver.query<{ name: string; bounds: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bounds
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
  );
  return rows
    .flatMap((r) => {
      const m = BOUNDS.exec(r.bounds);
      return m ? [{ name: r.name, from: Number(m[1]), to: Number(m[2]) }] : [];
    })
    .sort((a, b) => a.from - b.from);
}

/**
 * Drops the partitions that end at or before `before`. DROP takes an exclusive lock on `events`; behind a long read
 * it would queue every writer, so it gives up after a few seconds and the next run tries again.
 */
export async function dropEventPartitionsBefore(driver: SqlDriver, before: number): Promise<{ dropped: string[]; waiting: string[] }> {
  const expired = (await eventPartitions(driver)).filter((p) => p.to <= before);
  const dropped: string[] = [];
  const waiting: string[] = [];
  for (const partition of expired) {
    try {
      await driver.transaction(async (tx) => {
        await tx.exec(`SET LOCAL lock_timeout = '5s'`);
        await tx.exec(`DROP TABLE "${partition.name}"`);
      });
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
