// npm run bench:lookup [-- --events N] [--keys K] [--keep] [--reuse] [--database NAME] — fills a fresh PostgreSQL database with ~N
// simulated events through the real parsers and write path, then times GET /api/v1/keys/{bizKey} on the built
// server for K random keys (to the last byte, as a browser asks; the handler's share from Server-Timing), next to
// the same GET through fetch(), the same lookup in process (and again without reading the groups' state over time,
// the baseline for those reads) and the bare SQL of the same rows, measured in the same run. --keep leaves the
// database; --reuse measures a kept one again without refilling it, and leaves it too (a 10M fill takes half an
// hour, and a measurement taken while the machine was busy is worth repeating).
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { findFormat } from "../collectors/registry.ts";
import { diagnoseKey, mayPairDeliveries } from "../lib/diagnosis/diagnose.ts";
import { renderReport } from "../lib/views/key-report.ts";
import type { NormalizedEvent } from "../lib/events/model.ts";
import { MINUTE, HOUR, SIM_EPOCH } from "../lib/simulator/clock.ts";
import { Rng } from "../lib/simulator/random.ts";
import { runSimulation, type SimulationResult } from "../lib/simulator/run.ts";
import { loadDiagnosisInputs } from "../lib/queries/diagnosis-input.ts";
import type { PreparedStatement, SqlDriver } from "../lib/store/driver.ts";
import { EVENT_SELECT } from "../lib/store/event-rows.ts";
import { insertCopyRows, toCopyRows } from "../lib/store/events-repo.ts";
import { HOLDINGS } from "../lib/store/group-holdings.ts";
import { MEMBERS } from "../lib/store/group-members.ts";
import { foldJournal } from "../lib/store/ingest-journal.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { startServer, type RunningServer } from "../tests/helpers/server.ts";
import { adminQuery, arg, databaseUrl, flag, fmt, loadAverage, sampleUniform } from "./common.ts";
import { median, ms, printHeader, printRow, Timings } from "./timings.ts";

const EVENTS = Number(arg("events", "10000000"));
const KEYS = Number(arg("keys", "1000"));
const KEEP = flag("keep");
const REUSE = flag("reuse");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DATABASE = arg("database", "dupscope_bench_lookup");
const ROOT = path.join(import.meta.dirname, "..");

/** Keys per simulator run: ~230k events and ~450 MB of memory, whatever N is. */
const CHUNK_KEYS = 20_000;
const WARMUP = 50;
const TARGET_P95_MS = 20;
const SEED = 1;
/** Issue 49: reading the groups' state over time may cost a key page at most this much. */
const MEMBERS_BUDGET_PCT = 10;

const signedPct = (a: number, b: number) => `${a >= b ? "+" : "−"}${((Math.abs(a - b) / b) * 100).toFixed(1)}%`;
/** What scenario `all` gives per key (11.5); only sizes the first run, later ones use the density measured. */
const EVENTS_PER_KEY_GUESS = 11.5;



const benchUrl = () => databaseUrl(ADMIN_URL, DATABASE);

async function freshDatabase(): Promise<{ url: string; driver: SqlDriver }> {
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
  await adminQuery(ADMIN_URL, `CREATE DATABASE "${DATABASE}"`);
  return { url: benchUrl(), driver: await openPgWriter(benchUrl()) };
}

// ------------------------------------------------------------------------------------------------------ fill

/** The fill writes weeks of simulated history from the simulator's epoch on, whatever day the bench runs. */
const KEEP_ALL = { oldest: 0, newest: Number.MAX_SAFE_INTEGER };

interface FillState {
  events: number;
  runs: number;
  nextKey: number;
  /** Where the next run starts: an hour after the last event of the previous one, so contexts never overlap. */
  startAt: number;
  /**
   * Events whose id was already stored: identical lines in the same ms (a 5.x client's resend line with its
   * unfilled `%s`), which ingest stores once, as it should.
   */
  repeats: number;
  writeMs: number;
}

/** One simulator run's files through the registry's parsers, file by file, as `dupscope ingest` reads them. */
function* parsedFiles(result: SimulationResult): Generator<NormalizedEvent[]> {
  for (const entry of result.manifest.files) {
    const file = result.files.find((f) => f.path === entry.path)!;
    const collector = findFormat(entry.format)!;
    const ctx = { source: `${entry.format}:bench-lookup/${entry.path}`, ...(entry.instance ? { instance: entry.instance } : {}) };
    const lines = file.text.split("\n");
    lines.pop();
    const events: NormalizedEvent[] = [];
    const parser = collector.open(ctx);
    lines.forEach((line, i) => events.push(...parser.line(line, i + 1).events));
    events.push(...parser.end().events);
    yield events;
  }
}

