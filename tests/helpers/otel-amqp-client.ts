// A RabbitMQ client process instrumented the way a Node service is in production: the OpenTelemetry SDK, the
// amqplib instrumentation and an OTLP/HTTP exporter (protobuf or JSON) pointed at dupscope's /v1/traces. Run by
// tests/integration/otlp.test.ts as its own process, so each client has its own pid and so its own instance:
//
//   node --import tsx tests/helpers/otel-amqp-client.ts <role> <queue> <messageId> [count]
//     publish N       publishes one message id N times, waiting for each confirm (twice: a producer retry)
//     consume-dies    takes one delivery and loses its connection before the ack (the worker died mid-work)
//     consume-acks N  takes N deliveries and acks each
//
// Environment: AMQP_URL, OTLP_TRACES_URL (…/v1/traces), OTLP_ENCODING (protobuf|json), OTLP_TOKEN (bearer).
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { AmqplibInstrumentation } from "@opentelemetry/instrumentation-amqplib";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";

const [role, queue, messageId, count] = process.argv.slice(2);
if (!role || !queue || !messageId) {
  console.error("usage: otel-amqp-client.ts <publish|consume-dies|consume-acks> <queue> <messageId> [count]");
  process.exit(2);
}

const exporterOptions = {
  url: process.env.OTLP_TRACES_URL!,
  headers: (process.env.OTLP_TOKEN ? { authorization: `Bearer ${process.env.OTLP_TOKEN}` } : {}) as Record<string, string>,
};
const exporter = process.env.OTLP_ENCODING === "json" ? new JsonExporter(exporterOptions) : new ProtobufExporter(exporterOptions);
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": role === "publish" ? "order-api" : "invoice-worker", "host.name": hostname(), "process.pid": process.pid }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
provider.register();
registerInstrumentations({ instrumentations: [new AmqplibInstrumentation()] });

// amqplib is CommonJS: required after the instrumentation is registered, so require-in-the-middle patches it.
const amqp = createRequire(import.meta.url)("amqplib") as typeof import("amqplib");

const body = Buffer.from(JSON.stringify({ orderId: messageId, amount: 12900 }));
const connection = await amqp.connect(process.env.AMQP_URL!);

async function done(code = 0): Promise<never> {
  await provider.forceFlush();
  await provider.shutdown();
  process.exit(code);
}

if (role === "publish") {
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue(queue, { durable: true });
  for (let attempt = 0; attempt < Number(count ?? 1); attempt++) {
    channel.sendToQueue(queue, body, { messageId, persistent: true, contentType: "application/json" });
    await channel.waitForConfirms();
  }
  await connection.close();
  await done();
}

const channel = await connection.createChannel();
await channel.assertQueue(queue, { durable: true });
await channel.prefetch(1);

if (role === "consume-dies") {
  // The lost socket is the point here, not an error to crash on.
  connection.on("error", () => {});
  await new Promise<void>((resolve) => {
    void channel.consume(queue, (message) => {
      if (message === null) return;
      // Killed mid-work: the socket goes away with the delivery unacknowledged, and RabbitMQ requeues it.
      (connection.connection as unknown as { stream: { destroy(error: Error): void } }).stream.destroy(new Error("worker killed"));
      resolve();
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await done();
}

if (role === "consume-acks") {
  const wanted = Number(count ?? 1);
  let seen = 0;
  await new Promise<void>((resolve) => {
    void channel.consume(queue, (message) => {
      if (message === null) return;
      channel.ack(message);
      if (++seen === wanted) resolve();
    });
  });
  await connection.close();
  await done();
}

console.error(`unknown role ${role}`);
await done(2);
