import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpanKind } from "@opentelemetry/api";
import fc from "fast-check";
import { decodeProtobuf } from "../../../collectors/otlp-traces/decode.ts";
import { mapSpans, parseKeyRules } from "../../../collectors/otlp-traces/map.ts";
import { openBrokerLog } from "../../../collectors/rocketmq-broker-log/parse.ts";
import { openClientLog } from "../../../collectors/rocketmq-client-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { foldMembers, groupModelAt, memberChangesIn, membersDuring, SPANS_VIA } from "../../../lib/diagnosis/members.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { memberLanes, membersAt } from "../../../lib/groups/member-lanes.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { gmt8 } from "../../../lib/simulator/clock.ts";
import { dedup, HOUR, SEC, T0 } from "../../helpers/diagnosis-events.ts";
import { protobufBody, SpanRecorder } from "../../helpers/otel.ts";

/**
 * A group's members over time (lib/diagnosis/members.ts), folded from the broker's and the client's own lines: the
 * intervals do not depend on the order lines arrive in, a line ingested twice is one change, and diagnosis reads the
 * model and shared clientIds from them when the raw lines are gone.
 */

const GROUP = "cg_order_paid";
const HOST = "10.0.11.20";
const channel = (clientId: string, port: number, at: number, host = HOST) =>
  `ClientChannelInfo [channel=[id: 0x5c1d7f0e, L:/10.0.0.2:10911 - R:/${host}:${port}], clientId=${clientId}, language=JAVA, version=401, lastUpdateTimestamp=${T0 + at}]`;
const connected = (at: number, clientId: string, port: number, model = "CLUSTERING", host = HOST) =>
  `${gmt8(T0 + at, "s")} INFO HeartbeatThread_3 - new consumer connected, group: ${GROUP} CONSUME_PASSIVELY ${model} channel: ${channel(clientId, port, at, host)}`;
const unregistered = (at: number, clientId: string, port: number) =>
  `${gmt8(T0 + at, "s")} INFO ClientManageThread_1 - unregister a consumer[${GROUP}] from consumerGroupInfo ${channel(clientId, port, at)}`;
const inactive = (at: number, clientId: string, port: number) =>
  `${gmt8(T0 + at, "s")} INFO NettyServerCodecThread_2 - NETTY EVENT: remove not active channel[${channel(clientId, port, at)}] from ConsumerGroupInfo groupChannelTable, consumer group: ${GROUP}`;
const groupRemoved = (at: number) => `${gmt8(T0 + at, "s")} INFO ClientManageThread_2 - unregister consumer ok, no any connection, and remove consumer group, ${GROUP}`;

function broker(lines: string[], instance = "broker-a"): NormalizedEvent[] {
  const parsed = parseLines(lines.join("\n"), openBrokerLog({ source: `rocketmq-broker-log:${instance}.log`, instance }));
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.skipped, 0);
  return parsed.events;
}

const fold = (events: readonly NormalizedEvent[]) => foldMembers(memberChangesIn(events));
const shape = (events: readonly NormalizedEvent[]) => fold(events).map((i) => [i.member, i.remote, i.since, i.until, i.closedBy]);