async function fillRun(driver: SqlDriver, state: FillState, keys: number): Promise<void> {
  // Each run gets its own seed as well, so msgIds and pids differ between runs and not only their times.
  const result = runSimulation({ scenario: "all", keys, seed: SEED + state.runs, startAt: state.startAt, firstKey: state.nextKey });
  let lastTs = state.startAt;
  for (const events of parsedFiles(result)) {
    for (const e of events) lastTs = Math.max(lastTs, e.ts);
    const started = performance.now();
    const { accepted, duplicates } = await insertCopyRows(driver, toCopyRows(events, KEEP_ALL));
    state.writeMs += performance.now() - started;
    state.events += accepted;
    state.repeats += duplicates;
  }
  state.runs++;
  state.nextKey += keys;
  state.startAt = Math.ceil((lastTs + HOUR) / MINUTE) * MINUTE;
}

/** Keys for the next run: a full chunk, or about what is left to reach the target at the density seen so far. */
function nextRunKeys(state: FillState): number {
  const perKey = state.events === 0 ? EVENTS_PER_KEY_GUESS : state.events / (state.nextKey - 1);
  return Math.min(CHUNK_KEYS, Math.max(1, Math.ceil((EVENTS - state.events) / perKey)));
}

async function fill(driver: SqlDriver): Promise<void> {
  const state: FillState = { events: 0, runs: 0, nextKey: 1, startAt: SIM_EPOCH, repeats: 0, writeMs: 0 };
  const started = performance.now();
  while (state.events < EVENTS) {
    await fillRun(driver, state, nextRunKeys(state));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `  ${fmt(state.events).padStart(11)} events, ${fmt(state.nextKey - 1).padStart(9)} keys after ${String(state.runs).padStart(3)} runs, ` +
        `${seconds.toFixed(0)} s: ${fmt(state.events / seconds)} events/s (write only ${fmt(state.events / (state.writeMs / 1000))} events/s)`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `filled: ${fmt(state.events)} events of ${fmt(state.nextKey - 1)} keys in ${seconds.toFixed(0)} s = ${fmt(state.events / seconds)} events/s ` +
      `(simulate + parse + write; the write path alone ${fmt(state.events / (state.writeMs / 1000))} events/s); ` +
      `${fmt(state.repeats)} parsed events were repeats of a stored one (identical lines in the same ms)`,
  );
}

/**
 * The worker's first step, without the worker: fold the ingest journal, which writes the groups' members
 * (group_members) that a key lookup reads. Without it the lookup would time that read against an empty table.
 */
async function foldMembers(driver: SqlDriver): Promise<void> {
  const started = performance.now();
  let rows = 0;
  for (let fold = await foldJournal(driver); fold.rows > 0; fold = await foldJournal(driver)) rows += fold.rows;
  const [count] = await driver.query<{ intervals: string; open: string; changes: string }>(
    `SELECT (SELECT count(*) FROM group_members) AS intervals, (SELECT count(*) FROM group_members WHERE until_ts IS NULL) AS open,
            (SELECT count(*) FROM group_member_changes) AS changes`,
  );
  console.log(
    `folded ${fmt(rows)} journal rows in ${((performance.now() - started) / 1000).toFixed(1)} s: group_members ${fmt(Number(count!.intervals))} intervals ` +
      `(${fmt(Number(count!.open))} open) from ${fmt(Number(count!.changes))} changes`,
  );
}

async function reportStore(driver: SqlDriver): Promise<void> {
  // Every table, not only events: after bench:pages has diagnosed the store, autovacuum would otherwise work
  // through the diagnosis tables' churn during the measurement, on the same two cores.
  const started = performance.now();
  await driver.exec("VACUUM ANALYZE");
  console.log(`VACUUM ANALYZE (every table): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const [row] = await driver.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM events WHERE biz_key IS NULL) AS keyless,
            pg_size_pretty((SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits WHERE inhparent = 'events'::regclass)) AS events_size,
            (SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass) AS partitions,
            (SELECT count(*) FROM ingest_journal) AS journal,
            (SELECT count(*) FROM diagnosis_queue) AS queued, pg_size_pretty(pg_total_relation_size('diagnosis_queue')) AS queue_size,
            (SELECT count(*) FROM diagnosis_marks) AS marks, pg_size_pretty(pg_total_relation_size('diagnosis_marks')) AS marks_size,
            pg_size_pretty(pg_database_size(current_database())) AS database_size,
            current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers`,
  );
  console.log(
    `events: ${fmt(Number(row!.events))} rows in ${row!.partitions} partitions, ${row!.events_size} with indexes (${fmt(Number(row!.keyless))} keyless); ` +
      `database ${row!.database_size}; PostgreSQL ${row!.version}, shared_buffers ${row!.shared_buffers}`,
  );
  console.log(
    `left for the (disabled) worker after the fold: ingest_journal ${fmt(Number(row!.journal))} rows, diagnosis_queue ${fmt(Number(row!.queued))} keys (${row!.queue_size}), ` +
      `diagnosis_marks ${fmt(Number(row!.marks))} rows (${row!.marks_size})`,
  );
}

