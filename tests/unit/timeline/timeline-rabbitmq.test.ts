import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse as parseFirehose } from "../../../collectors/rabbitmq-firehose/parse.ts";
import { parse as parseServerLog } from "../../../collectors/rabbitmq-server-log/parse.ts";
import { laneName } from "../../../components/timeline/lane-name.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { KeyDiagnosis } from "../../../lib/diagnosis/types.ts";
import { contextOf } from "../../../lib/diagnosis/scope.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { dictionary } from "../../../lib/i18n/dictionary.ts";
import { toLanes, type Lane, type Timeline } from "../../../lib/timeline/to-lanes.ts";

/**
 * The key page's lanes for RabbitMQ keys, from what the collectors make of recordings of a real broker
 * (collectors/rabbitmq-firehose/testdata: RabbitMQ 3.10 with the event exchange, a shovel and tracing on; the
 * server log of the same run): a lane per publishing and consuming channel, and the broker's own account on one
 * broker lane. Keys and msgIds are diagnosed and selected exactly as the API does (lib/diagnosis/scope.ts).
 */

const testdata = path.join(import.meta.dirname, "..", "..", "..", "collectors");
const firehose = (name: string) => parseFirehose(readFileSync(path.join(testdata, "rabbitmq-firehose", "testdata", name), "utf8"), { source: `rabbitmq-firehose:testdata/${name}` }).events;
const serverLog = (name: string) => parseServerLog(readFileSync(path.join(testdata, "rabbitmq-server-log", "testdata", name), "utf8"), { source: `rabbitmq-server-log:testdata/${name}` }).events;

const BROKER = "rabbit@localhost";
const en = dictionary("en");

function timelineOf(events: NormalizedEvent[]): { t: Timeline; diagnosis: KeyDiagnosis } {
  const bizKey = events.find((e) => e.bizKey !== null)!.bizKey!;
  const own = events.filter((e) => e.bizKey === bizKey);
  const context = contextOf(own, events.filter((e) => e.bizKey === null));
  const diagnosis = diagnoseKey({ bizKey, events: own, context });
  const cited = diagnosis.duplicates.flatMap((v) => v.evidence.flatMap((e) => e.eventIds));
  return { t: toLanes({ events: own, context, deliveries: diagnosis.deliveries, duplicates: diagnosis.duplicates, cited }), diagnosis };
}

const channel = (peer: string, n = 1) => `${peer} -> 127.0.0.1:5672@${n}`;

function lane(t: Timeline, label: string): Lane {
  const found = t.lanes.find((l) => l.label === label);
  assert.ok(found, `a lane for ${label} among ${t.lanes.map((l) => l.label).join(", ")}`);
  return found;
}

/** The key's own broker marks, and the closes that concern its consumers, as [kind, note, ms from the first]. */
const brokerStory = (t: Timeline) => lane(t, BROKER).marks.map((m) => [m.kind, m.note, m.ts - t.start]);

