import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel, ConsumeMessage, Message } from "amqplib";
import type { FirehoseRecord } from "../../../collectors/rabbitmq-firehose/record.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import type { EventSink } from "../../../lib/ingest/sink.ts";
import { Batcher } from "../../../lib/rabbitmq/batcher.ts";
import { ChannelDirectory } from "../../../lib/rabbitmq/channel-directory.ts";
import { collectorConfigSchema, maskedUrl, vhostUrl } from "../../../lib/rabbitmq/config.ts";
import { OwnTraffic } from "../../../lib/rabbitmq/own-traffic.ts";
import { FatalSessionError, runWithReconnect } from "../../../lib/rabbitmq/reconnect.ts";
import { ReplayGuard } from "../../../lib/rabbitmq/replay-guard.ts";
import { contentDigest, toRecord } from "../../../lib/rabbitmq/to-record.ts";
import { runSetup, setupCommands } from "../../../cli/rabbitmq.ts";

const AT = 1796025383651;
const CONN = "127.0.0.1:39966 -> 127.0.0.1:5672";
const rec = (routingKey: string, headers: Record<string, unknown>, extra: Partial<FirehoseRecord> = {}): FirehoseRecord => ({
  receivedAt: AT,
  routingKey,
  headers,
  body: "",
  bodyEncoding: "utf8",
  ...extra,
});

function message(routingKey: string, headers: Record<string, unknown>, content = "{}", deliveryTag = 1, redelivered = false): ConsumeMessage {
  return {
    content: Buffer.from(content),
    fields: { deliveryTag, redelivered, exchange: "amq.rabbitmq.trace", routingKey, consumerTag: "ctag" },
    properties: { headers, contentType: undefined, deliveryMode: 2, timestamp: 1796025383 },
  } as unknown as ConsumeMessage;
}

describe("channel directory", () => {
  const pid = "<rabbit@mq-1.1.3527.0>";
  it("names the channel of consumer and channel.closed events from the channel.created it saw", () => {
    const d = new ChannelDirectory();
    d.annotate(rec("channel.created", { pid, name: `${CONN} (1)`, connection: "<rabbit@mq-1.1.3500.0>", number: 1 }));
    assert.equal(d.annotate(rec("consumer.created", { channel: pid, queue: "orders" })).channelName, `${CONN} (1)`);
    assert.equal(d.annotate(rec("channel.closed", { pid })).channelName, `${CONN} (1)`);
    assert.equal(d.annotate(rec("consumer.deleted", { channel: pid })).channelName, undefined, "forgotten once closed");
  });

  it("forgets a connection's channels when the connection closes, and the oldest beyond its capacity", () => {
    const d = new ChannelDirectory(2);
    d.annotate(rec("channel.created", { pid: "<a>", name: `${CONN} (1)`, connection: "<c>" }));
    d.annotate(rec("connection.closed", { pid: "<c>", name: CONN }));
    assert.equal(d.size, 0);
    for (const p of ["<x>", "<y>", "<z>"]) d.annotate(rec("channel.created", { pid: p, name: `${CONN} (1)`, connection: "<d>" }));
    assert.equal(d.size, 2);
    assert.equal(d.annotate(rec("channel.closed", { pid: "<x>" })).channelName, undefined);
  });
});

describe("own traffic", () => {
  const own = new OwnTraffic(new Set(["dupscope.collector", "dupscope.collector.dropped"]));
  own.addConnection(CONN);
  it("drops the collector's own queue deliveries, connection, channels, consumers and publishes", () => {
    assert.ok(own.isOwn(rec("deliver.dupscope.collector", { connection: CONN })));
    assert.ok(own.isOwn(rec("deliver.dupscope.collector.dropped", { connection: CONN })));
    assert.ok(own.isOwn(rec("publish.", { connection: CONN })));
    assert.ok(own.isOwn(rec("connection.closed", { name: CONN })));
    assert.ok(own.isOwn(rec("channel.created", { name: `${CONN} (1)` })));
    assert.ok(own.isOwn(rec("channel.closed", { pid: "<p>" }, { channelName: `${CONN} (1)` })));
    assert.ok(own.isOwn(rec("consumer.created", { queue: "dupscope.collector" })));
  });

  it("keeps everybody else's", () => {
    const other = "127.0.0.1:40000 -> 127.0.0.1:5672";
    assert.ok(!own.isOwn(rec("deliver.orders", { connection: other })));
    assert.ok(!own.isOwn(rec("publish.", { connection: other })));
    assert.ok(!own.isOwn(rec("connection.closed", { name: other })));
    assert.ok(!own.isOwn(rec("channel.created", { name: `${CONN}0 (1)` })), "a longer port is another connection");
    assert.ok(!own.isOwn(rec("consumer.created", { queue: "orders" })));
  });
});