describe("group members over time", () => {
  it("opens on a connect and closes on the member's unregister, repeats and all", () => {
    const events = broker([connected(0, `${HOST}@4242`, 48864), connected(30 * SEC, `${HOST}@4242`, 48864), unregistered(HOUR, `${HOST}@4242`, 48864), inactive(HOUR + SEC, `${HOST}@4242`, 48864)]);
    assert.deepEqual(shape(events), [[`${HOST}@4242`, `${HOST}:48864`, T0, T0 + HOUR, "close"]]);
  });

  it("gives the same intervals whatever order the lines arrive in, and once for a line ingested twice", () => {
    const events = broker([
      connected(0, `${HOST}@DEFAULT`, 48864),
      connected(2 * SEC, `${HOST}@DEFAULT`, 51202),
      unregistered(HOUR, `${HOST}@DEFAULT`, 48864),
      connected(2 * HOUR, `10.0.11.21@DEFAULT`, 40001, "CLUSTERING", "10.0.11.21"),
      groupRemoved(3 * HOUR),
    ]);
    const inOrder = shape(events);
    fc.assert(
      fc.property(fc.shuffledSubarray([...events, ...events], { minLength: events.length * 2, maxLength: events.length * 2 }), (shuffled) => {
        assert.deepEqual(shape(shuffled), inOrder);
      }),
    );
    assert.deepEqual(inOrder, [
      [`${HOST}@DEFAULT`, `${HOST}:48864`, T0, T0 + HOUR, "close"],
      [`${HOST}@DEFAULT`, `${HOST}:51202`, T0 + 2 * SEC, T0 + 3 * HOUR, "emptied"],
      [`10.0.11.21@DEFAULT`, `10.0.11.21:40001`, T0 + 2 * HOUR, T0 + 3 * HOUR, "emptied"],
    ]);
  });

  it("ends a connection when the clientId reconnects from another host, keeps a close without its connect, and knows a line ingested under two broker names is no collision", () => {
    const moved = broker([connected(0, "order-svc@DEFAULT", 48864), connected(HOUR, "order-svc@DEFAULT", 40001, "CLUSTERING", "10.0.11.99")]);
    assert.deepEqual(shape(moved).map((s) => s[4]), ["moved", null]);
    const orphan = broker([unregistered(HOUR, `${HOST}@4242`, 48864), inactive(HOUR + SEC, `${HOST}@4242`, 48864)]);
    assert.deepEqual(shape(orphan), [[`${HOST}@4242`, `${HOST}:48864`, null, T0 + HOUR, "close"]]);
    const twice = [...broker([connected(0, `${HOST}@DEFAULT`, 48864)], "broker-a"), ...broker([connected(0, `${HOST}@DEFAULT`, 48864)], "broker-a-copy")];
    const intervals = fold(twice);
    assert.equal(intervals.length, 2);
    assert.notEqual(intervals[0]!.via, intervals[1]!.via, "one connection per broker name: the collision rule compares within one broker");
  });

  it("ends the connection before when a clientId that names one process connects again through that broker, and keeps both for a clientId processes can share", () => {
    const unique = `${HOST}@21094#7579880367965`;
    const reconnects = broker([connected(0, unique, 48864), connected(4 * 60_000, unique, 49640), connected(8 * 60_000, unique, 52367)]);
    assert.deepEqual(shape(reconnects), [
      [unique, `${HOST}:48864`, T0, T0 + 4 * 60_000, "reconnected"],
      [unique, `${HOST}:49640`, T0 + 4 * 60_000, T0 + 8 * 60_000, "reconnected"],
      [unique, `${HOST}:52367`, T0 + 8 * 60_000, null, null],
    ]);
    const otherBroker = [...broker([connected(0, unique, 48864)], "broker-a"), ...broker([connected(60_000, unique, 49640)], "broker-b")];
    assert.deepEqual(fold(otherBroker).map((i) => i.until), [null, null], "one channel per broker: a connection through another broker ends nothing");
    for (const shared of [`${HOST}@1`, `${HOST}@DEFAULT`, `${HOST}@order-svc`]) {
      const both = broker([connected(0, shared, 48864), connected(2 * SEC, shared, 51202)]);
      assert.deepEqual(shape(both).map((s) => s[3]), [null, null], `${shared} may be two processes: both connections stay open`);
    }
  });

  it("ends the connection from the address a broker's expired-channel line names, and makes no member of the address", () => {
    const expired = (at: number, port: number) =>
      `${gmt8(T0 + at, "s")} WARN ClientHousekeepingScheduledThread1 - SCAN: remove expired channel from ConsumerManager consumerTable. channel=${HOST}:${port}, consumerGroup=${GROUP}`;
    const clientId = `${HOST}@55940#5274475822225`;
    assert.deepEqual(shape(broker([connected(0, clientId, 37432), expired(2 * 60_000, 37432), expired(HOUR, 40001)])), [[clientId, `${HOST}:37432`, T0, T0 + 2 * 60_000, "close"]]);
  });

  it("ends every connection of a member when its own log says it shut down", () => {
    const client = parseLines(
      `${gmt8(T0 + HOUR, "ms")} INFO main - The PullServiceImpl service shutdown\n` +
        `${gmt8(T0 + HOUR, "ms")} INFO main - the consumer [${GROUP}] shutdown OK`,
      openClientLog({ source: "rocketmq-client-log:rocketmq_client.log", instance: `${HOST}@4242` }),
    ).events;
    const intervals = fold([...broker([connected(0, `${HOST}@4242`, 48864)]), ...client]);
    assert.deepEqual(intervals.map((i) => [i.until, i.closedBy]), [[T0 + HOUR, "close"]]);
    assert.deepEqual(membersDuring(intervals, GROUP, T0 + 2 * HOUR, T0 + 3 * HOUR), []);
  });

  it("knows the group's model at a time from the newest interval that named one", () => {
    const intervals = fold(broker([connected(0, `${HOST}@1`, 1, "BROADCASTING"), connected(HOUR, `${HOST}@2`, 2, "CLUSTERING")]));
    assert.equal(groupModelAt(intervals, GROUP, T0 + 30 * 60_000)?.model, "BROADCASTING");
    assert.equal(groupModelAt(intervals, GROUP, T0 + 2 * HOUR)?.model, "CLUSTERING");
    assert.equal(groupModelAt(intervals, GROUP, T0 - SEC), undefined);
  });
});

