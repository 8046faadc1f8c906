// npm run bench:soak -- [--minutes 30] [--rate 10000] [--ramp 0] [--step-minutes 5] [--writers 2] [--retention 5m]
//                       [--partition 1m] [--sample-seconds 30] [--database NAME] [--profile-server DIR]
//                       [--diagnosis-loops 1]
//
// A steady simulated stream at --rate events/s into PostgreSQL through the writers dupscope ingest uses, with one real
// server (diagnosis worker, retention job, key lookups) on the same database, retention set to minutes. Every sample
// prints the rate written, the ingest lag (from an event's creation to its commit), the events table's size and
// partitions, the diagnosis backlog (and how much of it waits for marks to settle), the key page's p95, the processes'
// RSS and the cores each part (the bench's stream and writers, the server, PostgreSQL) kept busy, with the machine's
// other busy, idle and stolen cores: CPU that other processes or the hypervisor took shows there, not as a slower
// store; and the CPU a fixed piece of work takes against the first sample (bench/cpu-speed.ts): cores that got slower
// show there, not as a costlier store. Before the stream, it prints the PostgreSQL settings that change these figures
// most, and a bare COPY into an unindexed table measures this machine's ceiling in the same run. With --ramp N the rate
// grows by N every --step-minutes, and the summary names the highest rate sustained: ingest lag p95 under 10 s and the
// diagnosis backlog not growing. --profile-server DIR writes the server's CPU profile (node --cpu-prof) there when the
// run ends, to open in Chrome DevTools. --diagnosis-loops N runs the server with DUPSCOPE_DIAGNOSIS_LOOPS=N.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { NormalizedEvent } from "../lib/events/model.ts";
import { readStoredMetrics } from "../lib/metrics/stored.ts";
import { eventCopyLine, EVENT_COLUMNS } from "../lib/store/copy-text.ts";
import type { SqlDriver } from "../lib/store/driver.ts";
import { insertCopyRows, toCopyRows } from "../lib/store/events-repo.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { parseDuration, parseRetention } from "../lib/store/retention-config.ts";
import { startServer } from "../tests/helpers/server.ts";
import { adminQuery, arg, databaseUrl, fmt, loadAverage } from "./common.ts";
import { CpuSpeedProbe } from "./cpu-speed.ts";
import { cpuSnapshot, cpuUsed, machineCores, machineTimes, type CpuPart, type MachineTimes } from "./cpu.ts";
import { EVENTS_PER_ORDER, Stream } from "./stream.ts";
import { percentile } from "./timings.ts";

const MINUTES = Number(arg("minutes", "30"));
const RATE = Number(arg("rate", "10000"));
const RAMP = Number(arg("ramp", "0"));
const STEP_MINUTES = Number(arg("step-minutes", "5"));
const WRITERS = Number(arg("writers", "2"));
const RETENTION = arg("retention", "5m");
const PARTITION = arg("partition", "1m");
const SAMPLE_MS = Number(arg("sample-seconds", "30")) * 1000;
const DATABASE = arg("database", "dupscope_bench_soak");
const PROFILE_DIR = arg("profile-server", "");
/** The server refuses a bad value with its reason. */
const DIAGNOSIS_LOOPS = arg("diagnosis-loops", "1");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Events per batch, as `dupscope ingest` sends them. */
const BATCH = 5000;
const LAG_LIMIT_MS = 10_000;
/**
 * Batches waiting for a writer beyond which the stream is shed rather than held in memory: as many as the rate makes
 * in LAG_LIMIT_MS, so a batch queued behind them would be written past the lag limit and the rate is not sustained.
 * (A fixed 40 shed at 4 s of backlog at 50,000 events/s, where the lag limit allows 10, and at 20 s at 10,000.)
 */
const maxWaiting = (rate: number) => Math.max(1, Math.ceil((rate * LAG_LIMIT_MS) / 1000 / BATCH));

// The writers here and the server read the same settings: the first partition fixes the span for the store.
process.env.DUPSCOPE_RETENTION_EVENTS = RETENTION;
process.env.DUPSCOPE_PARTITION_INTERVAL = PARTITION;

// ------------------------------------------------------------------------------------------------ baseline

