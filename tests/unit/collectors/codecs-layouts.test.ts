import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { findFormat } from "../../../collectors/registry.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";

/**
 * Prefix-agnostic recognition: one message of each template, written behind prefixes generated from the layouts
 * seen in the field (logback/log4j/log4j2 patterns, Spring Boot, pid, MDC and connector contexts, padded columns,
 * container and syslog envelopes, JSON encoders, a logger appended after the message), gives the same event as
 * the same message behind the plain reference layout.
 */

const WALL = "2026-11-30 20:00:01.204";

/** One message per template family, as the clients print it. */
const MESSAGES: Record<string, string[]> = {
  "rocketmq-client-log": [
    "doRebalance, cg_order_paid, remove unnecessary mq, MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]",
    "doRebalance, cg_order_paid, add a new mq, MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]",
    "rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=cg_order_paid, topic=order_paid, clientId=10.0.0.5@31337, mqAllSize=4, cidAllSize=2, rebalanceResultSize=2, rebalanceResultSet=[MessageQueue [topic=order_paid, brokerName=broker-a, queueId=0], MessageQueue [topic=order_paid, brokerName=broker-a, queueId=1]]",
    "receive broker's notification[10.0.0.2:10911], the consumer group: cg_order_paid changed, rebalance immediately",
    "the consumer [cg_order_paid] start OK.",
    "invoke reset offset operation from broker. brokerAddr=10.0.0.2:10911, topic=order_paid, group=cg_order_paid, timestamp=1796011200000",
    "doRebalance, cg_order_paid, add a new mq failed, MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3], because lock failed",
    "broker rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=cg_order_paid, topic=order_paid, clientId=10.0.0.5@31337, assignmentSet=[MessageQueue [topic=order_paid, brokerName=broker-a, queueId=0]]",
    "Assignments of topic=order_paid has changed, null => Assignments{assignmentList=[Assignment{messageQueue=broker-a.order_paid.0}]}, clientId=10.0.0.5@31337@0@3k2j1h",
    "Drop message queue according to the latest assignmentList, mq=broker-a.order_paid.1, clientId=10.0.0.5@31337@0@3k2j1h",
    "processQueue is dropped without process consume result. messageQueue=MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3], msgs=[MessageExt [brokerName=broker-a, queueId=3, queueOffset=4818, msgId=0A00000200002A9F00000000001B5E10, toString()=Message{topic='order_paid', flag=0, properties={KEYS=order-42, UNIQ_KEY=0A000009303918B4AAC27A1C3F760003}, body=[123], transactionId='null'}]]",
    "send expire msg back. topic=order_paid, msgId=0A000009303918B4AAC27A1C4A0B0021, storeHost=/10.0.0.2:10911, queueId=0, queueOffset=4790",
    "consumeMessage exception: java.lang.IllegalStateException: boom Group: cg_order_paid Msgs: [MessageExt [brokerName=broker-a, queueId=3, queueOffset=4818, msgId=0A00000200002A9F00000000001B5E10, toString()=Message{topic='order_paid', flag=0, properties={UNIQ_KEY=0A000009303918B4AAC27A1C3F760003}, body=[123], transactionId='null'}]] MQ: MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]",
    "sendKernelImpl exception, resend at once, InvokeID: -4418235377613350071, RT: 3ms, Broker: MessageQueue [topic=order_shipped, brokerName=broker-b, queueId=2]",
    "consumeMessageDirectly receive new message: MessageExt [brokerName=broker-a, queueId=3, queueOffset=4818, msgId=0A00000200002A9F00000000001B5E10, toString()=Message{topic='order_paid', flag=0, properties={UNIQ_KEY=0A000009303918B4AAC27A1C3F760003}, body=[123], transactionId='null'}]",
    "the consumer [cg_order_paid] shutdown OK",
    "unregister client[Producer: null Consumer: cg_order_paid] from broker[broker-a 0 10.0.0.2:10911] success",
    "Drop mq:MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3],because not responsive",
    "Add mq:MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3], request initial offset:4818",
    "the message queue not be able to consume, because it's dropped. group=cg_order_paid MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]",
    "closeChannel: close the connection to remote address[10.0.0.2:10911] result: true",
  ],
  "rocketmq-broker-log": [
    "NETTY EVENT: remove not active channel[ClientChannelInfo [channel=[id: 0x5c1f0a7e, L:/10.0.0.2:10911 ! R:/10.0.0.5:53211], clientId=10.0.0.5@31337, language=JAVA, version=435, lastUpdateTimestamp=1796011200000]] from ConsumerGroupInfo groupChannelTable, consumer group: cg_order_paid",
    "unregister consumer ok, no any connection, and remove consumer group, cg_order_paid",
    "new consumer connected, group: cg_order_paid CONSUME_PASSIVELY CLUSTERING channel: ClientChannelInfo [channel=[id: 0x5c1f0a7e, L:/10.0.0.2:10911 - R:/10.0.0.5:53211], clientId=10.0.0.5@31337, language=JAVA, version=435, lastUpdateTimestamp=1796011200000]",
    "SCAN: remove expired channel from ConsumerManager consumerTable. channel=10.0.0.5:53211, consumerGroup=cg_order_paid",
    "Check transaction. real_topic=order_paid,uniqKey=0A000009303918B4AAC27A1C3F760003,offset=88,commitLogOffset=123456",
    "NETTY SERVER PIPELINE: channelInactive, the channel[10.0.0.5:53211]",
  ],
  "kafka-client-log": [
    "[Consumer clientId=consumer-points-1, groupId=points] Revoke previously assigned partitions order-paid-0, order-paid-1",
    "[Consumer clientId=consumer-points-1, groupId=points] Adding newly assigned partitions: order-paid-0",
    "[Consumer clientId=consumer-points-1, groupId=points] Successfully joined group with generation Generation{generationId=7, memberId='consumer-points-1-5f0c', protocol='range'}",
    "[Consumer clientId=consumer-points-1, groupId=points] Lost previously assigned partitions order-paid-2",
    "[Consumer clientId=consumer-points-1, groupId=points] (Re-)joining group",
    "points: partitions assigned: [order-paid-0, order-paid-1]",
    "[Consumer clientId=consumer-points-1, groupId=points] Request joining group due to: group is already rebalancing",
    "[Consumer clientId=consumer-points-1, groupId=points] consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms.",
    "[Consumer clientId=consumer-points-1, groupId=points] Member consumer-points-1-5f0c sending LeaveGroup request to coordinator kafka-2:9092 (id: 2147483645 rack: null) due to the consumer is being closed",
    "[Consumer clientId=consumer-points-1, groupId=points] Offset commit failed on partition order-paid-0 at offset 42: The coordinator is not aware of this member.",
    "Revoking previously assigned partitions [order-paid-0] for group points",
    "Successfully joined group points with generation 5",
    "Revoking previously assigned partitions {TopicPartition(topic='order-paid', partition=0)} for group points",
    "[Worker clientId=connect-1, groupId=connect-cluster] Rebalance started",
  ],
};