describe("replay guard", () => {
  it("skips a redelivered message once per time it was stored, so identical twins both get through", () => {
    const guard = new ReplayGuard();
    guard.stored("d1");
    guard.stored("d1");
    assert.ok(guard.alreadyStored("d1"));
    assert.ok(guard.alreadyStored("d1"));
    assert.ok(!guard.alreadyStored("d1"));
    assert.ok(!guard.alreadyStored("never"));
  });

  it("forgets the oldest beyond its capacity", () => {
    const guard = new ReplayGuard(2);
    for (const d of ["a", "b", "c"]) guard.stored(d);
    assert.ok(!guard.alreadyStored("a"));
    assert.ok(guard.alreadyStored("c"));
  });
});

describe("records from amqplib messages", () => {
  it("keeps headers as plain JSON and the body as text or base64", () => {
    const m = message("deliver.orders", { properties: { message_id: "m-1", headers: { raw: Buffer.from("x") } }, redelivered: 1 }, '{"orderId":"ORD-1"}', 7, true);
    const r = toRecord(m, "/", "json:$.orderId", AT);
    assert.deepEqual(
      r,
      { receivedAt: AT, deliveryTag: 7, redelivered: true, vhost: "/", key: "json:$.orderId", exchange: "amq.rabbitmq.trace", routingKey: "deliver.orders", headers: { properties: { message_id: "m-1", headers: { raw: "x" } }, redelivered: 1 }, properties: { deliveryMode: 2, timestamp: 1796025383 }, body: '{"orderId":"ORD-1"}', bodyEncoding: "utf8" },
    );
    const bytes = { ...message("deliver.orders", {}), content: Buffer.from([0xff, 0xfe]) } as ConsumeMessage;
    assert.deepEqual([toRecord(bytes, "/", "message_id", AT).body, toRecord(bytes, "/", "message_id", AT).bodyEncoding], ["//4=", "base64"]);
  });

  it("digests what the broker sent, not when or how often it was received", () => {
    const a = message("deliver.orders", { properties: { message_id: "m-1" } }, "{}", 1, false);
    const b = message("deliver.orders", { properties: { message_id: "m-1" } }, "{}", 9, true);
    assert.equal(contentDigest(a), contentDigest(b));
    assert.notEqual(contentDigest(a), contentDigest(message("deliver.orders", { properties: { message_id: "m-2" } })));
  });
});

describe("collector configuration", () => {
  it("puts the vhost into the URL path and hides the password in sources", () => {
    assert.equal(vhostUrl("amqp://guest:guest@127.0.0.1:5672", "/"), "amqp://guest:guest@127.0.0.1:5672/%2F");
    assert.equal(vhostUrl("amqps://u:p@mq:5671?heartbeat=10", "billing"), "amqps://u:p@mq:5671/billing?heartbeat=10");
    assert.equal(maskedUrl("amqp://guest:secret@127.0.0.1:5672/%2F"), "amqp://guest:***@127.0.0.1:5672/%2F");
  });

  it("validates the key source and the URL", () => {
    const config = collectorConfigSchema.parse({ key: "header:x-order-id" });
    assert.deepEqual([config.key, config.vhosts, config.queue, config.maxLength], [{ from: "header", name: "x-order-id" }, ["/"], "dupscope.collector", 100_000]);
    assert.throws(() => collectorConfigSchema.parse({ key: "body" }), /not a key source/);
    assert.throws(() => collectorConfigSchema.parse({ url: "amqp://guest:guest@127.0.0.1:5672/billing" }), /vhosts are given with --vhost/);
  });
});

describe("reconnecting", () => {
  it("retries a failing session with growing delays, starts over after one that worked, and stops when asked", async () => {
    const abort = new AbortController();
    const delays: number[] = [];
    let calls = 0;
    await runWithReconnect(
      async () => {
        calls++;
        if (calls === 3) return; // connected, then the connection ended
        if (calls === 5) abort.abort();
        throw new Error("ECONNREFUSED");
      },
      { initialDelayMs: 4, maxDelayMs: 16 },
      abort.signal,
      (_, delay) => delays.push(delay),
    );
    assert.equal(calls, 5);
    assert.deepEqual(delays, [4, 8, 4, 8]);
  });

  it("gives up on a fatal error", async () => {
    await assert.rejects(
      runWithReconnect(async () => Promise.reject(new FatalSessionError("bad credentials")), { initialDelayMs: 1, maxDelayMs: 1 }, new AbortController().signal, () => {}),
      /bad credentials/,
    );
  });
});