async function bareCopyRate(driver: SqlDriver): Promise<number> {
  const events = new Stream().orders(Math.ceil(200_000 / EVENTS_PER_ORDER), Date.now());
  const text = events.map((e) => eventCopyLine(e)).join("");
  await driver.exec(`CREATE TABLE soak_baseline (LIKE events INCLUDING DEFAULTS)`);
  const started = performance.now();
  await driver.session((s) => s.copyIn!(`COPY soak_baseline (${EVENT_COLUMNS.join(", ")}) FROM STDIN`, [text]));
  const rate = events.length / ((performance.now() - started) / 1000);
  await driver.exec(`DROP TABLE soak_baseline`);
  return rate;
}

// ------------------------------------------------------------------------------------------------ the run

interface Interval {
  written: number;
  lags: number[];
  /** Events not created because the writers were maxWaiting batches (LAG_LIMIT_MS of the stream) behind. */
  shed: number;
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

const url = databaseUrl(ADMIN_URL, DATABASE);
await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
await adminQuery(ADMIN_URL, `CREATE DATABASE "${DATABASE}"`);
const setup = await openPgWriter(url);
console.log(`bench:soak — ${MINUTES} min at ${fmt(RATE)} events/s${RAMP > 0 ? `, +${fmt(RAMP)} every ${STEP_MINUTES} min` : ""}, ${WRITERS} writers, retention ${RETENTION}, partitions of ${PARTITION}, ${DIAGNOSIS_LOOPS} diagnosis loop(s); ${loadAverage()}`);
// Figures from machines whose PostgreSQL is set up differently are not comparable: the run says how this one is.
const settings = await setup.query<{ name: string; setting: string }>(
  `SELECT name, current_setting(name) AS setting FROM pg_settings
    WHERE name IN ('shared_buffers', 'synchronous_commit', 'autovacuum', 'max_wal_size', 'wal_sync_method') ORDER BY name`,
);
console.log(`PostgreSQL: ${settings.map((s) => `${s.name} ${s.setting}`).join(", ")}`);
const baseline = await bareCopyRate(setup);
console.log(`baseline, same process: bare COPY into an unindexed table ${fmt(baseline)} rows/s`);

const server = await startServer({
  DATABASE_URL: url,
  DUPSCOPE_RETENTION_EVENTS: RETENTION,
  DUPSCOPE_RETENTION_VERDICTS: RETENTION,
  DUPSCOPE_PARTITION_INTERVAL: PARTITION,
  DUPSCOPE_RETENTION_INTERVAL_MS: "15000",
  DUPSCOPE_DIAGNOSIS_LOOPS: DIAGNOSIS_LOOPS,
}, undefined, PROFILE_DIR === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`]);
const drivers = await Promise.all(Array.from({ length: WRITERS }, () => openPgWriter(url)));
const probe = new CpuSpeedProbe();

const stream = new Stream();
const waiting: { events: NormalizedEvent[]; createdAt: number }[] = [];
let interval: Interval = { written: 0, lags: [], shed: 0 };
let stopped = false;
const started = Date.now();
const end = started + MINUTES * 60_000;
const rateAt = (t: number) => RATE + (RAMP > 0 ? Math.floor((t - started) / (STEP_MINUTES * 60_000)) * RAMP : 0);

/** Creates the orders due since the last tick, at their time, in batches of BATCH events. */
async function produce(): Promise<void> {
  let due = 0;
  let last = Date.now();
  let pending: NormalizedEvent[] = [];
  while (!stopped) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = Date.now();
    due += ((now - last) / 1000) * (rateAt(now) / EVENTS_PER_ORDER);
    last = now;
    const orders = Math.floor(due);
    due -= orders;
    if (waiting.length >= maxWaiting(rateAt(now))) {
      interval.shed += Math.round(orders * EVENTS_PER_ORDER);
      continue;
    }
    // Not push(...): after the event loop stalls, one tick's orders can outnumber the arguments a call may take.
    for (const event of stream.orders(orders, now)) pending.push(event);
    while (pending.length >= BATCH) {
      waiting.push({ events: pending.slice(0, BATCH), createdAt: now });
      pending = pending.slice(BATCH);
    }
  }
}

async function write(driver: SqlDriver): Promise<void> {
  while (!stopped) {
    const batch = waiting.shift();
    if (!batch) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    const result = await insertCopyRows(driver, toCopyRows(batch.events));
    interval.written += result.accepted;
    interval.lags.push(Date.now() - batch.createdAt);
    if (result.rejected.length > 0) throw new Error(`the store refused ${result.rejected.length} events: ${result.rejected[0]!.reason}`);
  }
}

async function lookupP95(): Promise<number> {
  const keys = stream.recentKeys.slice(-40, -20);
  const times: number[] = [];
  for (const key of keys) {
    const t = performance.now();
    const response = await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(key)}`);
    await response.arrayBuffer();
    times.push(performance.now() - t);
  }
  return times.length > 0 ? percentile(times.sort((a, b) => a - b), 95) : 0;
}

