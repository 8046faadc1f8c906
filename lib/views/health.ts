import { describeLocation, storeConfigFromEnv } from "../store/config.ts";
import { migrationState, type MigrationState } from "../store/migrations.ts";
import type { Store } from "../store/open.ts";

export type Health =
  | { status: "ok" | "degraded"; database: { mode: string; location: string }; migrations: { current: boolean } & MigrationState }
  | { status: "unavailable"; database: { mode: string; location: string; error: string } };

/** GET /api/health: the store answers and its schema is the one this build expects (no pending, edited or failed migration). */
export async function storeHealth(store: Store): Promise<Health> {
  const migrations = await migrationState(store.driver, store.migrations);
  const current = migrations.pending.length === 0 && migrations.modified.length === 0 && migrations.failed.length === 0;
  return { status: current ? "ok" : "degraded", database: { mode: store.config.mode, location: store.location }, migrations: { current, ...migrations } };
}

/** The store could not be opened: where it was looked for, and why it failed. */
export function unavailable(error: unknown): Health {
  const config = storeConfigFromEnv();
  return { status: "unavailable", database: { mode: config.mode, location: describeLocation(config), error: error instanceof Error ? error.message : String(error) } };
}
