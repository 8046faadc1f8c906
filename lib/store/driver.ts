import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** One connection's worth of SQL: what the migration runner and the bulk writer need, on either backend. */
export interface SqlSession {
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs one statement and returns how many rows it affected. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** `COPY … FROM STDIN` with text-format rows; only PostgreSQL has it (PGlite sessions leave it undefined). */
  copyIn?(sql: string, rows: Iterable<string | Buffer>): Promise<void>;
}

/** A statement run often with other values: prepared once per connection, then only executed (SqlDriver.prepared). */
export interface PreparedStatement {
  /** Unique among the process's prepared statements: a connection knows each by this name. */
  readonly name: string;
  readonly text: string;
}

export interface SqlDriver extends SqlSession {
  readonly mode: "postgres" | "embedded";
  /**
   * Runs a prepared statement. On PostgreSQL it runs on connections kept for prepared statements, which plan each
   * one once with a generic plan and reuse it; the embedded store runs it as any query.
   */
  prepared<Row = Record<string, unknown>>(statement: PreparedStatement, params: unknown[]): Promise<Row[]>;
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
          async copyIn(sql: string, rows: Iterable<string | Buffer>) {
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
 * ~160 ms in JIT compilation, and 10 ms without it (docs/performance-log.md#production-volume-partitions-journal-soak).
 */
const PG_SESSION_OPTIONS = "-c jit=off";

/**
 * The connections for prepared statements plan every statement generically, once. A key's statements name no time,
 * so the planner cannot prune partitions and plans each one for every partition: on the 10M-event store (25 day
 * partitions, 7 indexes each) that took 3–8 ms per statement and ran in 0.2–2 ms. A generic plan is made once per
 * connection and prunes partitions when it runs. The other connections keep custom plans, which prune partitions
 * by the values of a time range when they are planned (docs/performance-log.md#production-volume-partitions-journal-soak).
 */
const PG_PREPARED_SESSION_OPTIONS = `${PG_SESSION_OPTIONS} -c plan_cache_mode=force_generic_plan`;

export interface PgPools {
  /** Every query, session and transaction. */
  pool: pg.Pool;
  /** Prepared statements only: its sessions force generic plans. */
  prepared: pg.Pool;
}

/**
 * The two pools a PostgreSQL driver uses. The prepared pool's connections stay open when idle: each holds its
 * plans, and a new one spends ~25 ms loading the partitions' catalog entries and planning again.
 */
export function openPgPools(url: string, options: { max: number; preparedMax: number; connectionTimeoutMillis?: number }): PgPools {
  const common = { connectionString: url, connectionTimeoutMillis: options.connectionTimeoutMillis };
  const pools = {
    pool: new pg.Pool({ ...common, max: options.max, options: PG_SESSION_OPTIONS }),
    prepared: new pg.Pool({ ...common, max: options.preparedMax, idleTimeoutMillis: 0, options: PG_PREPARED_SESSION_OPTIONS }),
  };
  // An idle client that loses its server emits 'error'; unhandled, that would kill the process.
  pools.pool.on("error", () => {});
  pools.prepared.on("error", () => {});
  return pools;
}

export function pgDriver({ pool, prepared }: PgPools): SqlDriver {
  return {
    mode: "postgres",
    ...pgSession(pool),
    async prepared<Row>(statement: PreparedStatement, params: unknown[]) {
      const result = await prepared.query({ name: statement.name, text: statement.text, values: params });
      return result.rows as Row[];
    },
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
    async close() {
      await Promise.all([pool.end(), prepared.end()]);
    },
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
    prepared: (statement, params) => session.query(statement.text, params),
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
