// npm run bench:pages [-- --keys K] [--rounds R] [--database NAME] — server time of the overview (`/`), key pages (`/keys/…`) and groups pages on
// the store `npm run bench:lookup -- --keep` leaves (10M events by default). It first brings the store's derived
// tables up to date as the server's worker would (migrations, then the diagnosis queue drained, with progress),
// then times whole responses of `next start` with the worker off, next to the overview's queries run in process.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseFilters, type Filters } from "../lib/queries/filters.ts";
import { dedupFunnel, duplicatesByCause, filterChoices, gapHistogram, latestLeaks, outcomesOverTime, storeState, topByRate, totals } from "../lib/queries/overview.ts";
import { Rng } from "../lib/simulator/random.ts";
import { processQueueStep, queuedKeys } from "../lib/diagnosis-queue/queue.ts";
import { openStore } from "../lib/store/open.ts";
import type { SqlDriver } from "../lib/store/driver.ts";
import { startServer, type RunningServer } from "../tests/helpers/server.ts";
import { arg, databaseUrl, fmt, loadAverage, sampleUniform } from "./common.ts";
import { ms, printHeader, printRow, Timings } from "./timings.ts";

const KEYS = Number(arg("keys", "200"));
const ROUNDS = Number(arg("rounds", "10"));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DATABASE = arg("database", "dupscope_bench_lookup");
const ROOT = path.join(import.meta.dirname, "..");
const TARGET_MS = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const load = loadAverage;

const benchUrl = () => databaseUrl(ADMIN_URL, DATABASE);

/** What the server's worker does in the background, run to the end here so the pages show the whole store. */
async function drainDiagnosisQueue(driver: SqlDriver): Promise<void> {
  // Freshly stored events wait in the ingest journal until a step folds them into the queue (or settles their keys).
  const [pending] = await driver.query<{ queued: unknown; batches: unknown }>(
    `SELECT (SELECT count(*) FROM diagnosis_queue) AS queued, (SELECT count(*) FROM ingest_journal) AS batches`,
  );
  const queued = Number(pending!.queued);
  const batches = Number(pending!.batches);
  if (queued === 0 && batches === 0) {
    console.log("diagnosis queue and ingest journal empty: verdicts and rollups are current");
    return;
  }
  console.log(`diagnosing the ${fmt(queued)} queued keys and those of ${fmt(batches)} journal batches (what the server's worker would do in the background) …`);
  const started = performance.now();
  let diagnosed = 0;
  let lastReport = started;
  for (;;) {
    const step = await processQueueStep(driver, { batch: 500 });
    diagnosed += step.keysDiagnosed + step.keysSettled;
    if (step.keysDiagnosed === 0 && step.marksExpanded === 0 && step.journalFolded === 0) break;
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      const seconds = (lastReport - started) / 1000;
      console.log(`  ${fmt(diagnosed).padStart(9)} keys diagnosed, ${fmt(await queuedKeys(driver)).padStart(9)} queued, ${seconds.toFixed(0)} s: ${fmt(diagnosed / seconds)} keys/s`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`diagnosed ${fmt(diagnosed)} keys in ${seconds.toFixed(0)} s = ${fmt(diagnosed / seconds)} keys/s (diagnosis, verdicts and the rollup triggers)`);
}

interface StoreShape {
  events: number;
  verdicts: number;
  keys: number;
  first: number;
  last: number;
  busiestGroup: string;
}

async function storeShape(driver: SqlDriver): Promise<StoreShape> {
  const [row] = await driver.query<Record<string, unknown>>(
    `SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'events') AS events, (SELECT count(*) FROM verdicts) AS verdicts,
            (SELECT count(*) FROM key_diagnoses) AS keys, (SELECT min(second_ts) FROM verdicts) AS first, (SELECT max(second_ts) FROM verdicts) AS last,
            (SELECT group_name FROM verdicts WHERE group_name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1) AS busiest`,
  );
  return {
    events: Number(row!.events),
    verdicts: Number(row!.verdicts),
    keys: Number(row!.keys),
    first: Number(row!.first),
    last: Number(row!.last),
    busiestGroup: String(row!.busiest),
  };
}

interface PageCase {
  label: string;
  path: string;
  query: Record<string, string>;
}

/** Ranges ending at the newest duplicate, as an on-call engineer would look at the store's latest day and week. */
function pageCases(shape: StoreShape): PageCase[] {
  const to = shape.last;
  const range = (ms: number) => ({ range: "custom", from: String(to - ms), to: String(to) });
  const group = `/groups/${encodeURIComponent(shape.busiestGroup)}`;
  return [
    { label: "/ last 1 h", path: "/", query: range(HOUR) },
    { label: "/ last 24 h", path: "/", query: range(DAY) },
    { label: "/ last 7 days", path: "/", query: range(7 * DAY) },
    { label: `/ last 7 days, group ${shape.busiestGroup}`, path: "/", query: { ...range(7 * DAY), group: shape.busiestGroup } },
    { label: "/ last 7 days, cause rebalance", path: "/", query: { ...range(7 * DAY), cause: "rebalance" } },
    { label: "/ last 15 min (from the verdicts, not rollups)", path: "/", query: range(15 * 60_000) },
    { label: "/groups last 7 days", path: "/groups", query: range(7 * DAY) },
    { label: `${group} last 24 h`, path: group, query: range(DAY) },
    { label: `${group} last 7 days`, path: group, query: range(7 * DAY) },
  ];
}

/** The whole response: `next start` streams the page, so the time to the last byte is the server's time. */
async function fetchPage(server: RunningServer, pathAndQuery: string): Promise<{ ttfb: number; total: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}${pathAndQuery}`);
  const ttfb = performance.now() - started;
  const body = await response.text();
  const total = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${pathAndQuery}: ${response.status} ${body.slice(0, 300)}`);
  return { ttfb, total, bytes: Buffer.byteLength(body) };
}

