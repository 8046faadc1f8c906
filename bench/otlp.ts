// npm run bench:otlp [-- --spans N] [--concurrency C] [--keep] — N Kafka messaging spans (default 100,000) made
// by the real OpenTelemetry JS SDK and encoded by its own OTLP serializers, in 512-span requests as a
// BatchSpanProcessor exports them, POSTed as protobuf to /v1/traces on the built server (C in flight, default 4)
// into a fresh PostgreSQL database, next to the same requests as OTLP/JSON lines through `dupscope ingest` into
// another fresh one, measured in the same run. --keep leaves both databases.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { SpanKind, SpanStatusCode, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import pg from "pg";
import { decodeJson, decodeProtobuf } from "../collectors/otlp-traces/decode.ts";
import { mapSpans } from "../collectors/otlp-traces/map.ts";
import { FORMATS } from "../collectors/registry.ts";
import { ExportTraceServiceRequest, ExportTraceServiceResponse, Status } from "../collectors/otlp-traces/protocol.ts";
import type { DecodedRequest } from "../collectors/otlp-traces/spans.ts";
import { validateEvent } from "../lib/events/validate.ts";
import { Rng } from "../lib/simulator/random.ts";
import { toCopyRows } from "../lib/store/events-repo.ts";
import { openStore } from "../lib/store/open.ts";
import { jsonBody, protobufBody, SpanRecorder } from "../tests/helpers/otel.ts";
import { startServer } from "../tests/helpers/server.ts";
import { adminQuery, arg, databaseUrl, flag, fmt, loadAverage, runCli } from "./common.ts";
import { ms, printHeader, printRow, Timings } from "./timings.ts";

const SPANS = Number(arg("spans", "100000"));
const CONCURRENCY = Number(arg("concurrency", "4"));
const KEEP = flag("keep");
/** The OTel SDKs' BatchSpanProcessor default maxExportBatchSize: what one export request carries at most. */
const BATCH_SPANS = 512;
const TARGET_RATIO = 0.5;
const SEED = 1;
const TOKEN = "bench-otlp-token";
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const ROOT = path.join(import.meta.dirname, "..");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = { otlp: "dupscope_bench_otlp", cli: "dupscope_bench_otlp_cli" };
/** The CLI's name for OTLP/JSON files (one ExportTraceServiceRequest a line), read from the registry. */
const OTLP_FORMAT = FORMATS.find((f) => f.folder === "collectors/otlp-traces")!.name;


/** An empty database with the schema applied, so neither run pays for migrations inside its clock. */
async function freshDatabase(name: string): Promise<string> {
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await adminQuery(ADMIN_URL, `CREATE DATABASE "${name}"`);
  const url = databaseUrl(ADMIN_URL, name);
  const store = await openStore({ mode: "postgres", url });
  await store.close();
  return url;
}