describe("RabbitMQ key timeline: a lane per connection and channel", () => {
  it("ack_lost (socket destroyed): the publisher, consumer A, consumer B and the broker, each channel named readably", () => {
    const { t } = timelineOf(firehose("ack-lost-socket.ndjson"));
    assert.deepEqual(
      t.lanes.map((l) => [l.role, l.label]),
      [
        ["producer", channel("127.0.0.1:34156")],
        ["consumer", channel("127.0.0.1:34170")],
        ["consumer", channel("127.0.0.1:34178")],
        ["broker", BROKER],
      ],
    );
    assert.deepEqual(
      t.lanes.map((l) => laneName(l, en)),
      ["order-api · 127.0.0.1:34156 · channel 1", "invoice-worker-a · 127.0.0.1:34170 · channel 1", "invoice-worker-b · 127.0.0.1:34178 · channel 1", BROKER],
      "the name the client gave its connection (from connection.created), its address and the channel",
    );
    assert.equal(laneName(lane(t, channel("127.0.0.1:34170")), dictionary("zh-CN")), "invoice-worker-a · 127.0.0.1:34170 · 通道 1");
    assert.deepEqual(lane(t, channel("127.0.0.1:34170")).groups, ["dupscope-it-ack-lost-f1577479"], "the queue is the consumers' group");
  });

  it("ack_lost (socket destroyed): A's delivery, A's connection closing, the redelivery to B, and the gap between them", () => {
    const { t, diagnosis } = timelineOf(firehose("ack-lost-socket.ndjson"));
    const [v] = diagnosis.duplicates;
    assert.equal(v!.cause, "ack_lost");
    const a = lane(t, channel("127.0.0.1:34170"));
    const b = lane(t, channel("127.0.0.1:34178"));
    assert.deepEqual(
      [...a.spans, ...b.spans].map((s) => [s.start - t.start, s.redelivered, s.end]),
      [
        [129, false, null],
        [141, true, null],
      ],
      "one consumption each, the second flagged redelivered; the firehose shows no ack, so neither has an end",
    );
    assert.deepEqual(brokerStory(t), [
      ["deliver", "dupscope-it-ack-lost-f1577479 → invoice-worker-a (1)", 129],
      ["closed", "connection_closed invoice-worker-a", 130],
      ["redeliver", "dupscope-it-ack-lost-f1577479 → invoice-worker-b (1)", 141],
      ["closed", "channel_closed invoice-worker-b (1)", 153],
      ["closed", "connection_closed invoice-worker-b", 164],
    ]);
    const close = lane(t, BROKER).marks[1]!;
    assert.ok(v!.evidence.some((e) => e.code === "channel_lost" && e.eventIds.includes(close.eventId)), "the close on the broker lane is the one the verdict cites");
    assert.deepEqual(t.gaps, [{ fromLane: a.id, toLane: b.id, deliveries: ["d1", "d2"], from: a.spans[0]!.start, to: b.spans[0]!.start, gapMs: 12, clockSkewMs: 0, duplicate: 0 }]);
  });

  it("keeps each consumer's own connection, channel and consumer events on its lane, and leaves the publisher's closes out", () => {
    const { t } = timelineOf(firehose("ack-lost-socket.ndjson"));
    assert.deepEqual(
      lane(t, channel("127.0.0.1:34170")).marks.map((m) => [m.kind, m.note, m.context]),
      [
        ["joined", "connection_opened", true],
        ["joined", "channel_opened", true],
        ["rebalance", "consumer_created dupscope-it-ack-lost-f1577479", true],
      ],
    );
    assert.deepEqual(
      lane(t, channel("127.0.0.1:34156")).marks.map((m) => m.kind),
      ["joined", "joined", "publish"],
      "order-api closing after the story requeued nothing of this key",
    );
  });

  it("ack_lost (channel closed): the channel-level close sits on the broker lane between the delivery and the redelivery", () => {
    const { t } = timelineOf(firehose("ack-lost-channel.ndjson"));
    assert.deepEqual(
      brokerStory(t).slice(0, 3),
      [
        ["deliver", "dupscope-it-ack-lost-2bbb000e → invoice-worker-a (1)", 166],
        ["closed", "channel_closed invoice-worker-a (1)", 168],
        ["redeliver", "dupscope-it-ack-lost-2bbb000e → invoice-worker-b (1)", 196],
      ],
    );
    assert.deepEqual(t.gaps.map((g) => [g.fromLane, g.toLane, g.gapMs]), [[`consumer:${channel("127.0.0.1:34144")}`, `consumer:${channel("127.0.0.1:34150")}`, 30]]);
  });

  it("dlq_replay: the copy's way back (dead-lettered, shovelled) is the broker's, and the shovel gets no lane of its own", () => {
    const { t, diagnosis } = timelineOf(firehose("dlq-replay.ndjson"));
    assert.equal(diagnosis.duplicates[0]!.cause, "dlq_replay");
    assert.ok(
      diagnosis.deliveries.some((d) => d.instance?.startsWith("<rabbit%40localhost.")),
      "the shovel's pick-up from the DLQ is a delivery of the key to a connection inside the broker",
    );
    assert.deepEqual(
      t.lanes.map((l) => [l.role, laneName(l, en)]),
      [
        ["producer", "order-api · 127.0.0.1:34230 · channel 1"],
        ["consumer", "invoice-worker-a · 127.0.0.1:34246 · channel 1"],
        ["consumer", "invoice-worker-b · 127.0.0.1:34254 · channel 1"],
        ["broker", BROKER],
      ],
    );
    const q = "dupscope-it-work-424f6cc5";
    assert.deepEqual(brokerStory(t), [
      ["deliver", `${q} → invoice-worker-a (1)`, 153],
      ["closed", "channel_closed invoice-worker-a (1)", 196],
      ["dead_letter", `rejected ${q} → ${q}.dlq`, 3404],
      ["shovel", `${q}-replay ${q}.dlq → ${q}`, 3405],
      ["deliver", `${q} → invoice-worker-b (1)`, 3446],
    ]);
    assert.equal(lane(t, channel("127.0.0.1:34254")).spans[0]!.redelivered, false, "a replayed copy is a new message to the broker");
    assert.deepEqual(t.gaps.map((g) => [g.fromLane, g.toLane, g.gapMs]), [[`consumer:${channel("127.0.0.1:34246")}`, `consumer:${channel("127.0.0.1:34254")}`, 3293]]);
  });

  it("producer_retry: two publishes on the publisher's lane, two first deliveries to the one consumer", () => {
    const { t } = timelineOf(firehose("producer-retry.ndjson"));
    const [producer, consumer, broker] = t.lanes;
    assert.deepEqual(producer!.marks.filter((m) => !m.context).map((m) => m.kind), ["publish", "publish"]);
    assert.equal(consumer!.spans.length, 2);
    assert.deepEqual(broker!.marks.filter((m) => !m.context).map((m) => m.kind), ["deliver", "deliver"], "neither copy was redelivered");
    assert.equal(t.gaps[0]!.fromLane, t.gaps[0]!.toLane);
  });

  it("consume_timeout: the server log's ack timeout on the broker lane, before the channel close it caused", () => {
    const { t, diagnosis } = timelineOf([...firehose("ack-timeout.ndjson"), ...serverLog("rabbitmq-3.10.log")]);
    assert.equal(diagnosis.duplicates[0]!.cause, "consume_timeout");
    assert.deepEqual(
      brokerStory(t).slice(0, 4).map(([kind, note]) => [kind, note]),
      [
        ["deliver", "dupscope-it-ack-timeout-105d2f32 → invoice-worker-a (1)"],
        ["vanished", "ack_timeout invoice-worker-a (1)"],
        ["closed", "channel_closed invoice-worker-a (1)"],
        ["redeliver", "dupscope-it-ack-timeout-105d2f32 → invoice-worker-b (1)"],
      ],
    );
    assert.equal(t.gaps[0]!.gapMs, 60_035);
  });

  it("draws a close reported by both the event exchange and the server log once", () => {
    const { t } = timelineOf([...firehose("ack-timeout.ndjson"), ...serverLog("rabbitmq-3.10.log")]);
    const closes = brokerStory(t).filter(([kind]) => kind === "closed").map(([, note]) => note);
    assert.deepEqual(closes, ["channel_closed invoice-worker-a (1)", "channel_closed invoice-worker-b (1)", "connection_closed invoice-worker-a", "connection_closed invoice-worker-b"]);
  });

  it("puts the broker's deliveries and the server log's lines on the broker lane whatever source name they were ingested under", () => {
    const read = (dir: string, name: string) => readFileSync(path.join(testdata, dir, "testdata", name), "utf8");
    const { t } = timelineOf([
      ...parseFirehose(read("rabbitmq-firehose", "ack-timeout.ndjson"), { source: "incident-4711" }).events,
      ...parseServerLog(read("rabbitmq-server-log", "rabbitmq-3.10.log"), { source: "incident-4711-node-log" }).events,
    ]);
    assert.deepEqual(
      brokerStory(t).slice(0, 4).map(([kind]) => kind),
      ["deliver", "vanished", "closed", "redeliver"],
    );
  });

  it("names a channel by its address when no event told the connection's name (the clients connected before the collector)", () => {
    const text = readFileSync(path.join(testdata, "rabbitmq-firehose", "testdata", "ack-lost-socket.ndjson"), "utf8");
    const late = text
      .split("\n")
      .filter((line) => !/"routingKey":"connection\./.test(line))
      .join("\n");
    const { t } = timelineOf(parseFirehose(late, { source: "rabbitmq-firehose:late" }).events);
    assert.deepEqual(
      t.lanes.filter((l) => l.role !== "broker").map((l) => laneName(l, en)),
      ["127.0.0.1:34156 · channel 1", "127.0.0.1:34170 · channel 1", "127.0.0.1:34178 · channel 1"],
    );
  });
});