describe("batches", () => {
  function fakeChannel() {
    const acks: number[] = [];
    return { acks, channel: { ack: (m: Message, allUpTo: boolean) => (assert.ok(allUpTo), acks.push(m.fields.deliveryTag)) } as unknown as Channel };
  }
  const ev = (id: string) => ({ id }) as NormalizedEvent;

  it("acknowledges only after the sink stored the batch, once per channel, up to the last message", async () => {
    const order: string[] = [];
    const sink: EventSink = { description: "test", write: async (events) => (order.push(`write ${events.length}`), { accepted: events.length, duplicates: 0, rejected: [] }), close: async () => {} };
    const { acks, channel } = fakeChannel();
    const guard = new ReplayGuard();
    const counters = { stored: 0, duplicates: 0, rejected: 0, batches: 0 };
    const batcher = new Batcher(sink, guard, { batchSize: 3, flushAfterMs: 10_000 }, counters, (e) => assert.fail(String(e)), () => {});
    const wrapped = { ack: (m: Message, all: boolean) => (order.push(`ack ${m.fields.deliveryTag}`), channel.ack(m, all)) } as unknown as Channel;
    batcher.add({ channel: wrapped, message: message("deliver.q", {}, "{}", 1), events: [ev("a")], digest: "d1" });
    batcher.add({ channel: wrapped, message: message("deliver.q", {}, "{}", 2), events: [], digest: null });
    batcher.add({ channel: wrapped, message: message("deliver.q", {}, "{}", 3), events: [ev("b"), ev("c")], digest: "d3" });
    await batcher.flush();
    assert.deepEqual(order, ["write 3", "ack 3"]);
    assert.deepEqual(acks, [3]);
    assert.deepEqual(counters, { stored: 3, duplicates: 0, rejected: 0, batches: 1 });
    assert.ok(guard.alreadyStored("d1") && guard.alreadyStored("d3"));
  });

  it("flushes after a quiet period, and survives a channel that closed before the acknowledgement", async () => {
    let written = 0;
    const sink: EventSink = { description: "test", write: async (events) => ((written += events.length), { accepted: events.length, duplicates: 0, rejected: [] }), close: async () => {} };
    const closed = { ack: () => { throw new Error("Channel closed"); } } as unknown as Channel;
    const batcher = new Batcher(sink, new ReplayGuard(), { batchSize: 100, flushAfterMs: 5 }, { stored: 0, duplicates: 0, rejected: 0, batches: 0 }, (e) => assert.fail(String(e)), () => {});
    batcher.add({ channel: closed, message: message("deliver.q", {}), events: [ev("a")], digest: null });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(written, 1);
  });

  it("reports a sink failure as fatal instead of acknowledging", async () => {
    const { acks, channel } = fakeChannel();
    const sink: EventSink = { description: "test", write: async () => Promise.reject(new Error("401 wrong token")), close: async () => {} };
    let fatal: unknown = null;
    const batcher = new Batcher(sink, new ReplayGuard(), { batchSize: 1, flushAfterMs: 5 }, { stored: 0, duplicates: 0, rejected: 0, batches: 0 }, (e) => (fatal = e), () => {});
    batcher.add({ channel, message: message("deliver.q", {}), events: [ev("a")], digest: null });
    await batcher.flush();
    assert.match(String(fatal), /wrong token/);
    assert.deepEqual(acks, []);
  });
});

describe("rabbitmq setup", () => {
  it("enables the event exchange once and tracing per vhost, printed ready to paste", async () => {
    assert.deepEqual(setupCommands(["/", "billing"]), [
      ["rabbitmq-plugins", "enable", "rabbitmq_event_exchange"],
      ["rabbitmqctl", "trace_on", "-p", "/"],
      ["rabbitmqctl", "trace_on", "-p", "billing"],
    ]);
    const printed: string[] = [];
    await runSetup({ vhosts: ["/", "my vhost"], apply: false }, () => {}, (line) => printed.push(line));
    assert.deepEqual(printed.slice(1), ["rabbitmq-plugins enable rabbitmq_event_exchange", "rabbitmqctl trace_on -p /", "rabbitmqctl trace_on -p 'my vhost'"]);
  });
});