// --------------------------------------------------------------------------------------------------- measure

/** Uniform over keys (a block sample of events would favour keys with many events), seeded. */
async function sampleKeys(driver: SqlDriver, count: number): Promise<string[]> {
  const rows = await driver.query<{ biz_key: string }>(`SELECT DISTINCT biz_key FROM events WHERE biz_key IS NOT NULL ORDER BY biz_key`);
  return sampleUniform(new Rng(SEED).fork("lookup-keys"), rows.map((r) => r.biz_key), count);
}

type Query = { sql: string; params: unknown[] } | { statement: PreparedStatement; params: unknown[] };

/**
 * The driver loadDiagnosisInputs is given, noting each statement so the bare SQL pass replays exactly those, and
 * the same way (prepared or not).
 */
function recordingDriver(driver: SqlDriver, log: Query[]): SqlDriver {
  return {
    ...driver,
    query<Row>(sql: string, params: unknown[] = []) {
      log.push({ sql, params });
      return driver.query<Row>(sql, params);
    },
    prepared<Row>(statement: PreparedStatement, params: unknown[]) {
      log.push({ statement, params });
      return driver.prepared<Row>(statement, params);
    },
  };
}

/**
 * The same driver, but the statements reading the groups' state over time (members, queue holdings) answer nothing
 * without asking the database: the lookup as it would cost without them (the same-process baseline for those reads;
 * diagnosis then folds both from the context lines, as it does for a key whose groups have no intervals).
 */
function withoutGroupStateReads(driver: SqlDriver): SqlDriver {
  return {
    ...driver,
    prepared<Row>(statement: PreparedStatement, params: unknown[]) {
      return statement === MEMBERS || statement === HOLDINGS ? Promise.resolve([] as Row[]) : driver.prepared<Row>(statement, params);
    },
  };
}

interface HttpSample {
  ms: number;
  /** The route handler's own time, from its Server-Timing header. */
  handlerMs: number;
  jsonBytes: number;
  wireBytes: number;
}

function decode(wire: Buffer, encoding: string | undefined): Buffer {
  if (encoding === "gzip") return gunzipSync(wire);
  if (encoding === "br") return brotliDecompressSync(wire);
  if (encoding === "deflate") return inflateSync(wire);
  return wire;
}

/**
 * One GET as a browser sends it (keep-alive, gzip accepted), timed from the request to the last byte of the
 * response; the body is decompressed, parsed and checked after the clock stops, as that is the client's work.
 */
function httpLookup(agent: http.Agent, server: RunningServer, key: string): Promise<HttpSample> {
  const url = new URL(`/api/v1/keys/${encodeURIComponent(key)}`, server.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { "accept-encoding": "gzip, deflate, br" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const elapsed = performance.now() - started;
        const wire = Buffer.concat(chunks);
        const body = decode(wire, response.headers["content-encoding"]).toString("utf8");
        if (response.statusCode !== 200) return reject(new Error(`GET ${url.pathname}: ${response.statusCode} ${body.slice(0, 300)}`));
        if ((JSON.parse(body) as { bizKey?: string }).bizKey !== key) return reject(new Error(`GET ${url.pathname}: answered another key`));
        const handler = /handler;dur=([\d.]+)/.exec(String(response.headers["server-timing"] ?? ""));
        if (!handler) return reject(new Error(`GET ${url.pathname}: no Server-Timing handler duration`));
        resolve({ ms: elapsed, handlerMs: Number(handler[1]), jsonBytes: Buffer.byteLength(body), wireBytes: wire.length });
      });
    });
    request.on("error", reject);
  });
}

