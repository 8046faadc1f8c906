import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** One connection's worth of SQL: what the migration runner and the bulk writer need, on either backend. */
export interface SqlSession {
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs one statement and returns how many rows it affected. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** `COPY … FROM STDIN` with text-format rows; only PostgreSQL has it (PGlite sessions leave it undefined). */
  copyIn?(sql: string, rows: Iterable<string>): Promise<void>;
}

export interface SqlDriver extends SqlSession {
  readonly mode: "postgres" | "embedded";
  /** Runs `fn` on one dedicated connection (advisory locks need that on PostgreSQL). */
  session<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a transaction: committed when it returns, rolled back when it throws. On PGlite, whose one
   * connection every caller shares, nothing else runs meanwhile; a BEGIN sent through `session` would instead take
   * in whatever statements other callers send until its COMMIT.
   */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function pgSession(client: pg.Pool | pg.PoolClient): SqlSession {
  return {
    async exec(sql) {
      await client.query(sql);
    },
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await client.query(sql, params);
      return result.rows as Row[];
    },
    async run(sql, params = []) {
      return (await client.query(sql, params)).rowCount ?? 0;
    },
    ...("release" in client
      ? {
          async copyIn(sql: string, rows: Iterable<string>) {
            await pipeline(Readable.from(rows), client.query(copyFrom(sql)));
          },
        }
      : {}),
  };
}

/**
 * Session settings for every connection dupscope opens to PostgreSQL. JIT off: dupscope's reads are short index
 * lookups, but over a partitioned `events` the planner adds up every partition's estimate, crosses
 * jit_above_cost, and compiles: on a 10M-event store with 22 day partitions a key lookup spent ~150 ms of its
 * ~160 ms in JIT compilation, and 10 ms without it (docs/performance.md).
 */
export const PG_SESSION_OPTIONS = "-c jit=off";

export function pgDriver(pool: pg.Pool): SqlDriver {
  return {
    mode: "postgres",
    ...pgSession(pool),
    async session(fn) {
      const client = await pool.connect();
      // A checked-out client whose server ends it (a restart, pg_terminate_backend) emits 'error'; unheard, that
      // would kill the process. The session's next query fails instead, and the pool drops the client below.
      const ignore = () => {};
      client.on("error", ignore);
      let failed: Error | undefined;
      try {
        return await fn(pgSession(client));
      } catch (error) {
        // A session that failed may have lost its connection or left a transaction open: the pool drops it.
        failed = error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        client.off("error", ignore);
        client.release(failed);
      }
    },
    async transaction(fn) {
      return this.session(async (session) => {
        await session.exec("BEGIN");
        try {
          const result = await fn(session);
          await session.exec("COMMIT");
          return result;
        } catch (error) {
          await session.exec("ROLLBACK").catch(() => {});
          throw error;
        }
      });
    },
    close: () => pool.end(),
  };
}

export function pgliteDriver(db: PGlite, onClose: () => void): SqlDriver {
  const session: SqlSession = {
    async exec(sql) {
      await db.exec(sql);
    },
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await db.query<Row>(sql, params);
      return result.rows;
    },
    async run(sql, params = []) {
      return (await db.query(sql, params)).affectedRows ?? 0;
    },
  };
  return {
    mode: "embedded",
    ...session,
    // PGlite is a single connection already.
    session: (fn) => fn(session),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          async exec(sql) {
            await tx.exec(sql);
          },
          async query<Row>(sql: string, params: unknown[] = []) {
            return (await tx.query<Row>(sql, params)).rows;
          },
          async run(sql, params = []) {
            return (await tx.query(sql, params)).affectedRows ?? 0;
          },
        }),
      ),
    async close() {
      await db.close();
      onClose();
    },
  };
}
