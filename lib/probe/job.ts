import { readFileSync } from "node:fs";
import { parseProbeConfig, type ProbeConfig } from "../../collectors/business-probe/config.ts";
import { logger } from "../log.ts";
import { runEvery, type PeriodicHandle } from "../periodic.ts";
import type { SqlDriver } from "../store/driver.ts";
import { insertEvents } from "../store/events-repo.ts";
import { prepareProbes, runProbes, type PreparedProbe, type ProbeRunOptions, type ProbeSummary } from "./run.ts";
import type { RateLimiter } from "./rate-limit.ts";

/**
 * The server's probe job (docs/probe.md#server): when DUPSCOPE_PROBES_FILE names a probes file, the leading server
 * (lib/store/leadership.ts) looks up, every DUPSCOPE_PROBE_INTERVAL_MS, the keys whose stored duplicates are still
 * of unknown outcome in each probe's business table, and stores the rows as business_effect events in its own
 * store. Their trigger queues the keys, and the diagnosis worker settles the verdicts.
 *
 * Each probed key is remembered in probe_runs with a fingerprint of its duplicates (verdict ids and delivery
 * times, not outcomes), so a key is probed once per set of duplicates: again only when a new duplicate appears.
 * The events alone could not say so: a probe that finds no row stores none, and the re-diagnosis a probe's rows
 * cause makes every verdict newer than them.
 */

export const DEFAULT_PROBE_INTERVAL_MS = 30_000;
/** Keys per probe and run at most, whatever the rate allows. */
export const MAX_KEYS_PER_RUN = 1000;

export class ProbeJobConfigError extends Error {}

export interface ProbeJobSettings {
  file: string;
  intervalMs: number;
}

/** null when DUPSCOPE_PROBES_FILE is unset; throws ProbeJobConfigError for a bad interval. */
export function probeJobSettings(env: Readonly<Record<string, string | undefined>> = process.env): ProbeJobSettings | null {
  const file = env.DUPSCOPE_PROBES_FILE?.trim();
  if (!file) return null;
  const raw = env.DUPSCOPE_PROBE_INTERVAL_MS?.trim();
  if (!raw) return { file, intervalMs: DEFAULT_PROBE_INTERVAL_MS };
  const intervalMs = Number(raw);
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 0) throw new ProbeJobConfigError(`DUPSCOPE_PROBE_INTERVAL_MS must be a whole number of ms (0 disables), got "${raw}"`);
  return { file, intervalMs };
}

