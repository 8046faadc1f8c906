import { readFileSync } from "node:fs";
import { parseProbeConfig, ProbeConfigError, type ProbeConfig } from "../collectors/business-probe/config.ts";
import type { NormalizedEvent } from "../lib/events/model.ts";
import { formatDuration } from "../lib/format/duration.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { DEFAULT_RETRY, FatalSinkError, type EventSink, type RetryPolicy } from "../lib/ingest/sink.ts";
import { storeSink } from "../lib/ingest/store-sink.ts";
import { prepareProbes, ProbeSetupError, runProbes, type ProbeRunOptions, type ProbeSummary } from "../lib/probe/run.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { duplicatesPage } from "../lib/views/duplicates.ts";
import { UsageError } from "./ingest.ts";

/**
 * `dupscope probe` (docs/probe.md): reads the business table of each probe for the given keys and stores one
 * business_effect event per row, the way `dupscope ingest` stores a file's events (a running server, or PostgreSQL
 * directly), or prints them as NDJSON with --dry-run.
 */

export interface ProbeOptions {
  config: string;
  key?: string[];
  keysFromVerdicts?: boolean;
  /** With --keys-from-verdicts: verdicts with this outcome (`all` for any). */
  outcome: string;
  /** With --keys-from-verdicts: duplicates whose second consumption is at or after this time. */
  since?: string;
  maxKeys: number;
  probe?: string[];
  server: string;
  token?: string;
  database?: string;
  dryRun?: boolean;
  json?: boolean;
}

export interface ProbeReport {
  probes: ProbeSummary[];
  /** What the store did with the events (absent with --dry-run). */
  stored?: { accepted: number; duplicates: number; rejected: { reason: string }[] };
}

const OUTCOMES = ["unknown", "caught", "leaked", "all"];
const PAGE = 500;
const BATCH = 500;

function loadProbes(file: string, names: string[] | undefined): ProbeConfig[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let probes: ProbeConfig[];
  try {
    probes = parseProbeConfig(text, file);
  } catch (error) {
    throw error instanceof ProbeConfigError ? new UsageError(error.message) : error;
  }
  if (names === undefined || names.length === 0) return probes;
  const unknown = names.filter((n) => !probes.some((p) => p.name === n));
  if (unknown.length > 0) throw new UsageError(`no probe named ${unknown.join(", ")} in ${file}; it has ${probes.map((p) => p.name).join(", ")}`);
  return probes.filter((p) => names.includes(p.name));
}

function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = /^\d+$/.test(since) ? Number(since) : Date.parse(since);
  if (!Number.isFinite(ms)) throw new UsageError(`--since must be epoch milliseconds or an ISO-8601 time, got "${since}"`);
  return ms;
}

interface VerdictFilter {
  group?: string;
  topic?: string;
  outcome?: string;
  from?: number;
}

function filterOf(probe: ProbeConfig, o: ProbeOptions, from: number | undefined): VerdictFilter {
  return {
    ...(probe.match.group !== null ? { group: probe.match.group } : {}),
    ...(probe.match.topic !== null ? { topic: probe.match.topic } : {}),
    ...(o.outcome !== "all" ? { outcome: o.outcome } : {}),
    ...(from !== undefined ? { from } : {}),
  };
}

