import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from "amqplib";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";

/**
 * Real duplicate stories played against the machine's RabbitMQ (never a mock): the integration tests run them
 * while the collector listens, and collectors/rabbitmq-firehose/testdata/record.ts recorded the fixtures from them.
 * Every story uses its own queues and connections and removes them afterwards.
 */

export const BROKER_URL = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672";

const run = promisify(execFile);

export async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await run("rabbitmqctl", args, { timeout: 120_000 });
  return stdout;
}

/**
 * What the RabbitMQ tests need and cannot do without, each as the command that fixes it: a reachable broker, the
 * event exchange plugin, the shovel plugin, and tracing on vhost `/` (which a node restart switches off).
 */
/** What a newcomer runs instead of the commands one by one: it does all of them (scripts/setup-test.sh). */
const SETUP = " (npm run setup:test, as root, does this and the rest)";

export async function brokerProblems(): Promise<string[]> {
  let model: ChannelModel;
  try {
    model = await connect("dupscope-test-preflight");
  } catch (error) {
    return [`cannot connect to RabbitMQ at ${BROKER_URL.replace(/:[^:@/]*@/, ":***@")}: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  try {
    const probe = await model.createChannel();
    probe.on("error", () => {});
    await probe.checkExchange("amq.rabbitmq.event").catch(() => problems.push(`amq.rabbitmq.event is missing: rabbitmq-plugins enable rabbitmq_event_exchange${SETUP}`));
    if (!(await tracingWorks(model))) problems.push(`tracing is off on vhost /: rabbitmqctl trace_on -p /${SETUP}`);
  } finally {
    await model.close().catch(() => {});
  }
  const enabled = await rabbitmqctlPlugins().catch((error: Error) => `rabbitmq-plugins failed: ${error.message}`);
  if (!enabled.includes("rabbitmq_shovel")) problems.push(`the shovel plugin is off (${enabled.slice(0, 200)}): rabbitmq-plugins enable rabbitmq_shovel${SETUP}`);
  return problems;
}

async function rabbitmqctlPlugins(): Promise<string> {
  const { stdout } = await run("rabbitmq-plugins", ["list", "--enabled", "--minimal"], { timeout: 60_000 });
  return stdout;
}

/** Publishes an unroutable message and waits for its trace. */
async function tracingWorks(model: ChannelModel): Promise<boolean> {
  const channel = await model.createChannel();
  const { queue } = await channel.assertQueue("", { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, "amq.rabbitmq.trace", "publish.");
  const token = randomBytes(8).toString("hex");
  let seen!: () => void;
  const traced = new Promise<void>((resolve) => (seen = resolve));
  await channel.consume(queue, (m) => m && (m.properties.headers?.properties as { headers?: Record<string, unknown> } | undefined)?.headers?.["x-preflight"] === token && seen(), { noAck: true });
  channel.publish("", `dupscope-preflight-${token}`, Buffer.alloc(0), { headers: { "x-preflight": token } });
  return within(3000, "the trace", traced).then(
    () => true,
    () => false,
  );
}

export function uniqueName(prefix: string): string {
  return `dupscope-it-${prefix}-${randomBytes(4).toString("hex")}`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for a promise that settles from a consumer callback, failing with `what` after `ms`. */
/** Polls `check` every 100 ms until it holds, failing after `timeoutMs` with what was awaited. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function connect(name: string): Promise<ChannelModel> {
  const model = await amqp.connect(BROKER_URL, { clientProperties: { connection_name: name } });
  model.on("error", () => {});
  return model;
}

export async function deleteQueues(...queues: string[]): Promise<void> {
  const model = await connect("dupscope-test-cleanup");
  try {
    const channel = await model.createChannel();
    for (const queue of queues) await channel.deleteQueue(queue);
  } finally {
    await model.close().catch(() => {});
  }
}

/** The next message on a fresh consumer of `queue` (manual ack, prefetch 1). */
async function takeOne(channel: Channel, queue: string): Promise<ConsumeMessage> {
  await channel.prefetch(1);
  let resolve!: (m: ConsumeMessage) => void;
  const got = new Promise<ConsumeMessage>((r) => (resolve = r));
  await channel.consume(queue, (m) => m && resolve(m), { noAck: false });
  return within(10_000, `a delivery from ${queue}`, got);
}

export interface Story {
  bizKey: string;
  msgId: string;
  queue: string;
}

const order = (bizKey: string) => Buffer.from(JSON.stringify({ orderId: bizKey, amount: 12900, currency: "CNY" }));

/**
 * (a) Consumer A takes the message and its channel is closed before it acknowledges; the broker requeues it and
 * consumer B (another connection) gets it with `redelivered`.
 */
export async function ackLostStory(bizKey: string, how: "channel" | "socket" = "channel"): Promise<Story & { firstConsumer: ChannelModel; secondConsumer: ChannelModel; close(): Promise<void> }> {
  const queue = uniqueName("ack-lost");
  const msgId = `msg-${randomBytes(6).toString("hex")}`;
  const producer = await connect("order-api");
  const a = await connect("invoice-worker-a");
  const b = await connect("invoice-worker-b");
  const p = await producer.createConfirmChannel();
  await p.assertQueue(queue, { durable: true });
  p.sendToQueue(queue, order(bizKey), { messageId: msgId, persistent: true, contentType: "application/json" });
  await p.waitForConfirms();
  const first = await a.createChannel();
  await takeOne(first, queue);
  // The worker is killed (or its channel closed) mid-work: the delivery was never acknowledged.
  if (how === "channel") await first.close();
  else (a.connection as unknown as { stream: { destroy(error: Error): void } }).stream.destroy(new Error("worker killed"));
  const second = await b.createChannel();
  const again = await takeOne(second, queue);
  if (!again.fields.redelivered) throw new Error("the broker did not mark the second delivery redelivered");
  second.ack(again);
  return {
    bizKey,
    msgId,
    queue,
    firstConsumer: a,
    secondConsumer: b,
    async close() {
      await p.deleteQueue(queue);
      // A destroyed socket never answers connection.close.
      for (const m of how === "socket" ? [producer, b] : [producer, a, b]) await m.close().catch(() => {});
    },
  };
}

/** (b) The publisher sends one message id twice (its confirm was "lost"); the consumer gets two first deliveries. */
export async function producerRetryStory(bizKey: string): Promise<Story & { close(): Promise<void> }> {
  const queue = uniqueName("producer-retry");
  const msgId = `msg-${randomBytes(6).toString("hex")}`;
  const producer = await connect("order-api");
  const consumer = await connect("invoice-worker-a");
  const p = await producer.createConfirmChannel();
  await p.assertQueue(queue, { durable: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    p.sendToQueue(queue, order(bizKey), { messageId: msgId, persistent: true, contentType: "application/json" });
    await p.waitForConfirms();
  }
  const c = await consumer.createChannel();
  await c.prefetch(10);
  let seen = 0;
  let done!: () => void;
  const both = new Promise<void>((r) => (done = r));
  await c.consume(queue, (m) => {
    if (m === null) return;
    c.ack(m);
    if (++seen === 2) done();
  });
  await within(10_000, "both copies", both);
  return {
    bizKey,
    msgId,
    queue,
    async close() {
      await p.deleteQueue(queue);
      for (const m of [producer, consumer]) await m.close().catch(() => {});
    },
  };
}

/** The upstream calls the producer twice: two message ids for one order. */
export async function upstreamResendStory(bizKey: string): Promise<Story & { secondMsgId: string; close(): Promise<void> }> {
  const queue = uniqueName("upstream");
  const msgId = `msg-${randomBytes(6).toString("hex")}`;
  const secondMsgId = `msg-${randomBytes(6).toString("hex")}`;
  const producer = await connect("order-api");
  const consumer = await connect("invoice-worker-a");
  const p = await producer.createConfirmChannel();
  await p.assertQueue(queue, { durable: true });
  for (const id of [msgId, secondMsgId]) {
    p.sendToQueue(queue, order(bizKey), { messageId: id, persistent: true, contentType: "application/json" });
    await p.waitForConfirms();
  }
  const c = await consumer.createChannel();
  let seen = 0;
  let done!: () => void;
  const both = new Promise<void>((r) => (done = r));
  await c.consume(queue, (m) => {
    if (m === null) return;
    c.ack(m);
    if (++seen === 2) done();
  });
  await within(10_000, "both messages", both);
  return {
    bizKey,
    msgId,
    secondMsgId,
    queue,
    async close() {
      await p.deleteQueue(queue);
      for (const m of [producer, consumer]) await m.close().catch(() => {});
    },
  };
}

/**
 * (c) Consumer A rejects the message (nack, requeue=false) into the dead-letter queue; an operator shovels the
 * dead-letter queue back (a dynamic shovel with add-forward-headers, so the copy carries x-shovelled next to
 * x-death) and consumer B processes it again.
 */
export async function dlqReplayStory(bizKey: string): Promise<Story & { deadLetterQueue: string; close(): Promise<void> }> {
  const queue = uniqueName("work");
  const deadLetterQueue = `${queue}.dlq`;
  const dlx = `${queue}.dlx`;
  const shovel = `${queue}-replay`;
  const msgId = `msg-${randomBytes(6).toString("hex")}`;
  const producer = await connect("order-api");
  const a = await connect("invoice-worker-a");
  const b = await connect("invoice-worker-b");
  const p = await producer.createConfirmChannel();
  await p.assertExchange(dlx, "fanout", { durable: true });
  await p.assertQueue(deadLetterQueue, { durable: true });
  await p.bindQueue(deadLetterQueue, dlx, "");
  await p.assertQueue(queue, { durable: true, arguments: { "x-dead-letter-exchange": dlx } });
  p.sendToQueue(queue, order(bizKey), { messageId: msgId, persistent: true, contentType: "application/json" });
  await p.waitForConfirms();
  const first = await a.createChannel();
  const m = await takeOne(first, queue);
  first.nack(m, false, false);
  // Worker A is done with the queue; the replayed copy goes to B.
  await first.close();
  await waitForMessages(p, deadLetterQueue, 1);
  await rabbitmqctl(
    "set_parameter", "shovel", shovel,
    JSON.stringify({ "src-uri": "amqp://", "src-queue": deadLetterQueue, "dest-uri": "amqp://", "dest-queue": queue, "add-forward-headers": true, "src-delete-after": "queue-length" }),
  );
  const second = await b.createChannel();
  const replayed = await takeOne(second, queue);
  second.ack(replayed);
  return {
    bizKey,
    msgId,
    queue,
    deadLetterQueue,
    async close() {
      // src-delete-after removes the shovel once it moved the queue's length; clearing it is for a failed run.
      await rabbitmqctl("clear_parameter", "shovel", shovel).catch(() => {});
      await p.deleteQueue(queue);
      await p.deleteQueue(deadLetterQueue);
      await p.deleteExchange(dlx);
      for (const model of [producer, a, b]) await model.close().catch(() => {});
    },
  };
}

async function waitForMessages(channel: Channel, queue: string, count: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await channel.checkQueue(queue)).messageCount >= count) return;
    await sleep(50);
  }
  throw new Error(`${queue} never held ${count} message(s)`);
}

/**
 * A consumer holds a delivery past the consumer timeout; the broker closes its channel (PRECONDITION_FAILED)
 * and requeues the message for consumer B. The channel checks the timeout once a minute, so this takes a minute;
 * the timeout is lowered for the story and restored after.
 */
export async function ackTimeoutStory(bizKey: string): Promise<Story & { close(): Promise<void> }> {
  const queue = uniqueName("ack-timeout");
  const msgId = `msg-${randomBytes(6).toString("hex")}`;
  const previous = (await rabbitmqctl("eval", "application:get_env(rabbit, consumer_timeout).")).trim();
  await rabbitmqctl("eval", "application:set_env(rabbit, consumer_timeout, 3000).");
  const producer = await connect("order-api");
  const a = await connect("invoice-worker-a");
  const b = await connect("invoice-worker-b");
  try {
    const p = await producer.createConfirmChannel();
    await p.assertQueue(queue, { durable: true });
    p.sendToQueue(queue, order(bizKey), { messageId: msgId, persistent: true, contentType: "application/json" });
    await p.waitForConfirms();
    const first = await a.createChannel();
    first.on("error", () => {});
    const closed = new Promise<void>((r) => first.on("close", () => r()));
    await takeOne(first, queue);
    await within(75_000, "the broker's consumer timeout", closed);
    const second = await b.createChannel();
    const again = await takeOne(second, queue);
    second.ack(again);
    return {
      bizKey,
      msgId,
      queue,
      async close() {
        await p.deleteQueue(queue);
        for (const m of [producer, a, b]) await m.close().catch(() => {});
      },
    };
  } finally {
    const value = /^\{ok,(\d+)\}$/.exec(previous)?.[1] ?? "1800000";
    await rabbitmqctl("eval", `application:set_env(rabbit, consumer_timeout, ${value}).`);
  }
}
