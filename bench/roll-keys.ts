// npm run bench:roll-keys -- [--keys 1000] [--steps 5] [--runs 6] [--database NAME]
//
// The rollup trigger of key_diagnoses (dupscope_roll_keys), as the worker's save pays it: --steps saves of --keys new
// keys each (bench:soak's orders, diagnosed once), timed with the function the migrations define now and, in the same
// process and database, with the one they defined first (prisma/migrations/20261130140000_rollups), alternated --runs
// times. Printed: the median and range of a save's ms with each, and whether both left the same rollups.
import { readFileSync } from "node:fs";
import path from "node:path";
import { diagnoseKeys, saveDiagnoses, type DiagnosedKey } from "../lib/diagnosis-queue/queue.ts";
import type { SqlDriver } from "../lib/store/driver.ts";
import { insertCopyRows, toCopyRows } from "../lib/store/events-repo.ts";
import { foldJournal } from "../lib/store/ingest-journal.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { adminQuery, arg, databaseUrl, loadAverage } from "./common.ts";
import { Stream } from "./stream.ts";

const KEYS = Number(arg("keys", "1000"));
const STEPS = Number(arg("steps", "5"));
const RUNS = Number(arg("runs", "6"));
const DATABASE = arg("database", "dupscope_bench_roll_keys");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
for (const [name, value] of [["keys", KEYS], ["steps", STEPS], ["runs", RUNS]] as const) {
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a whole number above 0, got ${value}`);
    process.exit(2);
  }
}

/** The function's first definition, as CREATE OR REPLACE: the baseline. */
function firstDefinition(): string {
  const sql = readFileSync(path.join(import.meta.dirname, "..", "prisma", "migrations", "20261130140000_rollups", "migration.sql"), "utf8");
  const found = /CREATE FUNCTION "dupscope_roll_keys"\("rows"[\s\S]*?\n\$\$;/.exec(sql);
  if (!found) throw new Error("dupscope_roll_keys not found in the rollups migration");
  return found[0].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION");
}

/** The definition the database holds now (the latest migration's). */
async function currentDefinition(driver: SqlDriver): Promise<string> {
  const [row] = await driver.query<{ def: string }>(`SELECT pg_get_functiondef('"dupscope_roll_keys"(key_diagnoses[], integer)'::regprocedure) AS def`);
  return row!.def;
}

async function saveMs(driver: SqlDriver, steps: DiagnosedKey[][]): Promise<number[]> {
  const times: number[] = [];
  for (const step of steps) {
    const keys = step.map((s) => s.input.bizKey);
    await driver.run(`DELETE FROM verdicts WHERE biz_key = ANY($1::text[])`, [keys]);
    await driver.run(`DELETE FROM key_diagnoses WHERE biz_key = ANY($1::text[])`, [keys]);
    const started = performance.now();
    await saveDiagnoses(driver, step);
    times.push(performance.now() - started);
  }
  return times;
}

const rollups = (driver: SqlDriver) =>
  driver.query(`SELECT minute, scope, group_name, topic, keys, lost FROM key_rollups WHERE keys <> 0 OR lost <> 0 ORDER BY 1, 2, 3, 4`).then(JSON.stringify);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const url = databaseUrl(ADMIN_URL, DATABASE);
await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
await adminQuery(ADMIN_URL, `CREATE DATABASE "${DATABASE}"`);
const driver = await openPgWriter(url);
try {
  console.log(`bench:roll-keys — ${STEPS} saves of ${KEYS} new keys, each function ${RUNS}×; ${loadAverage()}`);
  const stream = new Stream();
  const orders = KEYS * STEPS;
  for (let done = 0; done < orders; done += 1000) await insertCopyRows(driver, toCopyRows(stream.orders(Math.min(1000, orders - done), Date.now() - 60_000)));
  while ((await foldJournal(driver)).rows > 0);
  // Every key of the stream, as a worker's save writes them (the fold settles most of them itself: plain-keys.ts).
  const keys = (await driver.query<{ biz_key: string }>(`SELECT DISTINCT biz_key FROM events WHERE biz_key IS NOT NULL ORDER BY biz_key`)).map((r) => r.biz_key);
  const steps: DiagnosedKey[][] = [];
  for (let i = 0; i < STEPS; i++) steps.push(await diagnoseKeys(driver, keys.slice(i * KEYS, (i + 1) * KEYS)));
  const definitions = { current: await currentDefinition(driver), first: firstDefinition() };
  const times: Record<keyof typeof definitions, number[]> = { current: [], first: [] };
  const left: Record<keyof typeof definitions, string> = { current: "", first: "" };
  // A first pass of each, untimed: plans and caches.
  for (const name of ["first", "current"] as const) {
    await driver.exec(definitions[name]);
    await saveMs(driver, steps);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const name of run % 2 === 0 ? (["first", "current"] as const) : (["current", "first"] as const)) {
      await driver.exec(definitions[name]);
      await driver.exec(`TRUNCATE key_rollups`);
      const ms = await saveMs(driver, steps);
      times[name].push(...ms);
      left[name] = await rollups(driver);
    }
  }
  const show = (ms: number[]) => `median ${median(ms).toFixed(1)}, ${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)} over ${ms.length} saves`;
  console.log(`save of ${KEYS} new keys, ms — baseline, the first dupscope_roll_keys: ${show(times.first)}`);
  console.log(`save of ${KEYS} new keys, ms — the current one:                      ${show(times.current)}`);
  console.log(`same rollups left by both: ${left.first === left.current ? "yes" : "NO"}; ${loadAverage()}`);
  if (left.first !== left.current) process.exitCode = 1;
} finally {
  await driver.close();
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
}