async function countEvents(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM events");
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

// --------------------------------------------------------------------------------------------------- spans

/**
 * One instrumented JVM: the Java agent's kafka-clients instrumentation with the old (pre-1.26 stable) messaging
 * attribute names, which agents still emit unless OTEL_SEMCONV_STABILITY_OPT_IN=messaging.
 */
interface Instance {
  resource: Attributes;
  clientId: string;
  /** The spans its exporter has not sent yet: a new recorder after each request. */
  recorder: SpanRecorder;
}

interface Topic {
  name: string;
  partitions: number;
  producers: Instance[];
  /** Consumer group → its members; partition p is owned by member p % members. */
  groups: { name: string; members: Instance[] }[];
  key: (n: number) => string;
}

const SCOPE = "io.opentelemetry.kafka-clients-0.11";

function instances(service: string, count: number, rng: Rng, role: "producer" | "consumer"): Instance[] {
  return Array.from({ length: count }, (_, i) => {
    const resource: Attributes = {
      "service.name": service,
      "service.version": "3.4.1",
      "service.instance.id": `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`,
      "deployment.environment": "prod",
      "host.name": `${service}-7c9d${rng.hex(4)}-${rng.hex(5)}`,
      "host.arch": "amd64",
      "os.type": "linux",
      "process.pid": rng.int(1, 32_000),
      "process.runtime.name": "OpenJDK Runtime Environment",
      "process.runtime.version": "21.0.5+11-LTS",
      "telemetry.sdk.language": "java",
      "telemetry.sdk.name": "opentelemetry",
      "telemetry.sdk.version": "1.44.1",
      "telemetry.distro.name": "opentelemetry-java-instrumentation",
      "telemetry.distro.version": "2.10.0",
    };
    return { resource, clientId: `${role}-${service}-${i + 1}`, recorder: new SpanRecorder(resource, SCOPE) };
  });
}

interface Generated {
  /** 512-span protobuf requests, in the order the exporters sent them. */
  protobuf: Uint8Array[];
  /** The same requests as OTLP/JSON, one per line. */
  ndjsonFile: string;
  ndjsonBytes: number;
  largestLine: number;
  spans: number;
  sends: number;
  processes: number;
  redeliveries: number;
  instances: number;
}

/**
 * Kafka traffic of a small shop: checkout publishes orders (read by billing and fulfilment), inventory publishes
 * stock updates (read by warehouse); 2% of records are processed a second time by their group after a rebalance,
 * 1% of processings fail. Each instance's spans leave in 512-span requests, as its BatchSpanProcessor sends them.
 */
function generate(spanCount: number, dir: string): Generated {
  const rng = new Rng(SEED).fork("bench-otlp");
  const checkout = instances("checkout", 3, rng, "producer");
  const inventory = instances("inventory", 2, rng, "producer");
  const billing = instances("billing", 4, rng, "consumer");
  const fulfilment = instances("fulfilment", 2, rng, "consumer");
  const warehouse = instances("warehouse", 2, rng, "consumer");
  const all = [...checkout, ...inventory, ...billing, ...fulfilment, ...warehouse];
  const topics: Topic[] = [
    { name: "orders", partitions: 12, producers: checkout, groups: [{ name: "billing", members: billing }, { name: "fulfilment", members: fulfilment }], key: (n) => `ORD-${String(n).padStart(9, "0")}` },
    { name: "stock-updates", partitions: 6, producers: inventory, groups: [{ name: "warehouse", members: warehouse }], key: (n) => `SKU-${rng.int(10_000, 99_999)}` },
  ];
  const offsets = new Map<string, number>();
  const ndjsonFile = path.join(dir, "spans.otlp.ndjson");
  const fd = openSync(ndjsonFile, "w");
  const out: Generated = { protobuf: [], ndjsonFile, ndjsonBytes: 0, largestLine: 0, spans: 0, sends: 0, processes: 0, redeliveries: 0, instances: all.length };

  const flush = (instance: Instance) => {
    const spans = instance.recorder.spans();
    if (spans.length === 0) return;
    out.protobuf.push(protobufBody(spans));
    const written = writeSync(fd, `${jsonBody(spans)}\n`);
    out.ndjsonBytes += written;
    out.largestLine = Math.max(out.largestLine, written - 1);
    instance.recorder = new SpanRecorder(instance.resource, SCOPE);
  };
  const record = (instance: Instance, spec: Parameters<SpanRecorder["span"]>[0]): ReadableSpan => {
    const span = instance.recorder.span(spec);
    out.spans++;
    if (instance.recorder.spans().length >= BATCH_SPANS) flush(instance);
    return span;
  };

  let now = T0;
  for (let n = 1; out.spans < spanCount; n++) {
    now += rng.int(0, 6);
    const topic = rng.chance(0.8) ? topics[0]! : topics[1]!;
    const producer = topic.producers[rng.int(0, topic.producers.length - 1)]!;
    const partition = rng.int(0, topic.partitions - 1);
    const queue = `${topic.name}-${partition}`;
    const offset = offsets.get(queue) ?? rng.int(1_000_000, 9_000_000);
    offsets.set(queue, offset + 1);
    const key = topic.key(n);
    const record_ = {
      "messaging.system": "kafka",
      "messaging.destination.name": topic.name,
      "messaging.destination.partition.id": String(partition),
      "messaging.kafka.message.offset": offset,
      "messaging.kafka.message.key": key,
    };
    const sent = now + rng.int(1, 4);
    const send = record(producer, {
      name: `${topic.name} publish`,
      kind: SpanKind.PRODUCER,
      start: now,
      end: sent,
      attributes: { ...record_, "messaging.operation": "publish", "messaging.client_id": producer.clientId, "thread.name": "kafka-producer-network-thread", "thread.id": 31 },
    });
    out.sends++;
    for (const group of topic.groups) {
      if (out.spans >= spanCount) break;
      const times = rng.chance(0.02) ? 2 : 1;
      for (let attempt = 0; attempt < times && out.spans < spanCount; attempt++) {
        // A redelivery is handled by the partition's next owner, after the rebalance that moved it.
        const member = group.members[(partition + attempt) % group.members.length]!;
        const start = sent + rng.int(2, 40) + attempt * rng.int(10_000, 45_000);
        const failed = rng.chance(0.01);
        record(member, {
          name: `${topic.name} process`,
          kind: SpanKind.CONSUMER,
          start,
          end: start + rng.int(1, 30),
          parent: send,
          attributes: {
            ...record_,
            "messaging.operation": "process",
            "messaging.kafka.consumer.group": group.name,
            "messaging.client_id": `${member.clientId}-${group.name}`,
            "messaging.message.body.size": rng.int(180, 2_400),
            "thread.name": `${group.name}-listener-0-C-1`,
            "thread.id": 47,
          },
          ...(failed ? { status: { code: SpanStatusCode.ERROR, message: "org.springframework.dao.QueryTimeoutException: query timed out" } } : {}),
        });
        out.processes++;
        if (attempt > 0) out.redeliveries++;
      }
    }
  }
  for (const instance of all) flush(instance);
  closeSync(fd);
  return out;
}

// ------------------------------------------------------------------------------------------ in process

interface Breakdown {
  events: number;
  pbDecode: number;
  pbToObject: number;
  jsonDecode: number;
  map: number;
  validate: number;
  copyRows: number;
}

/**
 * The receiver's steps on the same requests, one after another in this process with no HTTP and no database:
 * where a request's CPU goes. Also gives the events the spans map to, which both runs must store.
 */
function inProcess(bodies: Uint8Array[], ndjsonFile: string): Breakdown {
  const b: Breakdown = { events: 0, pbDecode: 0, pbToObject: 0, jsonDecode: 0, map: 0, validate: 0, copyRows: 0 };
  for (const body of bodies) {
    let t = performance.now();
    ExportTraceServiceRequest.decode(body);
    b.pbDecode += performance.now() - t;
    t = performance.now();
    const decoded = decodeProtobuf(body);
    b.pbToObject += performance.now() - t;
    t = performance.now();
    const mapped = mapSpans(decoded.spans);
    b.map += performance.now() - t;
    t = performance.now();
    const valid = mapped.events.flatMap((e) => {
      const checked = validateEvent(e);
      return checked.ok ? [checked.event] : [];
    });
    b.validate += performance.now() - t;
    t = performance.now();
    toCopyRows(valid);
    b.copyRows += performance.now() - t;
    if (decoded.rejected.length > 0 || valid.length !== mapped.events.length || mapped.refused.length > 0) {
      throw new Error(`the generated spans do not all map cleanly: ${decoded.rejected.length} unreadable, ${mapped.events.length - valid.length} invalid, ${mapped.refused.length} keyless`);
    }
    b.events += valid.length;
  }
  // decodeProtobuf includes protobufjs' decode: its own share is timed separately above.
  b.pbToObject -= b.pbDecode;
  const lines = readNdjson(ndjsonFile);
  const t = performance.now();
  let fromJson = 0;
  for (const line of lines) fromJson += decodeJson(line).spans.length;
  b.jsonDecode = performance.now() - t;
  void fromJson;
  return b;
}

function readNdjson(file: string): string[] {
  // Whole, as the file is ~1 KB a span; the CLI reads it streaming.
  return readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
}

// -------------------------------------------------------------------------------------------- the runs

interface RunResult {
  spans: number;
  events: number;
  ms: number;
}

function post(agent: http.Agent, url: URL, body: Uint8Array): Promise<{ status: number; stored: number; retryAfterS: number | null; response: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/x-protobuf", "content-length": body.length, authorization: `Bearer ${TOKEN}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const retryAfter = Number(response.headers["retry-after"]);
          resolve({
            status: response.statusCode ?? 0,
            stored: Number(response.headers["x-dupscope-events-stored"] ?? NaN),
            retryAfterS: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null,
            response: Buffer.concat(chunks),
          });
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

interface OtlpRunResult extends RunResult {
  stored: number;
  startMs: number;
  /** Requests sent again after a retryable answer (429, 502, 503, 504). */
  retries: number;
  /** Requests dropped, as an exporter drops them: a non-retryable answer, or still failing after 5 retries. */
  lost: number;
  /** Every non-200 answer, by status and message. */
  failures: Map<string, number>;
  /** The server's error log lines, by message: why the 500s. */
  serverErrors: Map<string, number>;
}

/** The server logs pino JSON lines: errors (level ≥ 50) by their error's message. */
function serverErrors(output: string): Map<string, number> {
  const errors = new Map<string, number>();
  for (const line of output.split("\n")) {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string; code?: string } };
      if ((entry.level ?? 0) < 50) continue;
      const what = `${entry.msg ?? ""}: ${entry.err?.message ?? ""}${entry.err?.code ? ` (${entry.err.code})` : ""}`;
      errors.set(what, (errors.get(what) ?? 0) + 1);
    } catch {
      // Not a log line.
    }
  }
  return errors;
}

