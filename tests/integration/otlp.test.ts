import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ExportTraceServiceResponse, Status } from "../../collectors/otlp-traces/protocol.ts";
import type { KeyReport } from "../../lib/views/key-report.ts";
import { jsonBody, protobufBody, SpanRecorder } from "../helpers/otel.ts";
import { BROKER_URL, brokerProblems, deleteQueues, sleep, uniqueName } from "../helpers/rabbitmq.ts";
import { freePort, startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * POST /v1/traces on the built server: real OpenTelemetry clients (the JS SDK, the amqplib instrumentation and the
 * OTLP exporters, protobuf and JSON) in their own processes against the machine's RabbitMQ, then the diagnosis
 * of what they exported; and the receiver's answers to re-sent, malformed and unauthorised requests.
 */

const TOKEN = "otlp-test-token";
const CLIENT = path.join(import.meta.dirname, "..", "helpers", "otel-amqp-client.ts");
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

function runClient(server: RunningServer, encoding: "protobuf" | "json", ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLIENT, ...args], {
      env: { ...process.env, AMQP_URL: BROKER_URL, OTLP_TRACES_URL: `${server.url}/v1/traces`, OTLP_ENCODING: encoding, OTLP_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`otel-amqp-client ${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
}

async function keyReport(server: RunningServer, bizKey: string, deliveries: number): Promise<KeyReport> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(bizKey)}`);
    if (response.ok) {
      const report = (await response.json()) as KeyReport;
      if (report.deliveries.length >= deliveries) return report;
    }
    if (Date.now() > deadline) throw new Error(`${bizKey}: fewer than ${deliveries} deliveries after 15 s`);
    await sleep(200);
  }
}

