import { openPgPools, pgDriver, type SqlDriver } from "./driver.ts";
import { applyMigrations, loadMigrations } from "./migrations.ts";

/**
 * A PostgreSQL connection for writers that need no ORM (the CLI's `--database` path): the pool, migrated, without
 * loading Prisma's client, which costs ~60 MB of memory and a second of start-up per CLI run.
 */
export async function openPgWriter(url: string, options: { log?: (message: string) => void } = {}): Promise<SqlDriver> {
  const migrations = loadMigrations();
  const driver = pgDriver(openPgPools(url, { max: 4, preparedMax: 2 }));
  try {
    await applyMigrations(driver, migrations, options.log);
  } catch (error) {
    await driver.close().catch(() => {});
    throw error;
  }
  return driver;
}