/** Reads and checks the probes file and their database variables; throws ProbeJobConfigError naming every problem. */
export function loadProbeJob(file: string, env: Readonly<Record<string, string | undefined>> = process.env): PreparedProbe[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ProbeJobConfigError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return prepareProbes(parseProbeConfig(text, file), env);
  } catch (error) {
    throw new ProbeJobConfigError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * How many keys one run may probe: as many as the probe's rate allows in one interval, so a run ends before the
 * next is due, between 1 and MAX_KEYS_PER_RUN.
 */
export function keysPerRun(probe: Pick<ProbeConfig, "maxQueriesPerSecond">, intervalMs: number): number {
  return Math.max(1, Math.min(MAX_KEYS_PER_RUN, Math.floor((probe.maxQueriesPerSecond * intervalMs) / 1000)));
}

export interface KeyToProbe {
  bizKey: string;
  verdictSet: string;
}

/**
 * Keys with a stored duplicate of unknown outcome in the probe's group and topic whose duplicates this probe has not
 * looked up yet (no probe_runs row, or one for another set of duplicates), newest duplicate first.
 */
export async function keysToProbe(driver: SqlDriver, probe: Pick<ProbeConfig, "name" | "match">, limit: number): Promise<KeyToProbe[]> {
  const rows = await driver.query<{ biz_key: string; verdict_set: string }>(
    `WITH matching AS (
       SELECT biz_key, id, first_ts, second_ts, outcome FROM verdicts
        WHERE ($1::text IS NULL OR group_name = $1::text) AND ($2::text IS NULL OR topic = $2::text)
     ), keyed AS (
       SELECT biz_key, md5(string_agg(id || ':' || first_ts || ':' || second_ts, ',' ORDER BY id)) AS verdict_set, max(second_ts) AS latest
         FROM matching
        WHERE biz_key IN (SELECT biz_key FROM matching WHERE outcome = 'unknown')
        GROUP BY biz_key
     )
     SELECT k.biz_key, k.verdict_set FROM keyed k
       LEFT JOIN probe_runs r ON r.probe = $3 AND r.biz_key = k.biz_key
      WHERE r.verdict_set IS DISTINCT FROM k.verdict_set
      ORDER BY k.latest DESC, k.biz_key
      LIMIT $4`,
    [probe.match.group, probe.match.topic, probe.name, limit],
  );
  return rows.map((r) => ({ bizKey: r.biz_key, verdictSet: r.verdict_set }));
}

export async function recordProbeRuns(driver: SqlDriver, probe: string, keys: readonly KeyToProbe[]): Promise<void> {
  if (keys.length === 0) return;
  await driver.run(
    `INSERT INTO probe_runs (probe, biz_key, verdict_set, probed_at)
     SELECT $1, k, v, now() FROM unnest($2::text[], $3::text[]) AS u(k, v)
     ON CONFLICT (probe, biz_key) DO UPDATE SET verdict_set = EXCLUDED.verdict_set, probed_at = now()`,
    [probe, keys.map((k) => k.bizKey), keys.map((k) => k.verdictSet)],
  );
}

export interface ProbeRunReport {
  summaries: ProbeSummary[];
  stored: { accepted: number; duplicates: number; rejected: number };
}

/**
 * One run: picks each probe's keys, queries them, stores the rows and remembers the keys whose query answered.
 * A key whose query failed (a timeout) or that a stopped probe never reached is tried again next run.
 */
export async function runProbeJobOnce(
  driver: SqlDriver,
  prepared: readonly PreparedProbe[],
  options: { intervalMs: number; limiters?: Map<string, RateLimiter>; log?: (line: string) => void; open?: ProbeRunOptions["open"] },
): Promise<ProbeRunReport> {
  const picked = new Map<string, KeyToProbe[]>();
  for (const p of prepared) picked.set(p.probe.name, await keysToProbe(driver, p.probe, keysPerRun(p.probe, options.intervalMs)));
  const stored = { accepted: 0, duplicates: 0, rejected: 0 };
  const summaries = await runProbes(prepared, {
    keysFor: (probe) => picked.get(probe.name)!.map((k) => k.bizKey),
    emit: async (events) => {
      const result = await insertEvents(driver, events);
      stored.accepted += result.accepted;
      stored.duplicates += result.duplicates;
      stored.rejected += result.rejected.length;
    },
    log: options.log ?? (() => {}),
    ...(options.limiters ? { limiters: options.limiters } : {}),
    ...(options.open ? { open: options.open } : {}),
  });
  for (const s of summaries) {
    if (s.aborted !== null) continue;
    const failed = new Set(s.failed.map((f) => f.bizKey));
    await recordProbeRuns(driver, s.probe, picked.get(s.probe)!.filter((k) => !failed.has(k.bizKey)));
  }
  return { summaries, stored };
}

export type ProbeJobHandle = PeriodicHandle;

/** Starts the loop; call only in the leader. Errors are logged and the next run tries again. */
export function startProbeJob(driver: SqlDriver, prepared: readonly PreparedProbe[], intervalMs: number): ProbeJobHandle {
  const log = logger.child({ component: "probe" });
  // Kept across runs: a database sees at most its probes' rate, however runs follow each other.
  const limiters = new Map<string, RateLimiter>();
  const tick = async () => {
    const started = Date.now();
    try {
      const { summaries, stored } = await runProbeJobOnce(driver, prepared, { intervalMs, limiters, log: (line) => log.warn(line) });
      for (const s of summaries) {
        if (s.keys === 0) continue;
        const fields = { probe: s.probe, server: s.server, keys: s.keys, queries: s.queries, rows: s.rows, events: s.events, keysWithRows: s.keysWithRows };
        if (s.aborted !== null) log.error({ ...fields, reason: s.aborted }, "probe stopped; its keys are tried again next run");
        else log.info({ ...fields, failed: s.failed.length, truncated: s.truncated.length, rowsSkipped: s.rowIssues.length }, "probed keys");
        for (const f of s.failed.slice(0, 5)) log.warn({ probe: s.probe, bizKey: f.bizKey, reason: f.reason }, "probe query failed; tried again next run");
        for (const r of s.rowIssues.slice(0, 5)) log.warn({ probe: s.probe, bizKey: r.bizKey, reason: r.reason }, "probe row skipped");
      }
      if (stored.accepted + stored.duplicates + stored.rejected > 0) log.info({ ...stored, ms: Date.now() - started }, "stored probe events");
      if (stored.rejected > 0) log.error({ rejected: stored.rejected }, "the store rejected probe events");
    } catch (error) {
      log.error({ err: error }, "probe run failed; will retry");
    }
  };
  log.info({ probes: prepared.map((p) => p.probe.name), intervalMs }, "probe job started");
  return runEvery(intervalMs, tick);
}

/**
 * Reads DUPSCOPE_PROBES_FILE and DUPSCOPE_PROBE_INTERVAL_MS at start-up. A bad configuration is logged loudly and
 * disables the job (null) rather than stopping the server: the dashboard works without it.
 */
export function probeJobAtStartup(env: Readonly<Record<string, string | undefined>> = process.env): { prepared: PreparedProbe[]; intervalMs: number } | null {
  const log = logger.child({ component: "probe" });
  try {
    const settings = probeJobSettings(env);
    if (settings === null) return null;
    if (settings.intervalMs === 0) {
      log.info("DUPSCOPE_PROBE_INTERVAL_MS is 0: the probe job is off");
      return null;
    }
    return { prepared: loadProbeJob(settings.file, env), intervalMs: settings.intervalMs };
  } catch (error) {
    log.error({ err: error }, `the probe job is DISABLED: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}
