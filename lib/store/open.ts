import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../generated/prisma/client.ts";
import { describeLocation, type StoreConfig } from "./config.ts";
import { acquireDataDirLock } from "./data-dir-lock.ts";
import { openPgPools, pgDriver, pgliteDriver, type SqlDriver } from "./driver.ts";
import { applyMigrations, loadMigrations, type Migration, type MigrationState } from "./migrations.ts";

export interface Store {
  readonly config: StoreConfig;
  readonly location: string;
  readonly prisma: PrismaClient;
  /** Raw SQL for what the ORM is too slow or too narrow for: migrations and bulk writes. */
  readonly driver: SqlDriver;
  readonly migrations: Migration[];
  close(): Promise<void>;
}

export interface OpenOptions {
  migrationsDir?: string;
  /** Apply pending migrations on open (the default; the server always does). */
  migrate?: boolean;
  log?: (message: string) => void;
}

async function connect(config: StoreConfig): Promise<{ driver: SqlDriver; prisma: PrismaClient }> {
  if (config.mode === "postgres") {
    // A request waits at most 10 s for a free connection; then it fails, and ingest answers 503 with Retry-After
    // (lib/api/errors.ts) instead of piling up behind an exhausted pool.
    const pools = openPgPools(config.url, { max: 10, preparedMax: 4, connectionTimeoutMillis: 10_000 });
    return { driver: pgDriver(pools), prisma: new PrismaClient({ adapter: new PrismaPg(pools.pool) }) };
  }
  mkdirSync(path.dirname(config.dataDir), { recursive: true });
  const release = acquireDataDirLock(config.dataDir);
  try {
    const db = await PGlite.create(config.dataDir);
    return { driver: pgliteDriver(db, release), prisma: new PrismaClient({ adapter: new PrismaPGlite(db) }) };
  } catch (error) {
    release();
    throw error;
  }
}

export async function openStore(config: StoreConfig, options: OpenOptions = {}): Promise<Store & { migrationState?: MigrationState }> {
  const migrations = loadMigrations(options.migrationsDir);
  const { driver, prisma } = await connect(config);
  let migrationState: MigrationState | undefined;
  try {
    if (options.migrate !== false) migrationState = await applyMigrations(driver, migrations, options.log);
  } catch (error) {
    await prisma.$disconnect().catch(() => {});
    await driver.close().catch(() => {});
    throw error;
  }
  return {
    config,
    location: describeLocation(config),
    prisma,
    driver,
    migrations,
    migrationState,
    async close() {
      await prisma.$disconnect();
      await driver.close();
    },
  };
}
