/**
 * Whether an error is a database unique-key violation, by the codes the common Node drivers put on it:
 *
 *   PostgreSQL (pg, postgres.js, PGlite)     code "23505" (unique_violation)
 *   MySQL / MariaDB (mysql2, mariadb)        code "ER_DUP_ENTRY", errno 1062 (1586: ER_DUP_ENTRY_WITH_KEY_NAME)
 *   SQLite (better-sqlite3, node:sqlite)     code "SQLITE_CONSTRAINT_UNIQUE" / "SQLITE_CONSTRAINT_PRIMARYKEY",
 *                                            errcode 2067 / 1555
 *   Prisma                                   code "P2002" (unique constraint failed)
 *
 * ORMs wrap the driver's error (TypeORM `driverError`, Sequelize `original` / `parent`, Drizzle and others
 * `cause`): those are followed a few levels down.
 */

const CODES: ReadonlySet<unknown> = new Set(["23505", "ER_DUP_ENTRY", "ER_DUP_ENTRY_WITH_KEY_NAME", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY", "P2002"]);
const ERRNOS: ReadonlySet<unknown> = new Set([1062, 1586]);
const SQLITE_ERRCODES: ReadonlySet<unknown> = new Set([2067, 1555]);
const WRAPPED = ["cause", "driverError", "original", "parent"] as const;
const MAX_DEPTH = 4;

interface ErrorFields {
  code?: unknown;
  errno?: unknown;
  errcode?: unknown;
  cause?: unknown;
  driverError?: unknown;
  original?: unknown;
  parent?: unknown;
}

export function isUniqueViolation(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > MAX_DEPTH) return false;
  const e = error as ErrorFields;
  if (CODES.has(e.code) || ERRNOS.has(e.errno) || SQLITE_ERRCODES.has(e.errcode)) return true;
  return WRAPPED.some((field) => e[field] !== error && isUniqueViolation(e[field], depth + 1));
}
