import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SqlDriver, SqlSession } from "./driver.ts";

/**
 * Applies the SQL migrations in prisma/migrations through our own driver, because Prisma 7's `migrate deploy`
 * needs a native engine that cannot be downloaded on offline machines and does not reach PGlite at all.
 * It keeps Prisma's `_prisma_migrations` table with Prisma's checksums (sha256 of migration.sql), so
 * `prisma migrate status` and `prisma migrate deploy` agree with it wherever the engine exists.
 */

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationState {
  applied: string[];
  pending: string[];
  /** Applied migrations whose migration.sql changed afterwards: the database may not match the schema. */
  modified: string[];
  /** Rows in the table with no folder: applied by a newer dupscope, or a folder was deleted. */
  unknown: string[];
  failed: string[];
}

export class MigrationError extends Error {}

export const DEFAULT_MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

/** The lock id Prisma's own migrate uses, so our runner and `prisma migrate deploy` exclude each other. */
const PRISMA_ADVISORY_LOCK_ID = 72707369;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export function checksumOf(sql: string): string {
  return createHash("sha256").update(sql, "utf8").digest("hex");
}

export function loadMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  // The folder is read at run time, not bundled: the turbopackIgnore comments keep Next.js from tracing the
  // whole project into its output because of these dynamic paths.
  if (!existsSync(/* turbopackIgnore: true */ dir)) {
    throw new MigrationError(`migrations folder ${dir} does not exist (run dupscope from the project folder)`);
  }
  const sqlFile = (name: string) => path.join(dir, name, "migration.sql");
  return readdirSync(/* turbopackIgnore: true */ dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(/* turbopackIgnore: true */ sqlFile(entry.name)))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(/* turbopackIgnore: true */ sqlFile(name), "utf8");
      return { name, sql, checksum: checksumOf(sql) };
    });
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
}

async function readRows(session: SqlSession): Promise<MigrationRow[] | undefined> {
  const [exists] = await session.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  if (!exists?.present) return undefined;
  return session.query<MigrationRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
  );
}

function compare(migrations: Migration[], rows: MigrationRow[]): MigrationState {
  const live = rows.filter((r) => r.rolled_back_at === null);
  const done = new Map(live.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
  const known = new Set(migrations.map((m) => m.name));
  return {
    applied: migrations.filter((m) => done.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !done.has(m.name)).map((m) => m.name),
    modified: migrations.filter((m) => done.has(m.name) && done.get(m.name) !== m.checksum).map((m) => m.name),
    unknown: [...done.keys()].filter((name) => !known.has(name)),
    failed: live.filter((r) => r.finished_at === null).map((r) => r.migration_name),
  };
}

export async function migrationState(driver: SqlDriver, migrations: Migration[]): Promise<MigrationState> {
  return compare(migrations, (await readRows(driver)) ?? []);
}

/** Applies every pending migration, each in its own transaction, under Prisma's advisory lock. */
export async function applyMigrations(
  driver: SqlDriver,
  migrations: Migration[],
  log: (message: string) => void = () => {},
): Promise<MigrationState> {
  return driver.session(async (session) => {
    const locked = driver.mode === "postgres";
    if (locked) await session.query(`SELECT pg_advisory_lock(${PRISMA_ADVISORY_LOCK_ID})`);
    try {
      await session.exec(CREATE_TABLE);
      const before = compare(migrations, (await readRows(session)) ?? []);
      if (before.failed.length > 0) {
        throw new MigrationError(
          `migration ${before.failed.join(", ")} failed earlier and was left unfinished; fix the database, then mark it rolled back (UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '…')`,
        );
      }
      if (before.modified.length > 0) {
        throw new MigrationError(`applied migration(s) ${before.modified.join(", ")} were edited afterwards; add a new migration instead of changing an applied one`);
      }
      for (const migration of migrations.filter((m) => before.pending.includes(m.name))) {
        const id = randomUUID();
        await session.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        try {
          await session.exec(`BEGIN;\n${migration.sql}\n;COMMIT;`);
        } catch (error) {
          await session.exec("ROLLBACK").catch(() => {});
          const reason = error instanceof Error ? error.message : String(error);
          // The transaction rolled the migration back, so the row says so and the next start retries it.
          await session.query(`UPDATE "_prisma_migrations" SET logs = $2, rolled_back_at = now() WHERE id = $1`, [id, reason]);
          throw new MigrationError(`migration ${migration.name} failed: ${reason}`);
        }
        await session.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
        log(`applied migration ${migration.name}`);
      }
      return compare(migrations, (await readRows(session)) ?? []);
    } finally {
      if (locked) await session.query(`SELECT pg_advisory_unlock(${PRISMA_ADVISORY_LOCK_ID})`);
    }
  });
}
