import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalInstance, sameProcess } from "../../../lib/events/instance.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseContext, ParseResult } from "../../../collectors/types.ts";
import { extractKey, formatKeySpec, keySpecSchema, parseJsonPath } from "../../../collectors/rabbitmq-firehose/config.ts";
import { channelIdentity, connectionIdentity, parseChannelName } from "../../../collectors/rabbitmq-firehose/identity.ts";
import { parse, parseFirehoseLine } from "../../../collectors/rabbitmq-firehose/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("rabbitmq-firehose");
const ctx: ParseContext = { source: "rabbitmq-firehose:test" };
const FIXTURES = ["ack-lost-channel", "ack-lost-socket", "producer-retry", "upstream-resend", "dlq-replay", "ack-timeout", "bad-lines"];

const parseFixture = (name: string): ParseResult => parse(testdata.read(`${name}.ndjson`), { source: `rabbitmq-firehose:testdata/${name}.ndjson` });

const AT = 1796025383651;
const PRODUCER = "10.0.0.7:50122 -> 10.0.0.5:5672";

function record(routingKey: string, headers: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ receivedAt: AT, deliveryTag: 18, vhost: "/", exchange: routingKey.startsWith("publish.") || routingKey.startsWith("deliver.") ? "amq.rabbitmq.trace" : "amq.rabbitmq.event", routingKey, headers, body: '{"orderId":"ORD-1","items":[{"sku":"A-7"}]}', ...extra });
}

const trace = (props: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  exchange_name: "",
  routing_keys: ["orders"],
  properties: { message_id: "m-1", correlation_id: "c-9", delivery_mode: 2, headers: {}, ...props },
  node: "rabbit@mq-1",
  vhost: "/",
  connection: PRODUCER,
  channel: 2,
  user: "guest",
  ...extra,
});

function only(line: string, context: ParseContext = ctx) {
  const result = parseFirehoseLine(line, 1, context);
  assert.equal(result.issue, undefined, result.issue?.reason);
  assert.equal(result.events.length, 1, "one event");
  return result.events[0]!;
}

describe("rabbitmq-firehose fixtures (recorded from RabbitMQ 3.10.8)", () => {
  for (const name of FIXTURES) {
    it(`parses ${name}.ndjson as the golden file says`, () => testdata.assertGolden(`${name}.ndjson`, parseFixture(name)));
  }

  it("produces only events the ingest API accepts unchanged, with unique ids", () => {
    const ids = new Set<string>();
    for (const name of FIXTURES) {
      for (const event of parseFixture(name).events) {
        const checked = validateEvent(event);
        assert.ok(checked.ok, checked.ok ? "" : checked.reason);
        assert.deepEqual(checked.event, event);
        assert.ok(!ids.has(event.id), `duplicate id ${event.id}`);
        ids.add(event.id);
      }
    }
  });
});