/** The overview's queries one by one in process: where a slow page's time goes. */
async function timeWidgets(driver: SqlDriver, f: Filters, into: Map<string, Timings>): Promise<void> {
  const widgets: [string, () => Promise<unknown>][] = [
    ["storeState", () => storeState(driver)],
    ["totals", () => totals(driver, f)],
    ["duplicatesByCause (+ rebalances)", () => duplicatesByCause(driver, f)],
    ["outcomesOverTime", () => outcomesOverTime(driver, f)],
    ["dedupFunnel", () => dedupFunnel(driver, f)],
    ["gapHistogram", () => gapHistogram(driver, f)],
    ["topByRate group", () => topByRate(driver, f, "group")],
    ["topByRate topic", () => topByRate(driver, f, "topic")],
    ["latestLeaks", () => latestLeaks(driver, f)],
    ["filterChoices", () => filterChoices(driver, f)],
  ];
  for (const [name, run] of widgets) {
    const t = into.get(name) ?? new Timings();
    await t.time(run);
    into.set(name, t);
  }
}

async function sampleKeys(driver: SqlDriver, count: number): Promise<string[]> {
  // Half keys with a duplicate (what on-call looks up), half any key; seeded, uniform over keys.
  const rng = new Rng(7).fork("page-keys");
  const pick = (pool: string[], n: number) => sampleUniform(rng, pool, n);
  const duplicated = (await driver.query<{ biz_key: string }>(`SELECT DISTINCT biz_key FROM verdicts ORDER BY biz_key`)).map((r) => r.biz_key);
  const any = (await driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses ORDER BY biz_key`)).map((r) => r.biz_key);
  return [...pick(duplicated, Math.ceil(count / 2)), ...pick(any, Math.floor(count / 2))];
}

if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
  console.error("no build of the app: run `npm run build` first (the benchmark measures `next start` of the built app)");
  process.exit(1);
}
const url = benchUrl();
console.log(`opening ${DATABASE} on ${new URL(ADMIN_URL).host} (made by \`npm run bench:lookup -- --keep\`); pending migrations are applied …`);
let store;
try {
  store = await openStore({ mode: "postgres", url });
} catch (error) {
  console.error(`cannot open ${url}: ${(error as Error).message}\nfill it first: npm run bench:lookup -- --keep`);
  process.exit(1);
}
try {
  await drainDiagnosisQueue(store.driver);
  await store.driver.exec("ANALYZE");
  const shape = await storeShape(store.driver);
  console.log(
    `store: ~${fmt(shape.events)} events, ${fmt(shape.keys)} diagnosed keys, ${fmt(shape.verdicts)} duplicates between ` +
      `${new Date(shape.first).toISOString()} and ${new Date(shape.last).toISOString()}`,
  );
  const [rollups] = await store.driver.query<Record<string, unknown>>(
    `SELECT (SELECT count(*) FROM duplicate_rollups) AS d, (SELECT count(*) FROM key_rollups) AS k, (SELECT count(*) FROM rebalance_rollups) AS r`,
  );
  console.log(`rollup rows: duplicate_rollups ${fmt(Number(rollups!.d))}, key_rollups ${fmt(Number(rollups!.k))}, rebalance_rollups ${fmt(Number(rollups!.r))}`);

  const cases = pageCases(shape);
  const keys = await sampleKeys(store.driver, KEYS);
  console.log("starting next start with DUPSCOPE_DIAGNOSIS_INTERVAL_MS=0 (the worker is off: nothing competes with the measurement) …");
  process.chdir(ROOT);
  const server = await startServer({ DATABASE_URL: url, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "0" });
  let worst = 0;
  try {
    for (const c of cases) await fetchPage(server, `${c.path}?${new URLSearchParams(c.query)}`);
    for (const key of keys.slice(0, 10)) await fetchPage(server, `/keys/${encodeURIComponent(key)}`);
    console.log(`warmed up; measuring (${load()})`);
    console.log("");
    printHeader(`server time, whole response, ${ROUNDS} rounds (ms)`, 64);
    for (const c of cases) {
      const total = new Timings();
      const ttfb = new Timings();
      for (let i = 0; i < ROUNDS; i++) {
        const r = await fetchPage(server, `${c.path}?${new URLSearchParams(c.query)}`);
        total.add(r.total);
        ttfb.add(r.ttfb);
      }
      printRow(c.label, total, 64);
      printRow("  first byte", ttfb, 64);
      // The target is the overview's and the key page's (issue 5); the groups pages are shown for reference.
      if (c.path === "/") worst = Math.max(worst, total.stats().p95);
    }
    const keyTotal = new Timings();
    const keyTtfb = new Timings();
    const sizes: number[] = [];
    for (const key of keys) {
      const r = await fetchPage(server, `/keys/${encodeURIComponent(key)}`);
      keyTotal.add(r.total);
      keyTtfb.add(r.ttfb);
      sizes.push(r.bytes);
    }
    printRow(`/keys/{bizKey}, ${fmt(keys.length)} keys (half with a duplicate)`, keyTotal, 64);
    printRow("  first byte", keyTtfb, 64);
    worst = Math.max(worst, keyTotal.stats().p95);
    console.log(`key pages: median ${fmt(sizes.sort((a, b) => a - b)[Math.floor(sizes.length / 2)]!)} bytes of HTML`);
  } finally {
    await server.stop();
  }

  console.log("");
  const widgets = new Map<string, Timings>();
  const week = parseFilters(cases[2]!.query, shape.last);
  for (let i = 0; i < ROUNDS; i++) await timeWidgets(store.driver, week, widgets);
  printHeader(`the overview's queries in process, last 7 days (ms)`, 64);
  for (const [name, t] of widgets) printRow(name, t, 64);
  console.log("");
  console.log(`${worst < TARGET_MS ? "PASS" : "FAIL"}: worst overview or key page p95 ${ms(worst)} ms (target < ${TARGET_MS} ms server time; ${load()})`);
} finally {
  await store.close();
}
