import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import * as extract from "../../../collectors/codecs/extract.ts";
import { FORMATS } from "../../../collectors/registry.ts";
import { parseLines } from "../../../collectors/types.ts";

/** Lines built to make a backtracking pattern take quadratic or exponential time. */
const HOSTILE = [
  "a".repeat(1 << 20),
  "a.".repeat(1 << 19),
  "[".repeat(10_000) + "rebalance" + "]".repeat(10_000),
  `${"{".repeat(10_000)}"COMMITFAIL"${"}".repeat(10_000)}`,
  "consume ".repeat(100_000) + "fail",
  "commit ".repeat(100_000),
  "t-0, ".repeat(100_000),
  "partitions [" + "t-1, ".repeat(50_000),
  "MessageQueue [topic=" + "x".repeat(500_000),
  "Exception".repeat(50_000),
  "joined ".repeat(100_000) + "generation",
  "error_code: ".repeat(60_000),
  `  File "x.py", line 1, in f\n`.repeat(20_000) + "pika.exceptions.StreamLostError: Stream connection lost",
  "heartbeats ".repeat(100_000) + "timeout: 60s",
  "a.exceptions.".repeat(80_000),
  "Claimed:map[" + "t:[0 1] ".repeat(100_000),
  "messages from " + "a@".repeat(300_000),
  'memberAssignment={"t":['.repeat(40_000),
  `assignment={${'"t":[0,'.repeat(100_000)}`,
  `${"a".repeat(199)}#`.repeat(5_000) + "consumer-1",
  // JSON 32 objects deep, and a JSON line carried as a string 10 times over (each level doubles the escapes).
  `${'{"message":'.repeat(32)}"commit failed"${"}".repeat(32)}`,
  (() => {
    let json = JSON.stringify({ message: "commit failed", level: "error" });
    for (let i = 0; i < 10; i++) json = JSON.stringify({ message: json });
    return json;
  })(),
];

describe("signals and extractors on hostile lines", () => {
  it("cost a linear pass: no line takes a log format's parser 3 s", () => {
    for (const format of FORMATS.filter((f) => /-log$/.test(f.name))) {
      for (const line of HOSTILE) {
        const started = performance.now();
        parseLines(line, format.open({ source: "hostile", inputTime: Date.UTC(2026, 11, 7) }));
        const ms = performance.now() - started;
        // Generous for a slow machine: a quadratic scan of a 1 MiB line takes minutes.
        assert.ok(ms < 3000, `${format.name} took ${Math.round(ms)} ms on ${JSON.stringify(line.slice(0, 24))}…`);
      }
    }
  });

  it("the extractors each cost a linear pass", () => {
    for (const [name, fn] of Object.entries(extract)) {
      if (typeof fn !== "function") continue;
      for (const line of HOSTILE) {
        const started = performance.now();
        (fn as (t: string) => unknown)(line);
        assert.ok(performance.now() - started < 500, `${name} on ${JSON.stringify(line.slice(0, 24))}…`);
      }
    }
  });
});