describe("firehose trace messages", () => {
  it("maps publish.<exchange>: the exchange as topic, message_id as msgId, the single routed queue, receipt time", () => {
    const e = only(record("publish.", trace({}, { routed_queues: ["orders"] })));
    assert.deepEqual(
      [e.kind, e.ts, e.topic, e.msgId, e.bizKey, e.queue, e.group, e.instance, e.redelivered],
      ["publish", AT, "amq.default", "m-1", "m-1", "orders", null, `${PRODUCER}@2`, null],
    );
    assert.equal(e.detail.stampedOnReceipt, true);
    assert.deepEqual(e.detail.routedQueues, ["orders"]);
    assert.equal(e.detail.correlationId, "c-9");
  });

  it("leaves the queue open when a publish was routed to several queues, or none", () => {
    assert.equal(only(record("publish.fanout-x", trace({}, { exchange_name: "fanout-x", routed_queues: ["a", "b"] }))).queue, null);
    assert.equal(only(record("publish.fanout-x", trace({}, { exchange_name: "fanout-x", routed_queues: [] }))).queue, null);
  });

  it("maps deliver.<queue>: the queue is the group, redelivered 1/0 becomes a boolean", () => {
    const e = only(record("deliver.orders", trace({}, { redelivered: 1 })));
    assert.deepEqual([e.kind, e.group, e.queue, e.redelivered, e.retryTimes], ["consume_start", "orders", "orders", true, null]);
    assert.equal(only(record("deliver.orders", trace({}, { redelivered: 0 }))).redelivered, false);
  });

  it("reads x-delivery-count as retryTimes and keeps x-death, x-shovelled and x-acquired-count in detail", () => {
    const headers = {
      "x-delivery-count": 2,
      "x-acquired-count": 3,
      "x-death": [{ count: 1, reason: "rejected", queue: "orders", time: { "!": "timestamp", value: 1796025380 }, exchange: "", "routing-keys": ["orders"] }],
      "x-first-death-queue": "orders",
      "x-first-death-reason": "rejected",
      "x-shovelled": [{ "shovelled-by": "rabbit@mq-1", "shovel-type": "dynamic", "shovel-name": "replay", "shovel-vhost": "/", "src-queue": "orders.dlq", "dest-queue": "orders" }],
    };
    const e = only(record("deliver.orders", trace({ headers }, { redelivered: 1 })));
    assert.equal(e.retryTimes, 2);
    assert.equal(e.detail.acquiredCount, 3);
    assert.deepEqual(e.detail.xDeath, [{ queue: "orders", reason: "rejected", count: 1, exchange: "", routingKeys: ["orders"], time: 1796025380000 }]);
    assert.deepEqual(e.detail.xShovelled, [{ name: "replay", type: "dynamic", vhost: "/", by: "rabbit@mq-1", srcQueue: "orders.dlq", srcExchange: null, destQueue: "orders", destExchange: null }]);
  });

  it("takes the business key from where the record's key says: a header, a JSON path, correlation_id", () => {
    const headers = { "x-order-id": "ORD-7" };
    assert.equal(only(record("deliver.orders", trace({ headers }), { key: "header:x-order-id" })).bizKey, "ORD-7");
    assert.equal(only(record("deliver.orders", trace(), { key: "json:$.orderId" })).bizKey, "ORD-1");
    assert.equal(only(record("deliver.orders", trace(), { key: "json:$.items[0].sku" })).bizKey, "A-7");
    assert.equal(only(record("deliver.orders", trace(), { key: "correlation_id" })).bizKey, "c-9");
    // Not found: the message id still ties the delivery to its publish.
    const missing = only(record("deliver.orders", trace(), { key: "json:$.nothing" }));
    assert.deepEqual([missing.bizKey, missing.msgId], [null, "m-1"]);
  });

  it("reads a base64 body", () => {
    const body = Buffer.from(JSON.stringify({ orderId: 42 })).toString("base64");
    assert.equal(only(record("deliver.orders", trace(), { key: "json:$.orderId", body, bodyEncoding: "base64" })).bizKey, "42");
  });

  it("skips a message it cannot tie to anything (no key, no message id)", () => {
    const result = parseFirehoseLine(record("deliver.orders", trace({ message_id: undefined })), 1, ctx);
    assert.deepEqual(result, { events: [], skipped: true });
  });

  it("marks an event whose record the collector's own queue redelivered", () => {
    assert.equal(only(record("deliver.orders", trace(), { redelivered: true })).detail.collectorRedelivered, true);
  });
});

describe("event exchange messages", () => {
  const pid = "<rabbit@mq-1.1796019944.3527.0>";
  it("stamps events with timestamp_in_ms", () => {
    const e = only(record("connection.closed", { name: PRODUCER, pid: "<rabbit@mq-1.1796019944.3492.0>", node: "rabbit@mq-1", timestamp_in_ms: 1796025383600 }));
    assert.deepEqual([e.kind, e.ts, e.instance, e.detail.action], ["instance_lifecycle", 1796025383600, PRODUCER, "connection_closed"]);
  });

  it("names a channel by its connection and number, from channel.created or the collector's channelName", () => {
    const created = only(record("channel.created", { number: 1, connection: "<rabbit@mq-1.1.2.0>", name: `${PRODUCER} (1)`, pid, timestamp_in_ms: AT }));
    assert.equal(created.instance, `${PRODUCER}@1`);
    assert.equal(created.detail.action, "channel_opened");
    const closed = only(record("channel.closed", { pid, timestamp_in_ms: AT }, { channelName: `${PRODUCER} (1)` }));
    assert.deepEqual([closed.instance, closed.detail.action], [`${PRODUCER}@1`, "channel_closed"]);
    assert.equal(only(record("channel.closed", { pid, timestamp_in_ms: AT })).instance, null);
  });

  it("records consumers joining and leaving a queue as rebalance-like events of that queue", () => {
    const e = only(record("consumer.created", { queue: "orders", channel: pid, consumer_tag: "amq.ctag-1", ack_required: true, prefetch_count: 1, exclusive: false, timestamp_in_ms: AT }, { channelName: `${PRODUCER} (1)` }));
    assert.deepEqual([e.kind, e.group, e.queue, e.instance, e.detail.action, e.detail.ackRequired], ["rebalance", "orders", "orders", `${PRODUCER}@1`, "consumer_created", true]);
    assert.equal(only(record("queue.deleted", { name: "orders", vhost: "/", timestamp_in_ms: AT })).detail.action, "queue_deleted");
  });

  it("reads the client-provided connection name from the Erlang-term client properties", () => {
    const e = only(record("connection.created", { name: PRODUCER, client_properties: ['{<<"connection_name">>,longstr,<<"order-api">>}'], timestamp_in_ms: AT }));
    assert.equal(e.detail.clientProvidedName, "order-api");
  });
});