const DEFAULT_OFFSET: Record<string, string> = { "rocketmq-client-log": "+08:00", "rocketmq-broker-log": "+08:00", "kafka-client-log": "Z" };

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.$-]{0,14}$/);
const level = fc.constantFrom("INFO", "WARN", "ERROR", "DEBUG");
const stamp = fc.constantFrom(WALL, WALL.replace(".", ","), WALL.replace(" ", "T"), `[${WALL.replace(".", ",")}]`);
const logger = fc.constantFrom("o.a.k.c.c.internals.ConsumerCoordinator", "RocketmqClient", "org.apache.rocketmq.client.impl.consumer.RebalanceImpl", "c.e.Listener");

/** A line layout: the prefix printed before the message and the suffix after it. */
const layout = fc.oneof(
  fc.tuple(stamp, level, word, logger).map(([t, l, th, lg]) => ({ before: `${t} ${l} [${th}] ${lg} - `, after: "" })),
  fc.tuple(stamp, level, word, logger).map(([t, l, th, lg]) => ({ before: `${t} ${l.padEnd(5)} {${th}} ${lg}-${th.length} - `, after: "" })),
  fc.tuple(level, fc.integer({ min: 1, max: 99999 }), word, logger).map(([l, pid, th, lg]) => ({ before: `${WALL}  ${l.padStart(5)} ${pid} --- [${th.padStart(15)}] ${lg.padEnd(40)} : `, after: "" })),
  fc.tuple(stamp, level, logger, fc.integer({ min: 1, max: 2000 })).map(([t, l, lg, n]) => ({ before: `${t} ${l} `, after: ` (${lg}:${n})` })),
  fc.tuple(stamp, level, word, word).map(([t, l, c, th]) => ({ before: `${t} ${l} [${c}|task-0] [${th}] `, after: "" })),
  fc.tuple(stamp, level, word).map(([t, l, mdc]) => ({ before: `[${mdc}] ${t} ${l} [main] - `, after: "" })),
  fc.tuple(word, stamp, level).map(([svc, t, l]) => ({ before: `${svc.toLowerCase()}-1  | ${t} ${l} main - `, after: "" })),
  fc.tuple(stamp, level).map(([t, l]) => ({ before: `2026-11-30T12:00:01.204570123Z ${t} ${l} main - `, after: "" })),
  fc.tuple(stamp, level, word).map(([t, l, host]) => ({ before: `<134>Nov 30 12:00:01 ${host} app[42]: ${t} ${l} main - `, after: "" })),
);

