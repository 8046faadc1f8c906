// npm run bench:worker -- [--orders 100000] [--keys 20000] [--rebalance-every 270] [--runs 3] [--partition 1d]
//                         [--database NAME]
//
// The diagnosis worker in process, apart from the server and the stream: fills a fresh PostgreSQL database with
// bench:soak's orders (one client-log rebalance line per --rebalance-every orders, all in one group, so each key's
// context holds the group's lines over its five-minute window), 2,500 orders per simulated second in partitions of
// --partition, then loads, diagnoses and saves --keys of them in steps of 1,000 keys, as the server's worker does,
// reading each key's events from the time the fold queued it for, --runs times. Printed per run: keys/s and µs per
// key for each part; beside it, in the same process, the same loads reading every key whole (as before the queue
// kept a time, and as a key page does) and the baseline: a bare read of the same keys' own events.
import type { SqlDriver } from "../lib/store/driver.ts";
import { diagnoseKeyWithReach } from "../lib/diagnosis/diagnose.ts";
import { saveDiagnoses } from "../lib/diagnosis-queue/queue.ts";
import { STEP_KEYS } from "../lib/diagnosis-queue/worker.ts";
import { loadDiagnosisInputs } from "../lib/queries/diagnosis-input.ts";
import { insertCopyRows, toCopyRows } from "../lib/store/events-repo.ts";
import { foldJournal } from "../lib/store/ingest-journal.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { adminQuery, arg, databaseUrl, fmt, loadAverage } from "./common.ts";
import { Stream } from "./stream.ts";

const ORDERS = Number(arg("orders", "100000"));
const KEYS = Number(arg("keys", "20000"));
const REBALANCE_EVERY = Number(arg("rebalance-every", "270"));
const RUNS = Number(arg("runs", "3"));
const DATABASE = arg("database", "dupscope_bench_worker");
// The store's first partition reads it (lib/store/partitions.ts); a bad value is refused there with its reason.
process.env.DUPSCOPE_PARTITION_INTERVAL = arg("partition", "1d");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Orders per simulated second: bench:soak's 10,000 events/s. */
const ORDERS_PER_SECOND = 2500;

for (const [name, value] of [["orders", ORDERS], ["keys", KEYS], ["rebalance-every", REBALANCE_EVERY], ["runs", RUNS]] as const) {
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a whole number above 0, got ${value}`);
    process.exit(2);
  }
}
if (KEYS > ORDERS) {
  console.error(`--keys (${KEYS}) cannot exceed --orders (${ORDERS}): each order is one key`);
  process.exit(2);
}

async function fill(driver: SqlDriver): Promise<string[]> {
  const stream = new Stream(REBALANCE_EVERY);
  const start = Date.now() - Math.ceil(ORDERS / ORDERS_PER_SECOND) * 1000;
  const batchOrders = 1000;
  for (let done = 0; done < ORDERS; done += batchOrders) {
    const count = Math.min(batchOrders, ORDERS - done);
    const result = await insertCopyRows(driver, toCopyRows(stream.orders(count, start + Math.floor((done * 1000) / ORDERS_PER_SECOND))));
    if (result.rejected.length > 0) throw new Error(`the store refused ${result.rejected.length} events: ${result.rejected[0]!.reason}`);
    if ((done + count) % 20_000 === 0 || done + count === ORDERS) process.stdout.write(`\rfilled ${fmt(done + count)} of ${fmt(ORDERS)} orders`);
  }
  while ((await foldJournal(driver)).rows > 0);
  process.stdout.write("\n");
  // Spread over the stream, as a backlog's keys are.
  const every = ORDERS / KEYS;
  return Array.from({ length: KEYS }, (_, i) => `SOAK-${Math.floor(i * every)}`).sort();
}

interface Run {
  load: number;
  diagnose: number;
  save: number;
  contextLines: number;
}

/** The times the fold queued the keys for (diagnosis_queue.since_ts): what the worker bounds a new key's reads by. */
async function queuedFrom(driver: SqlDriver, keys: string[]): Promise<Map<string, number>> {
  const rows = await driver.query<{ biz_key: string; since_ts: string }>(`SELECT biz_key, since_ts FROM diagnosis_queue WHERE biz_key = ANY($1::text[]) AND since_ts IS NOT NULL`, [keys]);
  return new Map(rows.map((r) => [r.biz_key, Number(r.since_ts)]));
}

async function workerRun(driver: SqlDriver, keys: string[], from: ReadonlyMap<string, number>): Promise<Run> {
  const run: Run = { load: 0, diagnose: 0, save: 0, contextLines: 0 };
  for (let i = 0; i < keys.length; i += STEP_KEYS) {
    const step = keys.slice(i, i + STEP_KEYS);
    const t0 = performance.now();
    const inputs = await loadDiagnosisInputs(driver, step, from);
    const t1 = performance.now();
    const results = inputs.map((input) => ({ input, ...diagnoseKeyWithReach(input) }));
    const t2 = performance.now();
    await saveDiagnoses(driver, results);
    const t3 = performance.now();
    run.load += t1 - t0;
    run.diagnose += t2 - t1;
    run.save += t3 - t2;
    for (const input of inputs) run.contextLines += input.context.length;
  }
  return run;
}

async function wholeLoadMs(driver: SqlDriver, keys: string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < keys.length; i += STEP_KEYS) await loadDiagnosisInputs(driver, keys.slice(i, i + STEP_KEYS));
  return performance.now() - started;
}

async function bareReadMs(driver: SqlDriver, keys: string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < keys.length; i += STEP_KEYS) {
    await driver.query(`SELECT * FROM events WHERE biz_key = ANY($1::text[]) ORDER BY biz_key, ts`, [keys.slice(i, i + STEP_KEYS)]);
  }
  return performance.now() - started;
}

const url = databaseUrl(ADMIN_URL, DATABASE);
await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
await adminQuery(ADMIN_URL, `CREATE DATABASE "${DATABASE}"`);
const driver = await openPgWriter(url);
try {
  console.log(`bench:worker — ${fmt(ORDERS)} orders, a rebalance line per ${fmt(REBALANCE_EVERY)}, ${fmt(KEYS)} keys diagnosed ${RUNS}× in steps of ${fmt(STEP_KEYS)}; ${loadAverage()}`);
  const keys = await fill(driver);
  await driver.exec("VACUUM ANALYZE");
  const from = await queuedFrom(driver, keys);
  const [parts] = await driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'events'::regclass`);
  console.log(`${fmt(parts?.n ?? 0)} partitions of events; ${fmt(from.size)} of the ${fmt(KEYS)} keys queued with a time`);
  const us = (ms: number) => ((ms * 1000) / KEYS).toFixed(0).padStart(4);
  for (let r = 1; r <= RUNS; r++) {
    const bare = await bareReadMs(driver, keys);
    const whole = await wholeLoadMs(driver, keys);
    const run = await workerRun(driver, keys, from);
    const total = run.load + run.diagnose + run.save;
    console.log(
      `run ${r}: worker ${fmt(KEYS / (total / 1000)).padStart(6)} keys/s (load ${us(run.load)} µs/key, diagnose ${us(run.diagnose)}, save ${us(run.save)}; ` +
        `${fmt(run.contextLines / KEYS)} context lines a key) | same loads reading keys whole: ${us(whole)} µs/key | ` +
        `baseline, bare read of the keys' events: ${fmt(KEYS / (bare / 1000)).padStart(7)} keys/s (${us(bare)} µs/key); ${loadAverage()}`,
    );
  }
} finally {
  await driver.close();
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
}