/** Business keys of stored duplicates that match each probe, newest first, at most maxKeys per probe. */
async function keysFromVerdicts(probes: ProbeConfig[], o: ProbeOptions): Promise<Map<string, string[]>> {
  const from = sinceMs(o.since);
  const keys = new Map<string, string[]>();
  const collect = async (probe: ProbeConfig, page: (cursor: string | undefined) => Promise<{ items: { bizKey: string }[]; nextCursor: string | null }>) => {
    const found = new Set<string>();
    let cursor: string | undefined;
    do {
      const answer = await page(cursor);
      for (const item of answer.items) {
        if (found.size >= o.maxKeys) break;
        found.add(item.bizKey);
      }
      cursor = answer.nextCursor ?? undefined;
    } while (cursor !== undefined && found.size < o.maxKeys);
    keys.set(probe.name, [...found]);
  };

  if (o.database) {
    let driver;
    try {
      driver = await openPgWriter(o.database);
    } catch (error) {
      throw new FatalSinkError(`cannot open ${o.database.replace(/:[^:@/]*@/, ":***@")}: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      for (const probe of probes) await collect(probe, (cursor) => duplicatesPage(driver, { ...filterOf(probe, o, from), limit: PAGE, ...(cursor ? { cursor } : {}) }));
    } finally {
      await driver.close();
    }
    return keys;
  }
  for (const probe of probes) {
    await collect(probe, async (cursor) => {
      const url = new URL("/api/v1/duplicates", o.server);
      for (const [k, v] of Object.entries(filterOf(probe, o, from))) url.searchParams.set(k, String(v));
      url.searchParams.set("limit", String(PAGE));
      if (cursor) url.searchParams.set("cursor", cursor);
      let response: Response;
      try {
        response = await fetch(url);
      } catch (error) {
        throw new FatalSinkError(`cannot reach ${o.server}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`);
      }
      const hint = response.status === 401 ? " (the server asks for a login: read the verdicts from its database with --database instead)" : "";
      if (!response.ok) throw new FatalSinkError(`${url} answered ${response.status}: ${await response.text()}${hint}`);
      return (await response.json()) as { items: { bizKey: string }[]; nextCursor: string | null };
    });
  }
  return keys;
}

function makeSink(o: ProbeOptions, log: (line: string) => void): Promise<EventSink> {
  const retry: RetryPolicy = { ...DEFAULT_RETRY, onRetry: (attempt, delay, error) => log(`retry ${attempt} in ${formatDuration(delay)}: ${error instanceof Error ? error.message : String(error)}`) };
  if (o.database) return storeSink(o.database, { retry });
  return Promise.resolve(httpSink(o.server, { token: o.token, retry }));
}

export function formatProbeSummary(s: ProbeSummary): string {
  const parts = [`${s.keys} keys`, `${s.queries} queries`, `${s.rows} rows`, `${s.events} events`, `${s.keysWithRows} keys with rows`];
  if (s.truncated.length > 0) parts.push(`${s.truncated.length} keys cut at the row cap`);
  if (s.failed.length > 0) parts.push(`${s.failed.length} failed`);
  if (s.rowIssues.length > 0) parts.push(`${s.rowIssues.length} rows skipped`);
  return `probe ${s.probe}${s.server ? ` (${s.server})` : ""}: ${parts.join(", ")}${s.aborted ? `; stopped: ${s.aborted}` : ""}`;
}

export interface ProbeDeps {
  env?: Readonly<Record<string, string | undefined>>;
  /** How to reach a probe's database (tests pass a fake). */
  open?: ProbeRunOptions["open"];
}

export async function runProbeCommand(o: ProbeOptions, log: (line: string) => void, out: (line: string) => void, deps: ProbeDeps = {}): Promise<ProbeReport> {
  const env = deps.env ?? process.env;
  const explicit = o.key ?? [];
  if (explicit.length > 0 === Boolean(o.keysFromVerdicts)) throw new UsageError("name the keys with --key (repeatable) or take them from stored verdicts with --keys-from-verdicts, not both");
  if (!OUTCOMES.includes(o.outcome)) throw new UsageError(`--outcome must be one of ${OUTCOMES.join(", ")}`);
  if (o.dryRun && o.json) throw new UsageError("--dry-run prints the events on stdout; leave out --json");
  if (explicit.some((k) => k.trim() === "")) throw new UsageError("--key must not be empty");
  const probes = loadProbes(o.config, o.probe);
  let prepared;
  try {
    prepared = prepareProbes(probes, env);
  } catch (error) {
    throw error instanceof ProbeSetupError ? new UsageError(error.message) : error;
  }
  const keys = o.keysFromVerdicts ? await keysFromVerdicts(probes, o) : null;

  const sink = o.dryRun ? null : await makeSink(o, log);
  const stored = { accepted: 0, duplicates: 0, rejected: [] as { reason: string }[] };
  let pending: NormalizedEvent[] = [];
  const flush = async () => {
    if (sink === null || pending.length === 0) return;
    const batch = pending;
    pending = [];
    const result = await sink.write(batch);
    stored.accepted += result.accepted;
    stored.duplicates += result.duplicates;
    for (const r of result.rejected) stored.rejected.push({ reason: r.reason });
  };
  let summaries: ProbeSummary[];
  try {
    summaries = await runProbes(prepared, {
      keysFor: (probe) => keys?.get(probe.name) ?? explicit,
      emit: async (events) => {
        if (sink === null) {
          for (const e of events) out(JSON.stringify(e));
          return;
        }
        pending.push(...events);
        if (pending.length >= BATCH) await flush();
      },
      log,
      ...(deps.open ? { open: deps.open } : {}),
    });
    await flush();
  } finally {
    await sink?.close();
  }

  const report: ProbeReport = { probes: summaries, ...(sink === null ? {} : { stored }) };
  if (!o.json) {
    for (const s of summaries) {
      log(formatProbeSummary(s));
      for (const f of s.failed.slice(0, 5)) log(`  ${f.bizKey}: ${f.reason}`);
      for (const r of s.rowIssues.slice(0, 5)) log(`  ${r.bizKey}: row skipped: ${r.reason}`);
    }
    if (sink !== null) log(`stored in ${sink.description}: ${stored.accepted} new, ${stored.duplicates} already there, ${stored.rejected.length} rejected`);
  }
  return report;
}

/** The run failed when a probe stopped, a key's query failed, or the store refused events: exit 1. */
export function probeFailure(report: ProbeReport): string | null {
  const stopped = report.probes.filter((s) => s.aborted !== null).map((s) => s.probe);
  const failed = report.probes.reduce((n, s) => n + s.failed.length, 0);
  const rejected = report.stored?.rejected.length ?? 0;
  const parts = [
    ...(stopped.length > 0 ? [`probe ${stopped.join(", ")} stopped`] : []),
    ...(failed > 0 ? [`${failed} queries failed`] : []),
    ...(rejected > 0 ? [`${rejected} events rejected`] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : null;
}