interface Sample {
  at: number;
  rate: number;
  target: number;
  lagP95: number;
  lagMax: number;
  eventsBytes: number;
  partitions: number;
  backlog: number;
  /** Queued keys waiting for a rebalance line's marks to settle (lib/diagnosis-queue/queue.ts): part of the backlog. */
  settling: number;
  lookupP95: number;
  shed: number;
  serverRssMb: number;
  benchRssMb: number;
  /** Cores each part kept busy over the interval (bench/cpu.ts). */
  cores: Record<CpuPart, number>;
  /** The whole machine's cores over the interval; `busy` less the three parts is printed as other. */
  machine: MachineTimes;
  /** CPU time of the probe's fixed work against the first sample's (bench/cpu-speed.ts); null without readings. */
  slowness: number | null;
}

const samples: Sample[] = [];
let cpuBefore = { at: Date.now(), snapshot: cpuSnapshot(server.pid), machine: machineTimes() };

async function sample(): Promise<void> {
  const taken = interval;
  interval = { written: 0, lags: [], shed: 0 };
  const cpuNow = { at: Date.now(), snapshot: cpuSnapshot(server.pid), machine: machineTimes() };
  const used = cpuUsed(cpuBefore.snapshot, cpuNow.snapshot);
  const seconds = (cpuNow.at - cpuBefore.at) / 1000;
  const machine = machineCores(cpuBefore.machine, cpuNow.machine, seconds);
  cpuBefore = cpuNow;
  const lags = taken.lags.sort((a, b) => a - b);
  const [size] = await setup.query<{ bytes: string; partitions: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) AS bytes, count(*) AS partitions FROM pg_inherits WHERE inhparent = 'events'::regclass`,
  );
  const { diagnosis: backlog } = await readStoredMetrics(setup);
  const s: Sample = {
    at: Date.now() - started,
    rate: taken.written / (SAMPLE_MS / 1000),
    target: rateAt(Date.now() - 1),
    lagP95: lags.length > 0 ? percentile(lags, 95) : 0,
    lagMax: lags.at(-1) ?? 0,
    eventsBytes: Number(size!.bytes),
    partitions: Number(size!.partitions),
    backlog: backlog.ready + backlog.settling + backlog.unfolded,
    settling: backlog.settling,
    lookupP95: await lookupP95(),
    shed: taken.shed,
    serverRssMb: rssKb(server.pid) / 1024,
    benchRssMb: process.memoryUsage().rss / 1024 / 1024,
    cores: { bench: used.bench / seconds, server: used.server / seconds, postgres: used.postgres / seconds },
    machine,
    slowness: probe.take(),
  };
  const other = s.machine.busy - s.cores.bench - s.cores.server - s.cores.postgres;
  samples.push(s);
  console.log(
    [
      `${(s.at / 60_000).toFixed(1).padStart(5)} min`,
      `${fmt(s.rate).padStart(7)}/${fmt(s.target)} ev/s`,
      `lag p95 ${(s.lagP95 / 1000).toFixed(1)} s max ${(s.lagMax / 1000).toFixed(1)} s`,
      `events ${(s.eventsBytes / 1024 / 1024).toFixed(0)} MB in ${s.partitions} partitions`,
      `backlog ${fmt(s.backlog)} keys (${fmt(s.settling)} settling)`,
      `key page p95 ${s.lookupP95.toFixed(1)} ms`,
      `RSS server ${s.serverRssMb.toFixed(0)} MB, bench ${s.benchRssMb.toFixed(0)} MB`,
      `cores: server ${s.cores.server.toFixed(2)}, postgres ${s.cores.postgres.toFixed(2)}, bench ${s.cores.bench.toFixed(2)}, other ${Math.max(0, other).toFixed(2)}`,
      `idle ${s.machine.idle.toFixed(2)} (iowait ${s.machine.iowait.toFixed(2)}), steal ${s.machine.steal.toFixed(2)}`,
      s.slowness === null ? "" : `probe ${s.slowness.toFixed(2)}×`,
      s.shed > 0 ? `shed ${fmt(s.shed)}` : "",
    ]
      .filter(Boolean)
      .join(" | "),
  );
}

console.log(`stream starts; a sample every ${SAMPLE_MS / 1000} s`);
const workers = [produce(), ...drivers.map(write)];
const sampler = setInterval(() => void sample().catch((error) => console.error(error)), SAMPLE_MS);
try {
  await Promise.race([new Promise((resolve) => setTimeout(resolve, end - Date.now())), ...workers]);
} catch (error) {
  // A server left running would go on diagnosing into the database and skew the next run.
  await server.stop();
  probe.stop();
  throw error;
} finally {
  stopped = true;
  clearInterval(sampler);
  await Promise.allSettled(workers);
}

// ------------------------------------------------------------------------------------------------ summary

const held = (s: Sample) => s.lagP95 < LAG_LIMIT_MS && s.shed === 0 && s.rate >= 0.9 * s.target;
const steps = new Map<number, Sample[]>();
for (const s of samples) {
  const rate = s.target;
  steps.set(rate, [...(steps.get(rate) ?? []), s]);
}
console.log("");
console.log(`baseline (bare COPY, unindexed, same run): ${fmt(baseline)} rows/s; ${loadAverage()}`);
let best = 0;
for (const [rate, all] of steps) {
  // A step's first sample straddles the change of rate (the first step's, the stream's start): ingest is judged
  // without it whenever another follows, the backlog's growth over at least two samples.
  const list = all.length > 2 ? all.slice(1) : all;
  const ingestList = all.length > 1 ? all.slice(1) : all;
  const ingestOk = ingestList.every(held);
  // The worker keeps up when a step's backlog grows by less than 10 s of keys at its rate.
  const keepsUp = list.length >= 2 && list.at(-1)!.backlog - list[0]!.backlog < (rate / EVENTS_PER_ORDER) * 10;
  console.log(
    `${fmt(rate).padStart(7)} events/s: ingest ${ingestOk ? "held" : "NOT held"} (lag p95 max ${(Math.max(...ingestList.map((s) => s.lagP95)) / 1000).toFixed(1)} s), ` +
      `diagnosis ${keepsUp ? "kept up" : "fell behind"} (backlog ${fmt(list[0]!.backlog)} → ${fmt(list.at(-1)!.backlog)} keys)`,
  );
  if (ingestOk && keepsUp) best = Math.max(best, rate);
}
// The job runs every 15 s and drops a partition once all of it is older than the retention.
const firstExpiry = parseRetention("--retention", RETENTION) + 2 * parseDuration("--partition", PARTITION, 60_000, 86_400_000) + 15_000;
const afterExpiry = samples.filter((s) => s.at > firstExpiry);
if (afterExpiry.length > 1) {
  const sizes = afterExpiry.map((s) => s.eventsBytes / 1024 / 1024);
  console.log(`events table after the first expiry: ${Math.min(...sizes).toFixed(0)}–${Math.max(...sizes).toFixed(0)} MB over ${afterExpiry.length} samples`);
  const rss = afterExpiry.map((s) => s.serverRssMb);
  console.log(`server RSS after the first expiry: ${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MB`);
  const lookups = afterExpiry.map((s) => s.lookupP95);
  console.log(`key page p95 after the first expiry: ${Math.min(...lookups).toFixed(1)}–${Math.max(...lookups).toFixed(1)} ms`);
}
console.log(best > 0 ? `highest rate sustained: ${fmt(best)} events/s` : "no rate was sustained");

probe.stop();
await server.stop();
await Promise.all(drivers.map((d) => d.close()));
await setup.close();
await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