describe("RabbitMQ instance identity", () => {
  it("keeps <connection>@<channel> as lib/events/instance.ts reads it: a connection matches its channels, two channels do not match", () => {
    const a1 = channelIdentity(PRODUCER, 1);
    assert.equal(canonicalInstance(a1).canonical, a1);
    assert.equal(canonicalInstance(PRODUCER).canonical, PRODUCER);
    assert.ok(sameProcess(PRODUCER, a1));
    assert.ok(!sameProcess(a1, channelIdentity(PRODUCER, 2)));
    assert.ok(!sameProcess(a1, channelIdentity("10.0.0.8:50122 -> 10.0.0.5:5672", 1)));
  });

  it("escapes the @ of connections named by an Erlang pid (shovels)", () => {
    const direct = channelIdentity("<rabbit@mq-1.1796019944.1440.0>", 1);
    assert.equal(direct, "<rabbit%40mq-1.1796019944.1440.0>@1");
    assert.equal(canonicalInstance(direct).canonical, direct);
    assert.equal(connectionIdentity("[::1]:5555 -> [::1]:5672"), "[::1]:5555 -> [::1]:5672");
    assert.deepEqual(parseChannelName("[::1]:5555 -> [::1]:5672 (12)"), { connection: "[::1]:5555 -> [::1]:5672", channel: 12 });
  });
});

describe("properties", () => {
  it("never throws, whatever the line", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (line) => {
        const result = parseFirehoseLine(line, 1, ctx);
        assert.ok(result.events.length > 0 || result.issue !== undefined || result.skipped === true);
      }),
    );
  });

  const routingKey = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).map((s) => `publish.${s}`),
    fc.string({ minLength: 1, maxLength: 20 }).map((s) => `deliver.${s}`),
    fc.constantFrom("connection.created", "connection.closed", "channel.created", "channel.closed", "consumer.created", "consumer.deleted", "queue.deleted", "user.created"),
  );
  const headers = fc.record(
    {
      exchange_name: fc.string({ maxLength: 20 }),
      properties: fc.record({ message_id: fc.oneof(fc.string({ maxLength: 200 }), fc.integer()), headers: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }),
      routing_keys: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
      routed_queues: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
      connection: fc.string({ maxLength: 40 }),
      channel: fc.oneof(fc.integer({ min: 0, max: 2047 }), fc.string({ maxLength: 5 })),
      redelivered: fc.oneof(fc.constantFrom(0, 1), fc.boolean(), fc.string({ maxLength: 3 })),
      name: fc.string({ maxLength: 40 }),
      queue: fc.string({ maxLength: 20 }),
      pid: fc.string({ maxLength: 20 }),
      number: fc.integer({ min: -5, max: 70_000 }),
      timestamp_in_ms: fc.oneof(fc.integer({ min: 0, max: 5e12 }), fc.string({ maxLength: 14 })),
    },
    { requiredKeys: [] },
  );
  const records = fc.record({
    receivedAt: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 0, 1) }),
    routingKey,
    headers,
    body: fc.string({ maxLength: 80 }),
    key: fc.constantFrom(undefined, "message_id", "correlation_id", "header:x-id", "json:$.orderId", "json:$.a[0].b"),
    channelName: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  });

  it("turns any record into events the ingest API accepts unchanged, or says why not", () => {
    fc.assert(
      fc.property(records, (r) => {
        const line = JSON.stringify(r);
        const result = parseFirehoseLine(line, 1, ctx);
        for (const event of result.events) {
          const checked = validateEvent(event);
          assert.ok(checked.ok, checked.ok ? "" : `${checked.reason} in ${line}`);
          assert.deepEqual(checked.event, event);
        }
        assert.deepEqual(parseFirehoseLine(line, 1, ctx), result, "the same line gives the same events and ids");
      }),
      { numRuns: 300 },
    );
  });

  it("gives two receipts of one trace message two ids", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (tag) => {
        const a = only(record("deliver.orders", trace(), { deliveryTag: tag }));
        const b = only(record("deliver.orders", trace(), { deliveryTag: tag + 1 }));
        assert.notEqual(a.id, b.id);
      }),
      { numRuns: 20 },
    );
  });

  it("reads back every key source it writes", () => {
    const segment = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !(s.includes("'") && s.includes('"'))), fc.nat(20));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }).filter((p) => typeof p[0] === "string"), (pathSegments) => {
        const spec = { from: "json" as const, path: pathSegments };
        assert.deepEqual(keySpecSchema.parse(formatKeySpec(spec)), spec);
      }),
    );
    assert.deepEqual(parseJsonPath("orderId"), ["orderId"]);
    assert.deepEqual(parseJsonPath("$['order-id'].lines[2]"), ["order-id", "lines", 2]);
    assert.equal(parseJsonPath("$..x"), null);
  });

  it("finds a JSON key wherever it is nested", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), { minLength: 1, maxLength: 4 }), fc.stringMatching(/^[A-Z0-9-]{1,20}$/), (pathSegments, key) => {
        const body = pathSegments.reduceRight<unknown>((inner, name) => ({ [name]: inner }), key);
        const found = extractKey({ from: "json", path: pathSegments }, { properties: {}, body: () => Buffer.from(JSON.stringify(body)) });
        assert.equal(found, key);
      }),
    );
  });
});
