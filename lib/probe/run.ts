import { dialectOf, type ProbeConfig } from "../../collectors/business-probe/config.ts";
import { missingColumns, rowToEvent } from "../../collectors/business-probe/rows.ts";
import { checkProbeSql, type SqlDialect } from "../../collectors/business-probe/sql.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { openProbeDatabase, ProbeTimeoutError, type ProbeDatabase } from "./database.ts";
import { RateLimiter } from "./rate-limit.ts";

/**
 * `dupscope probe`: for each probe and key, one read-only query against the application's database, its rows turned
 * into business_effect events (collectors/business-probe/rows.ts) and handed to `emit`, which stores or prints
 * them. Everything that can be checked before connecting is checked first, for every probe: the database variable
 * is set and names a MySQL, MariaDB or PostgreSQL URL, and the query is a single SELECT using :bizKey.
 */

export interface PreparedProbe {
  probe: ProbeConfig;
  url: string;
  dialect: SqlDialect;
  sql: string;
  params: number;
}

export class ProbeSetupError extends Error {}

/** Resolves each probe's database from `env` and checks its query; throws ProbeSetupError naming every problem. */
export function prepareProbes(probes: readonly ProbeConfig[], env: Readonly<Record<string, string | undefined>>): PreparedProbe[] {
  const problems: string[] = [];
  const prepared: PreparedProbe[] = [];
  for (const probe of probes) {
    const url = env[probe.databaseUrlEnv]?.trim();
    if (!url) {
      problems.push(`probe ${probe.name}: the environment variable ${probe.databaseUrlEnv} is not set (it holds the database URL)`);
      continue;
    }
    const dialect = dialectOf(url);
    if (dialect === null) {
      problems.push(`probe ${probe.name}: ${probe.databaseUrlEnv} must hold a mysql://, mariadb:// or postgres:// URL`);
      continue;
    }
    const check = checkProbeSql(probe.sql, dialect);
    if (!check.ok) {
      problems.push(`probe ${probe.name}: sql refused: ${check.reason}`);
      continue;
    }
    prepared.push({ probe, url, dialect, sql: check.sql, params: check.params });
  }
  if (problems.length > 0) throw new ProbeSetupError(problems.join("; "));
  return prepared;
}

export interface ProbeSummary {
  probe: string;
  /** The database's product and version, e.g. `mariadb 10.11.19`; null when it could not be reached. */
  server: string | null;
  keys: number;
  queries: number;
  rows: number;
  events: number;
  keysWithRows: number;
  /** Keys with more rows than maxRows: only the first maxRows became events. */
  truncated: string[];
  /** Keys whose query failed (timeout, refused by the database), and why. */
  failed: { bizKey: string; reason: string }[];
  /** Rows that could not become an event (a NULL time, a key column that is no plain value). */
  rowIssues: { bizKey: string; reason: string }[];
  /** The probe stopped: it could not connect, or its first query failed the same way every key would. */
  aborted: string | null;
}

export interface ProbeRunOptions {
  /** Keys to look up, per probe. */
  keysFor: (probe: ProbeConfig) => readonly string[];
  emit: (events: NormalizedEvent[]) => Promise<void>;
  log: (line: string) => void;
  open?: (url: string, dialect: SqlDialect, options: { utcOffset: string }) => Promise<ProbeDatabase>;
  /**
   * The rate limiters per database URL, kept by a caller that runs probes again and again (the server's job,
   * lib/probe/job.ts) so the spacing holds across runs too; filled here when a URL has none yet.
   */
  limiters?: Map<string, RateLimiter>;
  /** Clock and wait of the rate limiter (tests). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function runProbes(prepared: readonly PreparedProbe[], options: ProbeRunOptions): Promise<ProbeSummary[]> {
  const open = options.open ?? openProbeDatabase;
  // Probes reading one database share its budget: the lowest rate any of them allows.
  const limiters = options.limiters ?? new Map<string, RateLimiter>();
  for (const p of prepared) {
    const rate = Math.min(...prepared.filter((o) => o.url === p.url).map((o) => o.probe.maxQueriesPerSecond));
    if (!limiters.has(p.url)) limiters.set(p.url, new RateLimiter(rate, options.now, options.sleep));
  }
  const summaries: ProbeSummary[] = [];
  for (const p of prepared) {
    const keys = [...new Set(options.keysFor(p.probe))];
    const summary: ProbeSummary = { probe: p.probe.name, server: null, keys: keys.length, queries: 0, rows: 0, events: 0, keysWithRows: 0, truncated: [], failed: [], rowIssues: [], aborted: null };
    summaries.push(summary);
    if (keys.length === 0) continue;
    let db: ProbeDatabase;
    try {
      db = await open(p.url, p.dialect, { utcOffset: p.probe.utcOffset });
    } catch (error) {
      summary.aborted = `cannot connect through ${p.probe.databaseUrlEnv}: ${messageOf(error)}`;
      options.log(`probe ${p.probe.name}: ${summary.aborted}`);
      continue;
    }
    summary.server = db.server;
    try {
      for (const bizKey of keys) {
        await limiters.get(p.url)!.take();
        summary.queries++;
        let answer;
        try {
          answer = await db.query({ sql: p.sql, params: p.params, bizKey, maxRows: p.probe.maxRows, timeoutMs: p.probe.timeoutMs });
        } catch (error) {
          summary.failed.push({ bizKey, reason: messageOf(error) });
          // A query the database refuses (no such table, no grant) fails for every key alike: say so once and stop.
          if (!(error instanceof ProbeTimeoutError) && summary.queries === 1) {
            summary.aborted = `the first query failed: ${messageOf(error)}`;
            options.log(`probe ${p.probe.name}: ${summary.aborted}`);
            break;
          }
          continue;
        }
        summary.rows += answer.rows.length;
        if (answer.truncated) summary.truncated.push(bizKey);
        if (answer.rows.length === 0) continue;
        const missing = missingColumns(p.probe, Object.keys(answer.rows[0]!));
        if (missing !== null) {
          summary.aborted = missing;
          options.log(`probe ${p.probe.name}: ${missing}`);
          break;
        }
        const events: NormalizedEvent[] = [];
        for (const row of answer.rows) {
          const result = rowToEvent(p.probe, bizKey, row);
          if (result.ok) events.push(result.event);
          else summary.rowIssues.push({ bizKey, reason: result.reason });
        }
        if (events.length > 0) {
          summary.keysWithRows++;
          summary.events += events.length;
          await options.emit(events);
        }
      }
    } finally {
      await db.close().catch(() => {});
    }
  }
  return summaries;
}
