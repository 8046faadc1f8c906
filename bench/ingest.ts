// npm run bench:ingest [-- --events N] — end-to-end ingest through the real CLI into PostgreSQL, next to a raw
// COPY of the same normalized rows into the same indexed table, measured in the same run.
import { closeSync, createReadStream, createWriteStream, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { findFormat } from "../collectors/registry.ts";
import { readLines } from "../lib/ingest/line-reader.ts";
import { openStore } from "../lib/store/open.ts";
import { eventCopyLine, EVENT_COLUMNS } from "../lib/store/copy-text.ts";
import { ensureEventPartitions, minuteOf } from "../lib/store/partitions.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { adminQuery, arg, databaseUrl, fmt, runCli } from "./common.ts";
import { generateInput } from "./generate.ts";

const EVENTS = Number(arg("events", "1000000"));
/** Issue 16: the CLI within 10% of the bare COPY of its rows. */
const TARGET_RATIO = 0.9;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = databaseUrl(ADMIN_URL, name);
  const store = await openStore({ mode: "postgres", url });
  await store.close();
  return url;
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

/**
 * Both clocks start from the same state: the files just written are on disk and PostgreSQL has written out its
 * dirty pages. Otherwise the kernel flushing a freshly written input, or a checkpoint the fresh database's
 * migrations made due, lands inside whichever run comes first (the CLI's measured 12–17 s for the same input).
 */
async function settle(url: string, files: string[]): Promise<void> {
  for (const file of files) {
    const fd = openSync(file, "r");
    fsyncSync(fd);
    closeSync(fd);
  }
  await adminQuery(url, "CHECKPOINT");
}

async function* copyRows(files: { file: string; format: string; instance?: string }[]): AsyncGenerator<string> {
  for (const { file, format, instance } of files) {
    const collector = findFormat(format)!;
    const ctx = { source: `${format}:${path.resolve(file)}`, ...(instance ? { instance } : {}) };
    let chunk = "";
    const parser = collector.open(ctx);
    for await (const raw of readLines(createReadStream(file))) {
      if ("problem" in raw) continue;
      for (const event of parser.line(raw.text, raw.lineNo).events) chunk += eventCopyLine(event);
      if (chunk.length > 1 << 20) {
        yield chunk;
        chunk = "";
      }
    }
    for (const event of parser.end().events) chunk += eventCopyLine(event);
    if (chunk) yield chunk;
  }
}

async function rawCopy(url: string, files: { file: string; format: string; instance?: string }[], dir: string, range: { from: number; to: number }): Promise<{ rows: number; ms: number }> {
  // The rows are written to a file before the clock starts, so only the database's COPY is timed, and a 1 GB
  // input never has to fit in this process's memory.
  const rowsFile = path.join(dir, "rows.copy");
  await pipeline(Readable.from(copyRows(files)), createWriteStream(rowsFile));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The partitions the rows fall in, made before the clock starts: the CLI's writer makes them as it goes.
  const writer = await openPgWriter(url);
  await ensureEventPartitions(writer, Array.from({ length: minuteOf(range.to) - minuteOf(range.from) + 1 }, (_, i) => minuteOf(range.from) + i));
  await writer.close();
  await settle(url, [rowsFile]);
  const started = performance.now();
  const stream = client.query(copyFrom(`COPY events (${EVENT_COLUMNS.join(", ")}) FROM STDIN`));
  await pipeline(createReadStream(rowsFile, { highWaterMark: 1024 * 1024 }), stream);
  const ms = performance.now() - started;
  const rows = Number(stream.rowCount);
  await client.end();
  rmSync(rowsFile);
  return { rows, ms };
}


const dir = mkdtempSync(path.join(tmpdir(), "dupscope-bench-"));
try {
  console.log(`generating ~${fmt(EVENTS)} events in ${dir} …`);
  const input = await generateInput(dir, EVENTS);
  const bytes = statSync(input.traceFile).size + statSync(input.clientLogFile).size;
  console.log(`input: ${(bytes / 1024 / 1024).toFixed(1)} MB, ${fmt(input.expectedEvents)} events expected`);
  const files = [
    { file: input.traceFile, format: "rocketmq-trace" },
    { file: input.clientLogFile, format: "rocketmq-client-log", instance: "10.0.1.10@7001" },
  ];

  const cliUrl = await freshDatabase("dupscope_bench_cli");
  await settle(cliUrl, files.map((f) => f.file));
  let cliMs = 0;
  let cliEvents = 0;
  let peakRssKb = 0;
  for (const f of files) {
    const { summary, ms } = await runCli(["ingest", "--format", f.format, ...(f.instance ? ["--instance", f.instance] : []), "--database", cliUrl, f.file]);
    cliMs += ms;
    console.log(`  ${f.format}: ${fmt(summary.accepted)} events in ${(ms / 1000).toFixed(2)} s (the pipeline's own clock: ${(summary.elapsedMs / 1000).toFixed(2)} s)`);
    cliEvents += summary.accepted;
    peakRssKb = Math.max(peakRssKb, summary.maxRssKb);
    if (summary.rejected > 0) console.log(`warning: ${summary.rejected} rejected in ${f.file}`);
  }
  console.log(`dupscope ingest done: ${fmt(cliEvents)} events in ${(cliMs / 1000).toFixed(1)} s, peak RSS ${(peakRssKb / 1024).toFixed(0)} MB; now the raw COPY …`);
  const copyUrl = await freshDatabase("dupscope_bench_copy");
  const copy = await rawCopy(copyUrl, files, dir, input);

  const cliRate = cliEvents / (cliMs / 1000);
  const copyRate = copy.rows / (copy.ms / 1000);
  console.log("");
  console.log(`dupscope ingest (CLI → PostgreSQL): ${fmt(cliEvents)} events in ${(cliMs / 1000).toFixed(1)} s = ${fmt(cliRate)} events/s, peak RSS ${(peakRssKb / 1024).toFixed(0)} MB`);
  console.log(`raw COPY of the same rows:          ${fmt(copy.rows)} rows in ${(copy.ms / 1000).toFixed(1)} s = ${fmt(copyRate)} rows/s`);
  const ratio = cliRate / copyRate;
  console.log(`${ratio >= TARGET_RATIO ? "PASS" : "FAIL"}: ratio ingest / COPY ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO.toFixed(2)})`);
  await dropDatabase("dupscope_bench_cli");
  await dropDatabase("dupscope_bench_copy");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