describe("extractors read every notation the clients print", () => {
  it("partitions", () => {
    const tp = (text: string) => extract.partitionsIn(text).map((p) => `${p.topic}-${p.partition}`);
    assert.deepEqual(tp("Revoking {TopicPartition(topic='orders', partition=3), TopicPartition(topic='orders', partition=4)}"), ["orders-3", "orders-4"]);
    assert.deepEqual(tp('Group "g": assigning partitions: orders [0]@12, orders[1]'), ["orders-0", "orders-1"]);
    assert.deepEqual(tp("Revoked partitions: [orders-0, pay.v2-11]"), ["orders-0", "pay.v2-11"]);
    assert.deepEqual(tp("Offset commit failed: {orders-7=OffsetAndMetadata{offset=42, leaderEpoch=null, metadata=''}}"), ["orders-7"]);
    assert.deepEqual(tp("[Consumer clientId=consumer-g-1, groupId=g] [pool-1-thread-3] nothing here"), [], "a client id and a thread name are not partitions");
    assert.deepEqual(tp("on_revoke Partition assignment revoked: partitions=[TopicPartition{topic=my-topic,partition=29,offset=-1001,error=None}]"), ["my-topic-29"]);
    assert.deepEqual(tp("unable to commit offset for topic partition; group: g, topic: mytopic, partition: 47, commit_from: 305390"), ["mytopic-47"]);
    assert.deepEqual(tp('level=warn msg="lost partition" topic=orders partition=3'), ["orders-3"]);
    assert.deepEqual(tp('{"msg":"revoked","topic":"orders","partition":5}'), ["orders-5"]);
    assert.deepEqual(tp("topic=orders offset=12 partitions=4"), [], "a count is not a partition");
  });

  it("a partition key after a topic key, in any structured logger (property)", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9._-]{0,20}$/);
    const render = fc.constantFrom(
      (t: string, p: number) => `topic: ${t}, partition: ${p}`,
      (t: string, p: number) => `topic=${t} partition=${p}`,
      (t: string, p: number) => `"topic":"${t}","partition":${p}`,
      (t: string, p: number) => `topic='${t}', partition=${p}`,
    );
    fc.assert(
      fc.property(name, fc.integer({ min: 0, max: 9999 }), render, (t, p, r) => {
        assert.deepEqual(extract.partitionsIn(`commit failed; group: g, ${r(t, p)}, error_code: 25`).map((x) => `${x.topic}-${x.partition}`), [`${t}-${p}`]);
      }),
    );
  });

  it("queues, channels, timeouts, members and generations", () => {
    assert.deepEqual(extract.messageQueuesIn("mq=MessageQueue [topic=pay, brokerName=broker-a, queueId=3]"), [{ topic: "pay", broker: "broker-a", queueId: 3 }]);
    assert.equal(extract.channelIn("delivery acknowledgement on channel 2 timed out"), 2);
    assert.equal(extract.timeoutMsIn("Timeout value used: 1800000 ms."), 1_800_000);
    assert.equal(extract.memberIdIn("JoinGroup response: GenerationId 11, my MemberId rdkafka-d98c (me)"), "rdkafka-d98c");
    assert.equal(extract.generationIn("JoinGroup response: GenerationId 11"), 11);
    assert.equal(extract.memberIdIn("the member id was not recognized"), undefined, "a sentence's words are no id");
    assert.equal(extract.groupIn("Consumer group session timed out (in join-state steady)"), undefined, "librdkafka's group session is no group name");
    assert.equal(extract.groupIn("Group member (test_consumer,coor=#PID<0.1077.0>,cb=#PID<0.1073.0>,generation=18):"), "test_consumer");
    assert.equal(extract.memberIdIn("Member oCpRdkCgQGWK7Rq-kJ2BVw with epoch 0 transitioned from UNSUBSCRIBED to JOINING."), "oCpRdkCgQGWK7Rq-kJ2BVw");
    assert.equal(extract.clientIdIn("%4|1610634034.520|COMMITFAIL|rdkafka#consumer-20| [thrd:main]"), "rdkafka#consumer-20");
    assert.equal(extract.exceptionIn("Caused by: org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed"), "org.apache.kafka.clients.consumer.CommitFailedException");
  });

  it("fields written as JSON keys, as in a kafkajs record nested as a string in the application's JSON line", () => {
    const line = JSON.stringify({ level: "warn", msg: "kafka", log: JSON.stringify({ level: "ERROR", logger: "kafkajs", message: "[Runner] The group is rebalancing, re-joining", groupId: "orders-consumer", memberId: "orders-1-9f2c" }) });
    const [event] = parseLines(line, FORMATS.find((f) => f.name === "kafka-client-log")!.open({ source: "nested", inputTime: Date.UTC(2026, 10, 30) })).events;
    assert.deepEqual([event?.kind, event?.detail.action, event?.group, event?.detail.memberId], ["rebalance", "joining", "orders-consumer", "orders-1-9f2c"]);
  });

  it("the 4.x consumer's state machine and reconciliation block (KIP-848)", () => {
    const kafka = (text: string) => parseLines(text, FORMATS.find((f) => f.name === "kafka-client-log")!.open({ source: "kip848" })).events;
    const line = (message: string) => `[2026-11-30 12:00:01,000] INFO [Consumer clientId=c-1, groupId=g] ${message} (org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager)`;
    const actions = (message: string) => kafka(line(message)).map((e) => `${e.kind}/${e.detail.action}`);
    assert.deepEqual(actions("Member uI0z with epoch 4 transitioned from STABLE to FENCED."), ["rebalance/membership_lost"]);
    assert.deepEqual(actions("Member uI0z with epoch 0 transitioned from FENCED to JOINING."), ["rebalance/joining"]);
    assert.deepEqual(actions("Member uI0z with epoch 5 transitioned from RECONCILING to STABLE."), ["rebalance/joined"]);
    assert.deepEqual(actions("Member uI0z with epoch 5 transitioned from STABLE to PREPARE_LEAVING."), ["instance_lifecycle/leave_group"]);
    assert.deepEqual(actions("Member uI0z with epoch 5 transitioned from JOINING to RECONCILING."), []);
    const block = (added: string, revoked: string) =>
      [
        "[2026-11-30 12:00:02,000] INFO [Consumer clientId=c-1, groupId=g] Reconciling assignment with local epoch 4",
        "\tMember:                                    uI0z",
        "\tAssigned partitions:                       [orders-0, orders-2]",
        "\tCurrent owned partitions:                  [orders-1, orders-2]",
        `\tAdded partitions (assigned - owned):       [${added}]`,
        `\tRevoked partitions (owned - assigned):     [${revoked}]`,
        " (org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager)",
      ].join("\n");
    assert.deepEqual(kafka(block("orders-0", "orders-1")).map((e) => [e.detail.action, e.queue, e.group]), [["assign", "orders-0", "g"], ["revoke", "orders-1", "g"]]);
    assert.deepEqual(kafka(block("", "")), [], "a reconciliation that moved nothing states no fact");
  });

  it("RocketMQ wordings from the clients' own sources", () => {
    const read = (format: string, line: string) =>
      parseLines(line, FORMATS.find((f) => f.name === format)!.open({ source: "upstream", instance: "10.0.0.5@4121" })).events.map((e) => `${e.kind}/${e.detail.action}`);
    // rocketmq-clients (5.x gRPC Java, Go, C#): ConsumeTask.
    assert.deepEqual(
      read("rocketmq-client-log", "2026-11-30 20:00:02,000 ERROR [RocketmqMessageConsumption-0-1] o.a.r.c.j.i.c.ConsumeTask - Message listener raised an exception while consuming messages, clientId=host-1@4121@0@abcd, messageId=01C0A800010A1B2C3D4E5F60718293A4B5"),
      ["instance_lifecycle/consume_exception"],
    );
    // apache/rocketmq ConsumeMessageConcurrentlyService: the listener returned null (no msgId on the line: not a key's event).
    assert.deepEqual(read("rocketmq-client-log", "2026-11-30 20:00:02,000 WARN ConsumeMessageThread_1 - consumeMessage return null, Group: cg_pay Msgs: [] MQ: MessageQueue [topic=PAY, brokerName=broker-a, queueId=3]"), [
      "instance_lifecycle/consume_exception",
    ]);
  });

  it("a JSON map of topics to partition lists, under an assignment key only", () => {
    const tp = (text: string) => extract.partitionsIn(text).map((p) => `${p.topic}-${p.partition}`);
    assert.deepEqual(tp('memberAssignment={"invoices":[0,2],"pay.v2":[11]}'), ["invoices-0", "invoices-2", "pay.v2-11"]);
    assert.deepEqual(tp('memberMetadata={"type":"Buffer","data":[0,1,0,0]}'), [], "a byte buffer is not an assignment");
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9._-]{0,20}$/), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 9999 }), { minLength: 1, maxLength: 6 }),
        (topics, partitions) => {
          const map = Object.fromEntries(topics.map((t) => [t, partitions]));
          const want = topics.flatMap((t) => partitions.map((p) => `${t}-${p}`));
          assert.deepEqual(tp(`memberAssignment=${JSON.stringify(map)}`), want);
        },
      ),
    );
  });

  it("a librdkafka handle name however it is framed, and a name rendered quoted", () => {
    assert.equal(extract.clientIdIn("severity=7 | fac=REJOIN | name=rdkafka#consumer-1"), "rdkafka#consumer-1");
    assert.equal(extract.clientIdIn('{"name":"sim-ordotest2#consumer-1"}'), "sim-ordotest2#consumer-1");
    assert.equal(extract.clientIdIn("issue #consumer-1"), undefined, "a bare hash sign names no handle");
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (name) => {
        assert.equal(extract.unquoted(`"${name}"`), name);
        assert.equal(extract.unquoted(`'${name}'`), name);
        if (!/^(["']).+\1$/s.test(name)) assert.equal(extract.unquoted(name), name);
      }),
    );
  });

  it("a kafkajs join read from its JSON fields: member id and the assignment map", () => {
    const line = JSON.stringify({ level: "INFO", timestamp: "2026-11-30T12:00:00.000Z", logger: "kafkajs", message: "[ConsumerGroup] Consumer has joined the group", groupId: "billing", memberId: "billing-api-3f1c", leaderId: "billing-api-3f1c", isLeader: true, memberAssignment: { invoices: [0, 2] }, groupProtocol: "RoundRobinAssigner", duration: 48 });
    const events = parseLines(line, FORMATS.find((f) => f.name === "kafka-client-log")!.open({ source: "kafkajs", inputTime: Date.UTC(2026, 10, 30) })).events;
    assert.deepEqual(events.map((e) => [e.detail.action, e.group, e.queue, e.detail.memberId]), [
      ["joined", "billing", "invoices-0", "billing-api-3f1c"],
      ["joined", "billing", "invoices-2", "billing-api-3f1c"],
    ]);
  });

  it("never throw, whatever the text (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        for (const fn of Object.values(extract)) if (typeof fn === "function") (fn as (t: string) => unknown)(text);
      }),
    );
  });
});