function post(server: RunningServer, body: BodyInit, headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/v1/traces`, { method: "POST", body, headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
}

function kafkaBatch(offset: number) {
  const r = new SpanRecorder({ "service.name": "billing", "host.name": "h", "process.pid": 1 });
  r.span({
    name: "orders process",
    kind: SpanKind.CONSUMER,
    start: T0,
    end: T0 + 5,
    attributes: { "messaging.system": "kafka", "messaging.operation": "process", "messaging.destination.name": "orders", "messaging.destination.partition.id": "0", "messaging.kafka.message.offset": offset, "messaging.kafka.message.key": `K-${offset}`, "messaging.kafka.consumer.group": "billing" },
  });
  return r.spans();
}

// These stories need only a reachable broker. Skipped when there is none, unless RABBITMQ_URL says there must be
// one (CI names it), so a broker that stopped answering fails the run instead of thinning it.
const unreachable = (await brokerProblems()).filter((p) => p.startsWith("cannot connect") && !process.env.RABBITMQ_URL);

for (const backend of backends) {
  describe(`OTLP receiver on ${backend.name}`, () => {
    let server: RunningServer;
    let dispose: () => Promise<void>;
    let otlpPort = 0;
    const queues: string[] = [];

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      otlpPort = await freePort();
      server = await startServer({ ...created.env, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_OTLP_PORT: String(otlpPort) });
    });

    after(async () => {
      await server?.stop();
      await dispose?.();
      await deleteQueues(...queues).catch(() => {});
    });

    it("amqplib over OTLP protobuf: a worker that dies before its ack and the one that gets the redelivery is ack_lost", { skip: unreachable.length > 0 && unreachable.join("; ") }, async () => {
      const queue = uniqueName("otel-ack-lost");
      queues.push(queue);
      const msgId = `INV-${randomBytes(5).toString("hex")}`;
      await runClient(server, "protobuf", "publish", queue, msgId, "1");
      await runClient(server, "protobuf", "consume-dies", queue, msgId);
      await runClient(server, "protobuf", "consume-acks", queue, msgId, "1");
      const report = await keyReport(server, msgId, 2);
      assert.deepEqual(report.duplicates.map((d) => d.cause), ["ack_lost"], JSON.stringify(report.duplicates, null, 1));
      const lost = report.duplicates[0]!;
      assert.notEqual(lost.instances.first, lost.instances.second);
      assert.ok(lost.evidence.some((e) => e.code === "channel_lost"), lost.evidence.map((e) => e.code).join(", "));
      assert.ok(report.events.every((e) => e.source.startsWith("otlp-traces:")));
    });

    it("amqplib over OTLP JSON: one message id published twice is producer_retry", { skip: unreachable.length > 0 && unreachable.join("; ") }, async () => {
      const queue = uniqueName("otel-producer-retry");
      queues.push(queue);
      const msgId = `ORD-${randomBytes(5).toString("hex")}`;
      await runClient(server, "json", "publish", queue, msgId, "2");
      await runClient(server, "json", "consume-acks", queue, msgId, "2");
      const report = await keyReport(server, msgId, 2);
      assert.deepEqual(report.duplicates.map((d) => d.cause), ["producer_retry"], JSON.stringify(report.duplicates, null, 1));
      assert.ok(report.duplicates[0]!.evidence.some((e) => e.code === "stored_copies" && e.values.copies === 2));
      assert.equal(report.events.filter((e) => e.kind === "publish").length, 2);
    });

    it("spans posted by hand: one message id published twice after the first publish ended in error is producer_retry, with no parent or link on the process spans", async () => {
      const messageId = `PAY-${randomBytes(5).toString("hex")}`;
      const attributes = (op: "publish" | "process") => ({ "messaging.system": "rabbitmq", "messaging.operation": op, "messaging.destination.name": "payments", "messaging.rabbitmq.destination.routing_key": "pay", "messaging.message.id": messageId });
      const now = Date.now() - 60_000;
      const producer = new SpanRecorder({ "service.name": "checkout", "host.name": "node-1", "process.pid": 10 }, "io.opentelemetry.rabbitmq-2.7");
      producer.span({ name: "payments publish", kind: SpanKind.PRODUCER, start: now, end: now + 5_000, status: { code: SpanStatusCode.ERROR, message: "confirm timed out" }, attributes: attributes("publish") });
      producer.span({ name: "payments publish", kind: SpanKind.PRODUCER, start: now + 5_010, end: now + 5_014, attributes: attributes("publish") });
      const a = new SpanRecorder({ "service.name": "billing", "host.name": "node-2", "process.pid": 201 }, "io.opentelemetry.rabbitmq-2.7");
      a.span({ name: "payments process", kind: SpanKind.CONSUMER, start: now + 20, end: now + 45, attributes: attributes("process") });
      const b = new SpanRecorder({ "service.name": "billing", "host.name": "node-3", "process.pid": 202 }, "io.opentelemetry.rabbitmq-2.7");
      b.span({ name: "payments process", kind: SpanKind.CONSUMER, start: now + 5_030, end: now + 5_050, attributes: attributes("process") });
      const response = await post(server, Buffer.from(protobufBody([...producer.spans(), ...a.spans(), ...b.spans()])), { "content-type": "application/x-protobuf" });
      assert.equal(response.status, 200);
      const report = await keyReport(server, messageId, 2);
      assert.deepEqual(report.duplicates.map((d) => d.cause), ["producer_retry"], JSON.stringify(report.duplicates, null, 1));
      assert.ok(report.duplicates[0]!.evidence.some((e) => e.code === "send_failed_then_retried"));
    });

    it("takes OTLP on DUPSCOPE_OTLP_PORT too, with the same handler: token, answers, idempotent ids", async () => {
      const url = `http://127.0.0.1:${otlpPort}/v1/traces`;
      const spans = kafkaBatch(4318);
      const headers = { "content-type": "application/x-protobuf", authorization: `Bearer ${TOKEN}` };
      const stored = await fetch(url, { method: "POST", body: Buffer.from(protobufBody(spans)), headers });
      assert.equal(stored.status, 200);
      assert.equal(stored.headers.get("x-dupscope-events-stored"), "2");
      const onDashboard = await post(server, Buffer.from(protobufBody(spans)), { "content-type": "application/x-protobuf" });
      assert.equal(onDashboard.headers.get("x-dupscope-events-stored"), "0", "the same batch on the dashboard's port stores nothing new");
      const unauthorised = await fetch(url, { method: "POST", body: jsonBody(spans), headers: { "content-type": "application/json" } });
      assert.equal(unauthorised.status, 401);
      assert.equal(((await unauthorised.json()) as { code: number }).code, 16);
      assert.equal((await fetch(`http://127.0.0.1:${otlpPort}/`)).status, 404);
      assert.equal((await fetch(url)).status, 405);
    });

    it("stores nothing new when an exporter sends the same batch again, in either encoding", async () => {
      const spans = kafkaBatch(501);
      const first = await post(server, Buffer.from(protobufBody(spans)), { "content-type": "application/x-protobuf" });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("content-type"), "application/x-protobuf");
      assert.deepEqual(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(new Uint8Array(await first.arrayBuffer()))), {});
      assert.equal(first.headers.get("x-dupscope-events-stored"), "2");
      const again = await post(server, jsonBody(spans), { "content-type": "application/json" });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), {});
      assert.equal(again.headers.get("x-dupscope-events-stored"), "0");
      const gzipped = await post(server, gzipSync(protobufBody(spans)), { "content-type": "application/x-protobuf", "content-encoding": "gzip" });
      assert.equal(gzipped.status, 200);
      assert.equal(gzipped.headers.get("x-dupscope-events-stored"), "0");
    });

    it("answers a malformed body with 400 and a google.rpc.Status in its encoding, storing nothing of it", async () => {
      const good = JSON.parse(jsonBody(kafkaBatch(777))) as { resourceSpans: { scopeSpans: { spans: unknown }[] }[] };
      // A request whose spans list is broken after a good span: nothing of it may be stored.
      const broken = { resourceSpans: [...good.resourceSpans, { scopeSpans: { spans: 3 } }] };
      const json = await post(server, JSON.stringify(broken), { "content-type": "application/json" });
      assert.equal(json.status, 400);
      assert.equal(json.headers.get("content-type"), "application/json");
      const status = (await json.json()) as { code: number; message: string };
      assert.equal(status.code, 3);
      assert.match(status.message, /scopeSpans must be an array/);
      const protobuf = await post(server, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { "content-type": "application/x-protobuf" });
      assert.equal(protobuf.status, 400);
      assert.equal(protobuf.headers.get("content-type"), "application/x-protobuf");
      assert.match(Status.toObject(Status.decode(new Uint8Array(await protobuf.arrayBuffer()))).message as string, /protobuf/);
      const gzip = await post(server, Buffer.from("not gzip"), { "content-type": "application/x-protobuf", "content-encoding": "gzip" });
      assert.equal(gzip.status, 400);
      const response = await fetch(`${server.url}/api/v1/keys/K-777`);
      assert.equal(response.status, 404, "the good span of the broken request was not stored");
    });

    it("refuses a missing token (401), another media type (415), and says which spans it could not use", async () => {
      const spans = protobufBody(kafkaBatch(900));
      const anonymous = await fetch(`${server.url}/v1/traces`, { method: "POST", body: Buffer.from(spans), headers: { "content-type": "application/x-protobuf" } });
      assert.equal(anonymous.status, 401);
      assert.equal(Status.toObject(Status.decode(new Uint8Array(await anonymous.arrayBuffer()))).code, 16);
      const text = await post(server, "hello", { "content-type": "text/plain" });
      assert.equal(text.status, 415);
      const bad = {
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  { traceId: "5b8efff798038103d269b633813fc60c", spanId: "0000000000000000", name: "x", startTimeUnixNano: "1764489600000000000" },
                  {
                    traceId: "5b8efff798038103d269b633813fc60c",
                    spanId: "eee19b7ec3c1b174",
                    name: "payments process",
                    kind: 5,
                    startTimeUnixNano: "1764489600000000000",
                    attributes: [{ key: "messaging.system", value: { stringValue: "rabbitmq" } }],
                  },
                ],
              },
            ],
          },
        ],
      };
      const partial = await post(server, JSON.stringify(bad), { "content-type": "application/json" });
      assert.equal(partial.status, 200);
      const answer = (await partial.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
      assert.equal(answer.partialSuccess.rejectedSpans, "1");
      assert.match(answer.partialSuccess.errorMessage, /1 of 2 spans could not be read/);
      assert.match(answer.partialSuccess.errorMessage, /DUPSCOPE_OTLP_KEYS/);
    });
  });
}
