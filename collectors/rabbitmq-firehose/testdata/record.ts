/**
 * Records the fixtures of this folder from the machine's RabbitMQ: runs the collector (key json:$.orderId, its
 * `record` hook writing the parsed NDJSON lines) while the duplicate stories of tests/helpers/rabbitmq.ts play,
 * one fixture per story. The broker needs rabbitmq_event_exchange, rabbitmq_shovel and `rabbitmqctl trace_on`.
 *
 *   npx tsx collectors/rabbitmq-firehose/testdata/record.ts [--with-timeout]
 *
 * --with-timeout also records ack-timeout.ndjson, which takes a minute (the broker checks consumer timeouts once a
 * minute). The fixtures are frozen afterwards: rerunning rewrites them with new ids, times and ports.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startCollector } from "../../../lib/rabbitmq/collector.ts";
import { dropQueueOf } from "../../../lib/rabbitmq/topology.ts";
import { ackLostStory, ackTimeoutStory, deleteQueues, dlqReplayStory, producerRetryStory, sleep, upstreamResendStory, within } from "../../../tests/helpers/rabbitmq.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
let lines: string[] = [];
const collector = startCollector(
  { key: "json:$.orderId", queue: "dupscope.fixture-recorder", flushAfterMs: 50 },
  { sink: { description: "nowhere", write: async (events) => ({ accepted: events.length, duplicates: 0, rejected: [] }), close: async () => {} }, record: (line) => lines.push(line), log: console.error },
);
await within(10_000, "the collector to connect", collector.ready);
while (collector.stats()[0]!.tracing === "unknown") await sleep(50);
if (collector.stats()[0]!.tracing !== "on") throw new Error("tracing is off: rabbitmqctl trace_on -p /");

const stories: [string, () => Promise<{ close(): Promise<void> }>][] = [
  ["ack-lost-channel", () => ackLostStory("ORD-20261130-000142", "channel")],
  ["ack-lost-socket", () => ackLostStory("ORD-20261130-000143", "socket")],
  ["producer-retry", () => producerRetryStory("ORD-20261130-000144")],
  ["upstream-resend", () => upstreamResendStory("ORD-20261130-000145")],
  ["dlq-replay", () => dlqReplayStory("ORD-20261130-000146")],
  ...(process.argv.includes("--with-timeout") ? [["ack-timeout", () => ackTimeoutStory("ORD-20261130-000147")] as [string, () => Promise<{ close(): Promise<void> }>]] : []),
];
for (const [name, play] of stories) {
  lines = [];
  const story = await play();
  await story.close();
  // Channel and connection closes arrive after the story's last delivery.
  await sleep(500);
  writeFileSync(path.join(here, `${name}.ndjson`), `${lines.join("\n")}\n`);
  console.error(`${name}.ndjson: ${lines.length} records`);
}
await collector.stop();
await deleteQueues(collector.config.queue, dropQueueOf(collector.config.queue));
console.error(JSON.stringify(collector.stats()));
