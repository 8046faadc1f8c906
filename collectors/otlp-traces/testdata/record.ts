/**
 * Records this folder's amqplib fixtures from real clients: a throwaway OTLP/HTTP endpoint saves every JSON export
 * request as one line while tests/helpers/otel-amqp-client.ts processes (the OpenTelemetry JS SDK, the amqplib
 * instrumentation, the OTLP JSON exporter) play a story against the machine's RabbitMQ, one fixture per story.
 *
 *   npx tsx collectors/otlp-traces/testdata/record.ts
 *
 * The fixtures are frozen afterwards: rerunning rewrites them with new trace ids, times and pids.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { BROKER_URL, deleteQueues } from "../../../tests/helpers/rabbitmq.ts";

const here = import.meta.dirname;
const client = path.join(here, "..", "..", "..", "tests", "helpers", "otel-amqp-client.ts");
let lines: string[] = [];
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    lines.push(JSON.stringify(JSON.parse(body)));
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as { port: number }).port;

function run(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", client, ...args], {
      env: { ...process.env, AMQP_URL: BROKER_URL, OTLP_TRACES_URL: `http://127.0.0.1:${port}/v1/traces`, OTLP_ENCODING: "json" },
      stdio: "inherit",
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(" ")} exited with ${code}`))));
  });
}

const stories: [string, string, string[][]][] = [
  ["amqplib-ack-lost", "INV-20261130-000142", [["publish", "1"], ["consume-dies"], ["consume-acks", "1"]]],
  ["amqplib-producer-retry", "ORD-20261130-000143", [["publish", "2"], ["consume-acks", "2"]]],
];
for (const [name, messageId, steps] of stories) {
  lines = [];
  const queue = `dupscope.otlp-fixture.${randomBytes(3).toString("hex")}`;
  for (const [role, ...rest] of steps) await run(role!, queue, messageId, ...rest);
  await deleteQueues(queue);
  writeFileSync(path.join(here, `${name}.ndjson`), `${lines.join("\n")}\n`);
  console.log(`${name}.ndjson: ${lines.length} export requests`);
}
server.close();