function eventsOf(format: string, line: string): NormalizedEvent[] {
  const parser = findFormat(format)!.open({ source: "layouts", instance: "10.0.0.5@31337" });
  return [...parser.line(line, 1).events, ...parser.end().events];
}

/** What the message says, without what depends on the raw line (id) or the layout (pid-derived instance). */
function meaning(events: NormalizedEvent[]) {
  return events.map((e) => ({ kind: e.kind, ts: e.ts, group: e.group, topic: e.topic, queue: e.queue, action: e.detail.action, generationId: e.detail.generationId }));
}

function jsonLine(message: string, encoder: "logstash" | "ecs" | "log4j2"): string {
  const iso = new Date(Date.parse(`${WALL.replace(" ", "T")}Z`)).toISOString();
  if (encoder === "logstash") return JSON.stringify({ "@timestamp": iso, "@version": "1", message, logger_name: "x", thread_name: "main", level: "INFO" });
  if (encoder === "ecs") return JSON.stringify({ "@timestamp": iso, "log.level": "INFO", message, "ecs.version": "1.2.0", "log.logger": "x" });
  return JSON.stringify({ instant: { epochSecond: Math.floor(Date.parse(iso) / 1000), nanoOfSecond: 204000000 }, level: "INFO", message, loggerName: "x" });
}

describe("prefix-agnostic recognition", () => {
  for (const [format, messages] of Object.entries(MESSAGES)) {
    for (const message of messages) {
      const reference = meaning(eventsOf(format, `${WALL} INFO main - ${message}`));
      it(`${format}: "${message.slice(0, 60)}…" reads the same behind any layout`, () => {
        assert.ok(reference.length > 0, "the reference layout is recognised");
        fc.assert(
          fc.property(layout, (l) => {
            const got = meaning(eventsOf(format, `${l.before}${message}${l.after}`));
            // Container and syslog stamps are UTC; the application's own stamp is in the format's default zone.
            assert.deepEqual(got, reference);
          }),
          { numRuns: 60 },
        );
      });
      it(`${format}: "${message.slice(0, 60)}…" reads the same from JSON encoders`, () => {
        for (const encoder of ["logstash", "ecs", "log4j2"] as const) {
          const got = meaning(eventsOf(format, jsonLine(message, encoder)));
          const offsetMs = DEFAULT_OFFSET[format] === "Z" ? 0 : 8 * 3600_000;
          assert.deepEqual(
            got.map((e) => ({ ...e, ts: e.ts - offsetMs })),
            reference,
            encoder,
          );
        }
      });
    }
  }
});

describe("a stamp before a JSON record", () => {
  it("reads the record whatever stamp a viewer or shipper put before it, and the record's own time wins (property)", () => {
    const kafka = findFormat("kafka-client-log")!;
    const stamp = fc.constantFrom("2024-04-11 11:28:22.650\t", "2024-04-11T11:28:22.650+03:00 ", "Apr 11 11:28:22 host-1: ", "2024/04/11 11:28:22 ");
    fc.assert(
      fc.property(stamp, fc.integer({ min: 0, max: 99 }), (prefix, partition) => {
        const record = JSON.stringify({ added: { orders: [partition] }, group: "g", level: "info", msg: "new group session begun", time: "2024-04-11T08:28:22Z" });
        const parser = kafka.open({ source: "stamped", date: "2024-04-11" });
        const events = [...parser.line(prefix + record, 1).events, ...parser.end().events];
        assert.deepEqual(
          events.map((e) => [e.detail.action, e.queue, new Date(e.ts).toISOString()]),
          [["assign", `orders-${partition}`, "2024-04-11T08:28:22.000Z"]],
        );
      }),
    );
  });

  it("leaves a log line whose message ends in a JSON payload alone: its level and message are not an envelope", () => {
    const rabbit = findFormat("rabbitmq-client-log")!.open({ source: "payload", date: "2026-11-30" });
    const line = `2026-11-30 10:00:00 ERROR x: ${JSON.stringify({ error: "Channel closed by server: 406 (PRECONDITION-FAILED)" })}`;
    const [e] = [...rabbit.line(line, 1).events, ...rabbit.end().events];
    assert.deepEqual([e?.detail.action, e?.detail.level, new Date(e?.ts ?? 0).toISOString()], ["channel_closed", "ERROR", "2026-11-30T10:00:00.000Z"]);
  });
});
