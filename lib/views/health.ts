import { latestRetentionRuns, type RetentionRunRow } from "../queries/retention.ts";
import { describeLocation, storeConfigFromEnv } from "../store/config.ts";
import { migrationState, type MigrationState } from "../store/migrations.ts";
import type { Store } from "../store/open.ts";
import { eventPartitions } from "../store/partitions.ts";
import { retentionFromEnv } from "../store/retention-config.ts";

export interface RetentionHealth {
  /** The configured retentions, in ms. */
  eventsMs: number;
  verdictsMs: number;
  /** The day partitions of raw events that exist now. */
  partitions: { count: number; oldest: string | null; newest: string | null };
  /** The job's latest run (on whichever server led then), and its latest failure if any. */
  lastRun: RetentionRunRow | null;
  lastError: RetentionRunRow | null;
}

export type Health =
  | { status: "ok" | "degraded"; database: { mode: string; location: string }; migrations: { current: boolean } & MigrationState; retention?: RetentionHealth }
  | { status: "unavailable"; database: { mode: string; location: string; error: string } };

async function retentionHealth(store: Store): Promise<RetentionHealth> {
  const { eventsMs, verdictsMs } = retentionFromEnv();
  const partitions = await eventPartitions(store.driver);
  const { last, lastError } = await latestRetentionRuns(store.driver);
  const day = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString().slice(0, 10));
  return {
    eventsMs,
    verdictsMs,
    partitions: { count: partitions.length, oldest: day(partitions[0]?.from), newest: day(partitions.at(-1)?.from) },
    lastRun: last,
    lastError,
  };
}

/**
 * GET /api/health: the store answers and its schema is the one this build expects (no pending, edited or failed
 * migration), and what the retention job last did. A retention job whose latest run failed makes the store degraded:
 * the disk fills while it fails.
 */
export async function storeHealth(store: Store): Promise<Health> {
  const migrations = await migrationState(store.driver, store.migrations);
  const current = migrations.pending.length === 0 && migrations.modified.length === 0 && migrations.failed.length === 0;
  const retention = current ? await retentionHealth(store) : undefined;
  const failing = retention?.lastRun?.error != null;
  return {
    status: current && !failing ? "ok" : "degraded",
    database: { mode: store.config.mode, location: store.location },
    migrations: { current, ...migrations },
    ...(retention ? { retention } : {}),
  };
}

/** The store could not be opened: where it was looked for, and why it failed. */
export function unavailable(error: unknown): Health {
  const config = storeConfigFromEnv();
  return { status: "unavailable", database: { mode: config.mode, location: describeLocation(config), error: error instanceof Error ? error.message : String(error) } };
}