const RETRYABLE = new Set([429, 502, 503, 504]);

function statusMessage(body: Buffer): string {
  try {
    return String((Status.toObject(Status.decode(body)) as { message?: string }).message ?? "");
  } catch {
    return body.toString("utf8").slice(0, 200);
  }
}

async function otlpRun(url: string, g: Generated, latency: Timings): Promise<OtlpRunResult> {
  console.log(`starting next start with DUPSCOPE_DIAGNOSIS_INTERVAL_MS=0 (the diagnosis worker stays out of the measurement) …`);
  process.chdir(ROOT);
  const startedAt = performance.now();
  const server = await startServer({ DATABASE_URL: url, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "0", DUPSCOPE_INGEST_TOKEN: TOKEN });
  const startMs = performance.now() - startedAt;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const endpoint = new URL("/v1/traces", server.url);
  try {
    // An empty request loads the route and opens the store without storing anything.
    const empty = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.create({})).finish();
    for (let i = 0; i < CONCURRENCY; i++) {
      const warm = await post(agent, endpoint, empty);
      if (warm.status !== 200) throw new Error(`warm-up POST /v1/traces: ${warm.status} ${warm.response.toString("utf8").slice(0, 300)}`);
    }
    console.log(`POSTing ${fmt(g.protobuf.length)} protobuf requests, ${CONCURRENCY} in flight (${loadAverage()}) …`);
    let next = 0;
    let stored = 0;
    let retries = 0;
    let lost = 0;
    const failures = new Map<string, number>();
    const started = performance.now();
    const worker = async () => {
      while (next < g.protobuf.length) {
        const body = g.protobuf[next++]!;
        for (let attempt = 0; ; attempt++) {
          const t = performance.now();
          const answer = await post(agent, endpoint, body);
          latency.add(performance.now() - t);
          if (answer.status === 200) {
            const response = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(answer.response)) as { partialSuccess?: unknown };
            if (response.partialSuccess) throw new Error(`POST /v1/traces: partial success ${JSON.stringify(response.partialSuccess)}`);
            stored += answer.stored;
            break;
          }
          const failure = `${answer.status} ${statusMessage(answer.response)}`;
          failures.set(failure, (failures.get(failure) ?? 0) + 1);
          // What an OTLP/HTTP exporter does: retry 429, 502, 503 and 504 after Retry-After (else a backoff), drop the rest.
          if (!RETRYABLE.has(answer.status) || attempt >= 5) {
            lost++;
            break;
          }
          retries++;
          await new Promise((resolve) => setTimeout(resolve, answer.retryAfterS !== null ? answer.retryAfterS * 1000 : 2 ** attempt * 1000));
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const elapsed = performance.now() - started;
    return { spans: g.spans, events: await countEvents(url), ms: elapsed, stored, startMs, retries, lost, failures, serverErrors: serverErrors(server.output()) };
  } finally {
    agent.destroy();
    await server.stop();
  }
}


async function cliRun(url: string, g: Generated, dir: string): Promise<RunResult & { accepted: number; startupMs: number; rssKb: number }> {
  // The CLI's start-up (Node, tsx, the store's connection) on an empty file, to read beside its rate.
  const emptyFile = path.join(dir, "empty.otlp.ndjson");
  writeFileSync(emptyFile, "");
  const startup = await runCli(["ingest", "--format", OTLP_FORMAT, "--database", url, emptyFile]);
  console.log(`dupscope ingest --format ${OTLP_FORMAT} of ${fmt(g.ndjsonBytes / 1024 / 1024)} MB (${loadAverage()}) …`);
  const { summary, ms: elapsed } = await runCli(["ingest", "--format", OTLP_FORMAT, "--database", url, g.ndjsonFile]);
  if (summary.rejected > 0) console.log(`warning: the CLI rejected ${summary.rejected}`);
  return { spans: g.spans, events: await countEvents(url), ms: elapsed, accepted: summary.accepted, startupMs: startup.ms, rssKb: summary.maxRssKb };
}

// ------------------------------------------------------------------------------------------------- main

/** Builds the app when the sources are newer than .next (scripts/build-freshness.mjs), as `npm start` and `npm test` do. */
function ensureBuild(): void {
  const script = 'const { buildIsFresh } = await import("./scripts/build-freshness.mjs"); if (!buildIsFresh()) { console.log("building the app (sources changed since the last build) …"); (await import("./scripts/next.mjs")).buildSync(); }';
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit", cwd: ROOT });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const rate = (n: number, millis: number) => n / (millis / 1000);

ensureBuild();
const dir = mkdtempSync(path.join(tmpdir(), "dupscope-bench-otlp-"));
const benchStarted = performance.now();
try {
  console.log(`generating ${fmt(SPANS)} spans with the OpenTelemetry JS SDK, ${BATCH_SPANS} per request …`);
  let t = performance.now();
  const g = generate(SPANS, dir);
  const pbBytes = g.protobuf.reduce((s, b) => s + b.length, 0);
  console.log(
    `  ${fmt(g.sends)} send + ${fmt(g.processes)} process spans (${fmt(g.redeliveries)} redeliveries) from ${g.instances} instances in ${fmt(g.protobuf.length)} requests ` +
      `(${(pbBytes / 1024 / 1024).toFixed(1)} MB protobuf, ${(g.ndjsonBytes / 1024 / 1024).toFixed(1)} MB OTLP/JSON, largest line ${fmt(g.largestLine / 1024)} KB) ` +
      `in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  const steps = inProcess(g.protobuf, g.ndjsonFile);
  console.log(`  they map to ${fmt(steps.events)} events (in-process check, ${((performance.now() - t) / 1000).toFixed(1)} s)`);

  const otlpUrl = await freshDatabase(DB.otlp);
  const latency = new Timings();
  const otlp = await otlpRun(otlpUrl, g, latency);
  const cliUrl = await freshDatabase(DB.cli);
  const cli = await cliRun(cliUrl, g, dir);

  const ratio = rate(otlp.spans, otlp.ms) / rate(cli.spans, cli.ms);
  const row = (label: string, r: RunResult) =>
    console.log(
      `${label.padEnd(44)}${fmt(r.spans).padStart(10)}${fmt(r.events).padStart(10)}${(r.ms / 1000).toFixed(2).padStart(9)}${fmt(rate(r.spans, r.ms)).padStart(10)}${fmt(rate(r.events, r.ms)).padStart(10)}`,
    );
  console.log("");
  console.log(`measured (${loadAverage()}; the server, PostgreSQL and the CLI share the machine's cores)`);
  console.log(`${"".padEnd(44)}${"spans".padStart(10)}${"events".padStart(10)}${"seconds".padStart(9)}${"spans/s".padStart(10)}${"events/s".padStart(10)}`);
  row(`POST /v1/traces, protobuf, ${CONCURRENCY} in flight`, otlp);
  row(`dupscope ingest --format ${OTLP_FORMAT} (CLI)`, cli);
  console.log(
    `(events: rows in each database after the run, expected ${fmt(steps.events)}; the receiver reported ${fmt(otlp.stored)} stored, the CLI ${fmt(cli.accepted)}; ` +
      `the CLI's time includes its start-up, ${ms(cli.startupMs)} ms on an empty file; peak RSS ${fmt(cli.rssKb / 1024)} MB)`,
  );
  console.log("");
  printHeader(`POST latency, ${fmt(latency.values.length)} requests of ≤ ${BATCH_SPANS} spans (ms)`);
  printRow("POST /v1/traces, to the last byte of the answer", latency);
  console.log("");
  const perSpan = (millis: number) => `${fmt(millis).padStart(8)} ms ${fmt(rate(g.spans, millis)).padStart(11)} spans/s`;
  console.log("the same requests in this process, one step at a time (no HTTP, no database):");
  console.log(`  protobufjs decode                      ${perSpan(steps.pbDecode)}`);
  console.log(`  toObject + walk to OtlpSpan            ${perSpan(steps.pbToObject)}`);
  console.log(`  mapSpans                               ${perSpan(steps.map)}`);
  console.log(`  validateEvent (zod), receiver only     ${perSpan(steps.validate)}`);
  console.log(`  toCopyRows                             ${perSpan(steps.copyRows)}`);
  console.log(`  OTLP/JSON decode (the CLI's parse)     ${perSpan(steps.jsonDecode)}`);
  console.log("");
  if (otlp.failures.size > 0) {
    console.log(`POST /v1/traces answered ${[...otlp.failures].map(([what, n]) => `${n}× ${what}`).join("; ")}`);
    console.log(`  ${otlp.retries} requests retried, ${otlp.lost} dropped (as an OTLP exporter does: 500 and 4xx other than 429 are not retried)`);
    for (const [what, n] of otlp.serverErrors) console.log(`  server log: ${n}× ${what}`);
    console.log("");
  }
  const counted = otlp.lost === 0 && otlp.events === steps.events && cli.events === steps.events;
  const speed = `POST /v1/traces ${fmt(rate(otlp.spans, otlp.ms))} spans/s = ${ratio.toFixed(2)}× the CLI's ${fmt(rate(cli.spans, cli.ms))} spans/s (target ≥ ${TARGET_RATIO.toFixed(2)}×)`;
  if (!counted) {
    console.log(
      `FAIL: not every span was stored: ${fmt(steps.events)} events expected, OTLP stored ${fmt(otlp.events)} (${otlp.lost} of ${fmt(g.protobuf.length)} requests refused), ` +
        `the CLI ${fmt(cli.events)}; the speed, for what it is worth: ${speed}`,
    );
  } else console.log(`${ratio >= TARGET_RATIO ? "PASS" : "FAIL"}: ${speed}`);
  console.log(`(whole bench ${((performance.now() - benchStarted) / 1000).toFixed(0)} s; server start-up ${ms(otlp.startMs)} ms, outside the clock)`);
  if (!counted || ratio < TARGET_RATIO) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (KEEP) console.log(`kept ${DB.otlp} and ${DB.cli}: ${databaseUrl(ADMIN_URL, DB.otlp)}, ${databaseUrl(ADMIN_URL, DB.cli)}`);
  else {
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DB.otlp}" WITH (FORCE)`);
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS "${DB.cli}" WITH (FORCE)`);
  }
}
