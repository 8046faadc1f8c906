import mysql from "mysql2/promise";
import pg from "pg";
import type { SqlDialect } from "../../collectors/business-probe/sql.ts";

/**
 * Connections to the application's own database for `dupscope probe`: MySQL/MariaDB through mysql2, PostgreSQL
 * through pg. Every query runs in a read-only transaction that is rolled back, under a statement timeout the
 * database enforces, with its rows capped by the database (`LIMIT maxRows + 1` around the query), the key bound as
 * a parameter on the server. The query text has been checked by collectors/business-probe/sql.ts before.
 *
 * Times come back as the database prints them, never converted through this process's time zone: mysql2 with
 * `dateStrings`, the session's `time_zone` set to the probe's UTC offset (so TIMESTAMP and DATETIME columns read
 * alike); pg with text parsers for date, timestamp and timestamptz.
 */

export interface ProbeQuery {
  /** The checked text, placeholders already in the driver's form (`?` or `$1`). */
  sql: string;
  /** How many `?` the text has (mysql2 binds one value each). */
  params: number;
  bizKey: string;
  maxRows: number;
  timeoutMs: number;
}

export interface ProbeAnswer {
  rows: Record<string, unknown>[];
  /** The query had more than maxRows rows; `rows` holds the first maxRows. */
  truncated: boolean;
}

export interface ProbeDatabase {
  readonly dialect: SqlDialect;
  /** `mariadb 10.11.19`, `mysql 8.4.3`, `postgres 16.4`. */
  readonly server: string;
  query(q: ProbeQuery): Promise<ProbeAnswer>;
  close(): Promise<void>;
}

/** The database cancelled the query at its statement timeout. */
export class ProbeTimeoutError extends Error {}

/** `LIMIT n + 1` from outside: the database stops after the cap. The newline ends a trailing `--` comment. */
function capped(sql: string, maxRows: number): string {
  return `SELECT * FROM (\n${sql}\n) AS dupscope_probe LIMIT ${Math.floor(maxRows) + 1}`;
}

function answer(rows: Record<string, unknown>[], maxRows: number): ProbeAnswer {
  return rows.length > maxRows ? { rows: rows.slice(0, maxRows), truncated: true } : { rows, truncated: false };
}

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
}

export async function openProbeDatabase(url: string, dialect: SqlDialect, options: { utcOffset: string }): Promise<ProbeDatabase> {
  return dialect === "mysql" ? openMysql(url, options.utcOffset) : openPostgres(url);
}

/** MariaDB error 1969 and MySQL error 3024: the statement ran past max_statement_time / max_execution_time. */
const MYSQL_TIMEOUTS = new Set([1969, 3024]);

async function openMysql(url: string, utcOffset: string): Promise<ProbeDatabase> {
  const parsed = new URL(url);
  parsed.protocol = "mysql:";
  const conn = await mysql.createConnection({
    uri: parsed.toString(),
    dateStrings: true,
    supportBigNumbers: true,
    // BIGINT as a number when it fits one exactly, as text beyond.
    bigNumberStrings: false,
    multipleStatements: false,
    connectTimeout: 10_000,
  });
  try {
    const [rows] = await conn.query<mysql.RowDataPacket[]>("SELECT VERSION() AS version");
    const version = String(rows[0]?.version ?? "");
    const mariadb = /mariadb/i.test(version);
    await conn.query("SET SESSION time_zone = ?", [utcOffset === "Z" || utcOffset === "z" ? "+00:00" : utcOffset]);
    let timeoutMs = -1;
    return {
      dialect: "mysql",
      server: `${mariadb ? "mariadb" : "mysql"} ${version.split("-")[0]}`,
      async query(q) {
        if (q.timeoutMs !== timeoutMs) {
          // MariaDB: max_statement_time, in seconds, for every statement. MySQL: max_execution_time, in ms, for
          // read-only SELECTs (what a probe is); MariaDB has no max_execution_time.
          if (mariadb) await conn.query("SET SESSION max_statement_time = ?", [q.timeoutMs / 1000]);
          else await conn.query("SET SESSION max_execution_time = ?", [Math.ceil(q.timeoutMs)]);
          timeoutMs = q.timeoutMs;
        }
        await conn.query("START TRANSACTION READ ONLY");
        try {
          // execute: a server-side prepared statement, so the key is never spliced into the text.
          const [rows] = await conn.execute<mysql.RowDataPacket[]>(capped(q.sql, q.maxRows), Array.from({ length: q.params }, () => q.bizKey));
          return answer(rows as Record<string, unknown>[], q.maxRows);
        } catch (error) {
          const errno = (error as { errno?: number }).errno;
          if (errno !== undefined && MYSQL_TIMEOUTS.has(errno)) throw new ProbeTimeoutError(`the query ran past its ${q.timeoutMs} ms timeout and was cancelled`);
          throw error;
        } finally {
          // A connection that broke mid-query fails the next query too; the first error is the one to report.
          await conn.query("ROLLBACK").catch(() => {});
        }
      },
      close: () => conn.end(),
    };
  } catch (error) {
    await conn.end().catch(() => {});
    throw error;
  }
}

/** date, timestamp, timestamptz: the text the server sends. */
const TEXT_TIMES = new Set([1082, 1114, 1184]);
const INT8 = 20;

/** bigint as a number when it fits one exactly, as text beyond (what mysql2 does with supportBigNumbers). */
const int8 = (text: string): number | string => (Number.isSafeInteger(Number(text)) ? Number(text) : text);

async function openPostgres(url: string): Promise<ProbeDatabase> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        TEXT_TIMES.has(oid) ? (v: string) => v : oid === INT8 ? int8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A server that goes away emits 'error' on an idle client; unhandled, that would end the process.
  client.on("error", () => {});
  await client.connect();
  try {
    const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "";
    return {
      dialect: "postgres",
      server: `postgres ${version.split(" ")[0]}`,
      async query(q) {
        await client.query("BEGIN READ ONLY");
        try {
          await client.query(`SET LOCAL statement_timeout = ${Math.ceil(q.timeoutMs)}`);
          await client.query(`SET LOCAL lock_timeout = ${Math.ceil(q.timeoutMs)}`);
          const result = await client.query(capped(q.sql, q.maxRows), [q.bizKey]);
          return answer(result.rows as Record<string, unknown>[], q.maxRows);
        } catch (error) {
          if ((error as { code?: string }).code === "57014") throw new ProbeTimeoutError(`the query ran past its ${q.timeoutMs} ms timeout and was cancelled`);
          throw error;
        } finally {
          await client.query("ROLLBACK").catch(() => {});
        }
      },
      close: () => client.end(),
    };
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
}