describe("diagnosis reads the members, not the lines around the key", () => {
  const KEY = "PAY-20261130-000777";
  const MSG = "0A000005303918B4AAC27A1C3A900777";
  const at = 3 * 24 * HOUR;
  const events = [
    dedup({ at, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@4242`, layer: "redis", decision: "pass", ttlMs: 86_400_000 }),
    dedup({ at: at + 3, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@4242`, layer: "redis", decision: "executed" }),
    dedup({ at: at + 7, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@5151`, layer: "redis", decision: "hit" }),
  ];
  const lines = broker([connected(0, `${HOST}@order-paid-consumer`, 48864), connected(2 * SEC, `${HOST}@order-paid-consumer`, 51202)]);
  const stored = fold(lines).map((i) => ({ ...i, sinceRaw: false }));

  it("names a shared clientId from connections three days old whose lines expired, and says so in both languages", () => {
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: [] }).duplicates[0]?.cause, "shared_client_id", "without the members, nothing says it");
    const v = diagnoseKey({ bizKey: KEY, events, context: [], members: stored }).duplicates[0]!;
    assert.equal(v.cause, "shared_client_id");
    const e = v.evidence.find((x) => x.code === "client_id_shared")!;
    assert.deepEqual(e.eventIds, lines.map((l) => l.id), "the expired lines' ids still name the two connections");
    assert.match(describeEvidence(e), /from 10\.0\.11\.20:48864 and 10\.0\.11\.20:51202, connected since 12:00:00\.000 and 12:00:02\.000, raw lines expired\)/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /原始日志已过期/);
  });

  it("does not name it once one of the two connections closed before the key", () => {
    const closed = fold([...lines, ...broker([unregistered(HOUR, `${HOST}@order-paid-consumer`, 48864)])]);
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: [], members: closed }).duplicates[0]?.cause, "shared_client_id");
  });
});

describe("member lanes for the pages", () => {
  it("marks a member whose two connections through one broker overlapped, and says who was in the group at a time", () => {
    const intervals = fold(
      broker([
        connected(0, `${HOST}@DEFAULT`, 48864),
        connected(2 * SEC, `${HOST}@DEFAULT`, 51202),
        connected(HOUR, "10.0.11.21@7311", 40001, "CLUSTERING", "10.0.11.21"),
        unregistered(2 * HOUR, `${HOST}@DEFAULT`, 48864),
      ]),
    );
    const lanes = memberLanes(intervals, T0, T0 + 3 * HOUR);
    assert.deepEqual(
      lanes.map((l) => [l.member, l.collision, l.connections.map((c) => [c.remote, c.collides, c.closedBy])]),
      [
        [`${HOST}@DEFAULT`, true, [[`${HOST}:48864`, true, "close"], [`${HOST}:51202`, true, null]]],
        ["10.0.11.21@7311", false, [["10.0.11.21:40001", false, null]]],
      ],
    );
    assert.deepEqual(membersAt(intervals, GROUP, T0 + 30 * 60_000).map((l) => [l.member, l.collision]), [[`${HOST}@DEFAULT`, true]]);
    assert.deepEqual(membersAt(intervals, GROUP, T0 + 150 * 60_000).map((l) => [l.member, l.collision]), [[`${HOST}@DEFAULT`, false], ["10.0.11.21@7311", false]]);
  });
});

/** Consumer spans, made by the OpenTelemetry SDK and decoded from its OTLP encoding, as the receiver maps them. */
function consumerSpans(resource: Record<string, string | number>, group: string, offsets: readonly number[], extra: Record<string, string> = {}): NormalizedEvent[] {
  const recorder = new SpanRecorder(resource, "io.opentelemetry.kafka-clients-2.6");
  for (const at of offsets) {
    recorder.span({
      name: "orders process",
      kind: SpanKind.CONSUMER,
      start: T0 + at,
      end: T0 + at + 20,
      attributes: {
        "messaging.system": "kafka",
        "messaging.destination.name": "orders",
        "messaging.operation": "process",
        "messaging.destination.partition.id": "0",
        "messaging.kafka.message.offset": at,
        "messaging.kafka.consumer.group": group,
        ...extra,
      },
    });
  }
  return mapSpans(decodeProtobuf(protobufBody(recorder.spans())).spans, parseKeyRules("")).events;
}

const pod = (name: string) => ({ "service.name": "billing", "k8s.pod.name": name });
const every = (from: number, to: number, step: number) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe("members known from their consumer spans", () => {
  const a = consumerSpans(pod("billing-7c9f-a"), "billing", every(0, 4 * HOUR, 20 * 60_000), { "messaging.client_id": "consumer-billing-1" });
  const b = consumerSpans(pod("billing-7c9f-b"), "billing", every(5 * 60_000, HOUR + 5 * 60_000, 20 * 60_000), { "messaging.client_id": "consumer-billing-1" });
  const spansShape = (events: readonly NormalizedEvent[]) => fold(events).map((i) => [i.member, i.instance, i.via, i.since, i.until, i.closedBy]);

  it("runs from a process's first span to its last, ended once the group's spans went on two hours without it; the member is the process, whatever clientId its replicas share", () => {
    assert.deepEqual(spansShape([...a, ...b]), [
      ["billing-7c9f-a", "billing-7c9f-a", SPANS_VIA, T0, null, null],
      ["billing-7c9f-b", "billing-7c9f-b", SPANS_VIA, T0 + 5 * 60_000, T0 + HOUR + 5 * 60_000 + 20, "unseen"],
    ]);
  });

  it("ends an interval at its last span when its process comes back after two hours, and opens another", () => {
    const back = consumerSpans(pod("billing-7c9f-a"), "billing", [7 * HOUR], { "messaging.client_id": "consumer-billing-1" });
    const shape = spansShape([...a, ...back]);
    assert.deepEqual(shape.map((s) => [s[3], s[4], s[5]]), [
      [T0, T0 + 4 * HOUR + 20, "unseen"],
      [T0 + 7 * HOUR, null, null],
    ]);
  });

  it("gives the same intervals whatever order the spans arrive in, and once for a span exported twice", () => {
    const events = [...a, ...b];
    const inOrder = spansShape(events);
    fc.assert(
      fc.property(fc.shuffledSubarray([...events, ...events], { minLength: events.length * 2, maxLength: events.length * 2 }), (shuffled) => {
        assert.deepEqual(spansShape(shuffled), inOrder);
      }),
      { numRuns: 50 },
    );
  });

  it("keeps the model a RocketMQ span names, and no member for a span whose resource names only the service", () => {
    const recorder = new SpanRecorder(pod("ledger-5d8f9-abcde"), "io.opentelemetry.rocketmq-client-5.0");
    recorder.span({
      name: "pay-topic process",
      kind: SpanKind.CONSUMER,
      start: T0,
      end: T0 + 30,
      attributes: {
        "messaging.system": "rocketmq",
        "messaging.destination.name": "pay-topic",
        "messaging.operation": "process",
        "messaging.rocketmq.client_group": "ledger-group",
        "messaging.rocketmq.consumption_model": "broadcasting",
        "messaging.message.id": "01A9F3C2D4E5F60708090A0B0C",
        "messaging.rocketmq.message.keys": ["PAY-1"],
      },
    });
    const events = mapSpans(decodeProtobuf(protobufBody(recorder.spans())).spans, parseKeyRules("")).events;
    const intervals = fold(events);
    assert.deepEqual(intervals.map((i) => [i.member, i.model, i.via]), [["ledger-5d8f9-abcde", "BROADCASTING", SPANS_VIA]]);
    assert.equal(groupModelAt(intervals, "ledger-group", T0 + HOUR)?.model, "BROADCASTING");
    assert.deepEqual(fold(consumerSpans({ "service.name": "billing" }, "billing", [0, 60_000])), []);
  });

  it("is who was in the group when a key was delivered, on the pages", () => {
    const intervals = fold([...a, ...b]);
    assert.deepEqual(membersAt(intervals, "billing", T0 + 30 * 60_000).map((l) => l.member), ["billing-7c9f-a", "billing-7c9f-b"]);
    assert.deepEqual(membersAt(intervals, "billing", T0 + 3 * HOUR).map((l) => l.member), ["billing-7c9f-a"]);
  });
});