/** The same GET through fetch(), reading the body as text: adds undici's streams and its decompression. */
async function fetchLookup(server: RunningServer, key: string): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(key)}`);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/v1/keys/${key}: ${response.status} ${body.slice(0, 300)}`);
}

interface InProcess {
  total: Timings;
  load: Timings;
  diagnose: Timings;
  render: Timings;
  json: Timings;
  /** The keys with two deliveries in a group, the only ones that read the groups' state (mayPairDeliveries). */
  paired: Timings;
  events: number[];
  context: number[];
  queries: Query[][];
}

function inProcessTimings(): InProcess {
  return { total: new Timings(), load: new Timings(), diagnose: new Timings(), render: new Timings(), json: new Timings(), paired: new Timings(), events: [], context: [], queries: [] };
}

/** keyReport's steps with a clock around each, then the JSON the route sends: where the time goes, without HTTP. */
async function inProcessLookup(driver: SqlDriver, key: string, into: InProcess): Promise<void> {
  const queries: Query[] = [];
  const t0 = performance.now();
  const [input] = await loadDiagnosisInputs(recordingDriver(driver, queries), [key]);
  if (!input) throw new Error(`no events for ${key}`);
  const t1 = performance.now();
  const diagnosis = diagnoseKey(input);
  const t2 = performance.now();
  const report = renderReport(key, input.events, input.context, input.contextTruncated, diagnosis, { locale: "en" });
  const t3 = performance.now();
  JSON.stringify(report);
  const t4 = performance.now();
  into.load.add(t1 - t0);
  into.diagnose.add(t2 - t1);
  into.render.add(t3 - t2);
  into.json.add(t4 - t3);
  into.total.add(t4 - t0);
  if (mayPairDeliveries(key, input.events)) into.paired.add(t4 - t0);
  into.events.push(input.events.length);
  into.context.push(input.context.length);
  into.queries.push(queries);
}

async function replay(driver: SqlDriver, queries: Query[]): Promise<void> {
  for (const q of queries) await ("statement" in q ? driver.prepared(q.statement, q.params) : driver.query(q.sql, q.params));
}

const load = loadAverage;

/** Autovacuum running beside the measurement is a second load on the database's core. */
async function autovacuumWorkers(driver: SqlDriver): Promise<string> {
  const rows = await driver.query<{ query: string }>(`SELECT query FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`);
  return rows.length === 0 ? "no autovacuum running" : `autovacuum running: ${rows.map((r) => r.query.replace(/^autovacuum: /, "")).join(", ")}`;
}

