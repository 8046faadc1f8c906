// `npm run demo [-- --server URL --token T --scale N --seed S]`: loads a simulated day of a realistic incident mix
// (lib/demo/day.ts) through the same parsers and ingest pipeline as `dupscope ingest`, into an empty store.
//
// Without --server it opens the configured store itself (DATABASE_URL, else the embedded one in
// DUPSCOPE_DATA_DIR), like `npm run db:migrate`, and diagnoses every key before it exits, so the next `npm start`
// shows a complete dashboard. The embedded store can be open in one process only: when a running server holds it,
// the day goes to that server over HTTP instead ($DUPSCOPE_SERVER, else http://localhost:$PORT), once the server
// has said its store is empty, and the server's diagnosis worker fills in the verdicts.
import { parseArgs } from "node:util";
import { loadDemoDay } from "../lib/demo/load.ts";
import { driverSink } from "../lib/ingest/driver-sink.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { DEFAULT_RETRY, type EventSink } from "../lib/ingest/sink.ts";
import { describeLocation, storeConfigFromEnv } from "../lib/store/config.ts";
import { StoreLockedError } from "../lib/store/data-dir-lock.ts";
import { processQueueStep, queuedKeys } from "../lib/diagnosis-queue/queue.ts";
import { openStore, type Store } from "../lib/store/open.ts";

const USAGE = "usage: npm run demo [-- --server URL --token T --scale N --seed S]";

function options() {
  try {
    return parseArgs({
      options: {
        server: { type: "string" },
        token: { type: "string", default: process.env.DUPSCOPE_INGEST_TOKEN },
        scale: { type: "string", default: "1" },
        seed: { type: "string" },
      },
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
}

const values = options();

const scale = Number(values.scale);
if (!(scale > 0)) {
  console.error("--scale must be a positive number (1 = the full demo day)");
  process.exit(2);
}
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isSafeInteger(seed)) {
  console.error("--seed must be a whole number");
  process.exit(2);
}

const tty = Boolean(process.stderr.isTTY);
const count = (n: number) => n.toLocaleString("en-US");
let lineOpen = false;

/** One progress line, rewritten in place on a terminal; in a log, only lines that start a new stage. */
function progress(line: string, newStage: boolean): void {
  if (tty) {
    process.stderr.write(`\r\x1b[2K${line}`);
    lineOpen = true;
  } else if (newStage) console.error(line);
}

function endProgress(): void {
  if (lineOpen) process.stderr.write("\n");
  lineOpen = false;
}

interface Target {
  sink: EventSink;
  /** Present when this process opened the store, and so also diagnoses what it loaded. */
  store?: Store;
  /** What to open once the day is in. */
  next: string;
}

/**
 * The server's own store must be empty too: demo keys and hosts mixed into real events would read as duplicates
 * and rebalances of them. The server answers that on GET /api/v1/demo.
 */
async function checkServerEmpty(server: string): Promise<void> {
  const url = new URL("/api/v1/demo", server);
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`cannot reach ${server}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`);
  }
  if (response.status === 401) {
    throw new Error(
      `${server} asks for a sign-in (DUPSCOPE_PASSWORD), so this script cannot check that its store is empty; ` +
        "sign in and load the demo from the overview page, which offers it on an empty store",
    );
  }
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const state = (await response.json()) as { job: { state: string }; storeEmpty?: boolean };
  if (state.job.state === "loading") throw new Error(`${server} is already loading the demo day (started from its overview page)`);
  if (state.storeEmpty !== true) {
    throw new Error(`the store of ${server} already holds events: the demo day goes only into an empty store (start a server on an empty one)`);
  }
}

async function overHttp(server: string): Promise<Target> {
  await checkServerEmpty(server);
  const sink = httpSink(server, {
    ...(values.token ? { token: values.token } : {}),
    retry: { ...DEFAULT_RETRY, giveUpAfterMs: 30_000, onRetry: (n, delay, error) => console.error(`retry ${n} in ${Math.round(delay)} ms: ${error instanceof Error ? error.message : String(error)}`) },
  });
  console.error(`loading a simulated day into the server at ${server}…`);
  return { sink, next: `the server diagnoses the keys in the background; open ${server}` };
}

async function openTarget(): Promise<Target> {
  if (values.server) return overHttp(values.server);
  const config = storeConfigFromEnv();
  let store: Store;
  try {
    store = await openStore(config, { log: (message) => console.error(message) });
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    const server = process.env.DUPSCOPE_SERVER ?? `http://localhost:${process.env.PORT ?? 3000}`;
    console.error(`${error.message}\nsending the demo to the server at ${server} instead (--server picks another).`);
    return overHttp(server);
  }
  const [row] = await store.driver.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM events) AS any`);
  if (row?.any) {
    await store.close();
    // The demo's keys and hosts would mix with what is there and read as duplicates and rebalances of it.
    const elsewhere = config.mode === "postgres" ? "point DATABASE_URL at an empty database" : "set DUPSCOPE_DATA_DIR to an empty directory";
    throw new Error(`the ${config.mode} store ${describeLocation(config)} already holds events: the demo day goes only into an empty store (${elsewhere})`);
  }
  console.error(`loading a simulated day into the ${config.mode} store ${describeLocation(config)}…`);
  const start = config.mode === "postgres" ? "npm start with the same DATABASE_URL" : "npm start";
  return { sink: driverSink(store.driver), store, next: `to see it: ${start}, then open http://localhost:${process.env.PORT ?? 3000}` };
}

/** Drains the diagnosis queue the load filled, as the server's worker would, reporting the keys left. */
async function diagnose(store: Store): Promise<number> {
  let diagnosed = 0;
  progress("diagnosing…", true);
  for (;;) {
    const step = await processQueueStep(store.driver);
    diagnosed += step.keysDiagnosed + step.keysSettled;
    if (step.keysDiagnosed === 0 && step.marksExpanded === 0 && step.journalFolded === 0) return diagnosed;
    progress(`diagnosing: ${count(diagnosed)} keys done, ${count(await queuedKeys(store.driver))} left`, false);
  }
}

let target: Target | undefined;
try {
  target = await openTarget();
  let lastRun = 0;
  const result = await loadDemoDay({
    now: Date.now(),
    scale,
    ...(seed === undefined ? {} : { seed }),
    sink: target.sink,
    onProgress: (p) => {
      progress(`run ${p.run}/${p.runs}, file ${p.fileInRun}/${p.filesInRun} (${p.file}): ${count(p.accepted)} events stored`, p.run !== lastRun);
      lastRun = p.run;
    },
  });
  endProgress();
  const keys = result.runs.reduce((n, r) => n + r.keys, 0);
  const duplicates = result.runs.reduce((n, r) => n + r.truth.duplicates.length, 0);
  console.error(
    `loaded in ${(result.elapsedMs / 1000).toFixed(1)} s: ${result.runs.length} runs, ${result.files} files, ${count(result.lines)} lines, ` +
      `${count(result.accepted)} events stored (${count(result.alreadyStored)} already there), ${result.rejected} rejected; ` +
      `${count(keys)} keys, ${count(duplicates)} duplicates planned.`,
  );
  if (target.store) {
    const started = Date.now();
    const diagnosed = await diagnose(target.store);
    endProgress();
    console.error(`diagnosed ${count(diagnosed)} keys in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
  console.error(target.next);
} catch (error) {
  endProgress();
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await target?.sink.close();
  await target?.store?.close();
}