async function measure(driver: SqlDriver, url: string): Promise<void> {
  const keys = await sampleKeys(driver, WARMUP + KEYS);
  const [warm, measured] = [keys.slice(0, WARMUP), keys.slice(WARMUP)];
  console.log("starting next start with DUPSCOPE_DIAGNOSIS_INTERVAL_MS=0: the background diagnosis worker is off, so it does not compete with the measurement …");
  // next start serves the build in its working directory.
  process.chdir(ROOT);
  const server = await startServer({ DATABASE_URL: url, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "0" });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const scratch = inProcessTimings();
    for (const key of warm) {
      await httpLookup(agent, server, key);
      await fetchLookup(server, key);
      await inProcessLookup(driver, key, scratch);
    }
    for (const queries of scratch.queries) await replay(driver, queries);
    console.log(`warmed up with ${warm.length} keys; measuring ${measured.length} keys one at a time (${load()}; ${await autovacuumWorkers(driver)})`);

    const overHttp = new Timings();
    const handler = new Timings();
    const outside = new Timings();
    const viaFetch = new Timings();
    const samples: HttpSample[] = [];
    const local = inProcessTimings();
    const noMembers = inProcessTimings();
    const skipMembers = withoutGroupStateReads(driver);
    // The four ask for each key in turn, each going first every fourth key, so none always meets a colder cache; the
    // lookup with and without the groups' state swap places every other key, as the one after the other meets the
    // rows the first just read.
    for (const [i, key] of measured.entries()) {
      const withAndWithout = [() => inProcessLookup(driver, key, local), () => inProcessLookup(skipMembers, key, noMembers)];
      if (i % 2 === 1) withAndWithout.reverse();
      const ways = [
        async () => {
          const sample = await httpLookup(agent, server, key);
          samples.push(sample);
          overHttp.add(sample.ms);
          handler.add(sample.handlerMs);
          outside.add(sample.ms - sample.handlerMs);
        },
        () => viaFetch.time(() => fetchLookup(server, key)),
        ...withAndWithout,
      ];
      const first = Math.floor(i / 2) % ways.length;
      for (let j = 0; j < ways.length; j++) await ways[(first + j) % ways.length]!();
    }

    const sql = new Timings();
    for (const queries of local.queries) await sql.time(() => replay(driver, queries));
    const indexed = new Timings();
    for (const key of measured) await indexed.time(() => driver.query(`SELECT ${EVENT_SELECT} FROM events WHERE biz_key = $1`, [key]));

    console.log(
      `measured (${load()}; ${await autovacuumWorkers(driver)}; other processes on the machine share its cores with the server, PostgreSQL and this one)`,
    );
    console.log("");
    printHeader(`latency over ${fmt(measured.length)} random keys (ms)`);
    printRow("GET /api/v1/keys/{bizKey} over HTTP, to the last byte", overHttp);
    printRow("  its route handler (Server-Timing): read + diagnose + JSON", handler);
    printRow("  the rest: Next.js routing and proxy, gzip, loopback TCP", outside);
    printRow("same GET with fetch(), body read as text", viaFetch);
    printRow("same lookup in process (no HTTP): keyReport + JSON", local.total);
    printRow("  loadDiagnosisInputs (SQL + rows to events)", local.load);
    printRow("  diagnoseKey", local.diagnose);
    printRow("  renderReport", local.render);
    printRow("  JSON.stringify", local.json);
    printRow("same lookup in process without reading the groups' state", noMembers.total);
    printRow("  loadDiagnosisInputs without the members and holdings statements", noMembers.load);
    printRow(`keys with two deliveries in a group (${fmt(local.paired.values.length)}), in process`, local.paired);
    printRow("  the same keys without reading the groups' state", noMembers.paired);
    printRow(`bare SQL: loadDiagnosisInputs' ${median(local.queries.map((q) => q.length))} queries, from Node`, sql);
    printRow("bare SQL: SELECT … FROM events WHERE biz_key = $1", indexed);
    console.log("");
    console.log(
      `per key (median): ${median(local.events)} events (own + keyless naming its msgIds), ${median(local.context)} context events, ` +
        `${fmt(median(samples.map((x) => x.jsonBytes)))} bytes of JSON, ${fmt(median(samples.map((x) => x.wireBytes)))} on the wire`,
    );
    const [withRead, without] = [local.total.stats(), noMembers.total.stats()];
    console.log(
      `reading the groups' state (members, holdings): in process p50 ${ms(withRead.p50)} against ${ms(without.p50)} ms without (${signedPct(withRead.p50, without.p50)}), ` +
        `p95 ${ms(withRead.p95)} against ${ms(without.p95)} ms (${signedPct(withRead.p95, without.p95)}); target within +${MEMBERS_BUDGET_PCT}%`,
    );
    const [pairedWith, pairedWithout] = [local.paired.stats(), noMembers.paired.stats()];
    console.log(
      `  of them the keys with two deliveries in a group: p50 ${ms(pairedWith.p50)} against ${ms(pairedWithout.p50)} ms (${signedPct(pairedWith.p50, pairedWithout.p50)}), ` +
        `p95 ${ms(pairedWith.p95)} against ${ms(pairedWithout.p95)} ms (${signedPct(pairedWith.p95, pairedWithout.p95)})`,
    );
    const p95 = overHttp.stats().p95;
    console.log(`${p95 < TARGET_P95_MS ? "PASS" : "FAIL"}: HTTP p95 ${ms(p95)} ms (target < ${TARGET_P95_MS} ms)`);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

// ------------------------------------------------------------------------------------------------------ main

if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
  console.error("no build of the app: run `npm run build` first (the benchmark measures `next start` of the built app)");
  process.exit(1);
}
const { url, driver } = REUSE ? { url: benchUrl(), driver: await openPgWriter(benchUrl()) } : await freshDatabase();
try {
  if (REUSE) console.log(`reusing ${DATABASE} on ${new URL(ADMIN_URL).host} as it is`);
  else {
    console.log(`filling ${DATABASE} on ${new URL(ADMIN_URL).host} with ~${fmt(EVENTS)} simulated events (scenario all, ${fmt(CHUNK_KEYS)} keys a run) …`);
    await fill(driver);
  }
  await foldMembers(driver);
  await reportStore(driver);
  await measure(driver, url);
} finally {
  await driver.close();
  // A reused store was kept on purpose, and filling it again takes half an hour: it stays without --keep too.
  if (KEEP || REUSE) console.log(`kept ${DATABASE}: ${url}`);
  else await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
}
