import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseContext } from "../../../collectors/types.ts";
import { parse, parseClientLogLine } from "../../../collectors/rocketmq-client-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const CTX: ParseContext = { source: "rocketmq-client-log:test", instance: "10.0.0.5" };
const PREFIXES = [
  ["4.x", "2026-11-30 20:00:01,204 INFO RocketmqClient - "],
  ["5.x", "2026-11-30 20:00:01.204 INFO  [31337] [RebalanceService] [o.a.r.c.i.c.RebalanceImpl#updateProcessQueueTableInRebalance:489] - "],
] as const;
const P4 = PREFIXES[0][1];
const P5 = PREFIXES[1][1];

const MQ_A3 = "MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]";
const UNIQ = "0A000009303918B4AAC27A1C45B20011";
const OFFSET_ID = "0A00000200002A9F00000000001C7A40";

function messageExt(uniqKey: string, queueOffset: number, keys = "order-77"): string {
  return (
    `MessageExt [brokerName=broker-a, queueId=3, storeSize=318, queueOffset=${queueOffset}, sysFlag=0, bornTimestamp=1796040019377, ` +
    `bornHost=/10.0.0.9:41822, storeTimestamp=1796040019380, storeHost=/10.0.0.2:10911, msgId=${OFFSET_ID}, commitLogOffset=1866304, ` +
    `bodyCRC=905127416, reconsumeTimes=1, preparedTransactionOffset=0, toString()=Message{topic='order_paid', flag=0, ` +
    `properties={MIN_OFFSET=0, KEYS=${keys}, UNIQ_KEY=${uniqKey}, CLUSTER=DefaultCluster, TAGS=paid}, body=[123, 125], transactionId='null'}]`
  );
}

function lineEvents(line: string, ctx: ParseContext = CTX): NormalizedEvent[] {
  const result = parseClientLogLine(line, 1, ctx);
  assert.equal(result.issue, undefined, `unexpected issue for ${line}: ${result.issue?.reason}`);
  assert.notEqual(result.skipped, true, `skipped: ${line}`);
  return result.events;
}

function oneEvent(line: string, ctx: ParseContext = CTX): NormalizedEvent {
  const events = lineEvents(line, ctx);
  assert.equal(events.length, 1, `expected one event for ${line}`);
  return events[0]!;
}

describe("rocketmq client log: rebalance lines", () => {
  const perQueue = [
    [`doRebalance, cg_order_paid, remove unnecessary mq, ${MQ_A3}`, "rebalance_remove_mq", "remove", undefined],
    [`[BUG]doRebalance, cg_order_paid, remove unnecessary mq, ${MQ_A3}, because pull is pause, so try to fixed it`, "rebalance_remove_mq", "remove", "pull_paused"],
    [`doRebalance, cg_order_paid, add a new mq, ${MQ_A3}`, "rebalance_add_mq", "add", undefined],
    [`doRebalance, cg_order_paid, truncateMessageQueueNotMyTopic remove unnecessary mq, ${MQ_A3}`, "rebalance_truncate_mq", "remove", "topic_unsubscribed"],
    // A queue not taken, or held already, is no change of ownership: a fact about the instance, not a rebalance.
    [`doRebalance, cg_order_paid, add a new mq failed, ${MQ_A3}, because lock failed`, "rebalance_add_mq_failed", "add_failed", "lock_failed"],
    [`doRebalance, cg_order_paid, add new mq failed, ${MQ_A3}`, "rebalance_add_mq_failed", "add_failed", "offset_unavailable"],
    [`doRebalance, cg_order_paid, mq already exists, ${MQ_A3}`, "rebalance_mq_exists", "exists", undefined],
  ] as const;
  const NO_CHANGE = new Set<string>(["add_failed", "exists"]);

  for (const [version, prefix] of PREFIXES) {
    for (const [message, template, action, reason] of perQueue) {
      it(`${version}: "${template}"${reason ? ` (${reason})` : ""} gives one event for its queue`, () => {
        const event = oneEvent(prefix + message);
        assert.equal(event.kind, NO_CHANGE.has(action) ? "instance_lifecycle" : "rebalance");
        assert.equal(event.group, "cg_order_paid");
        assert.equal(event.topic, "order_paid");
        assert.equal(event.queue, "broker-a:3");
        assert.equal(event.detail.template, template);
        assert.equal(event.detail.action, action);
        assert.equal(event.detail.reason, reason);
      });
    }

    it(`${version}: the result-changed summary reads the same with and without the leading "client "`, () => {
      const body =
        "rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=cg_order_paid, topic=order_paid, " +
        "clientId=10.0.0.6@27015#2104883114127, mqAllSize=8, cidAllSize=3, rebalanceResultSize=2, " +
        `rebalanceResultSet=[${MQ_A3}, MessageQueue [topic=order_paid, brokerName=broker-b, queueId=1]]`;
      const without = oneEvent(prefix + body);
      const withClient = oneEvent(`${prefix}client ${body}`);
      assert.deepEqual({ ...withClient, id: "" }, { ...without, id: "" });
      assert.equal(without.kind, "rebalance");
      assert.equal(without.group, "cg_order_paid");
      assert.equal(without.topic, "order_paid");
      assert.equal(without.queue, null);
      assert.equal(without.instance, "10.0.0.6@27015");
      assert.deepEqual(without.detail, {
        template: "rebalance_result_changed",
        action: "result",
        allocatedBy: "client",
        strategy: "AVG",
        mqAllSize: 8,
        cidAllSize: 3,
        rebalanceResultSize: 2,
        queues: ["broker-a:3", "broker-b:1"],
        instanceRaw: "10.0.0.6@27015#2104883114127",
      });
    });

    it(`${version}: "broker rebalanced result changed" reads the queues of its assignment set`, () => {
      const event = oneEvent(
        `${prefix}broker rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=cg_invoice, topic=invoice_issued, ` +
          "clientId=10.0.0.6@27015#2104883114127, assignmentSet=[MessageQueueAssignment [MessageQueue=MessageQueue [topic=invoice_issued, " +
          "brokerName=broker-a, queueId=1], Mode=PULL], MessageQueueAssignment [MessageQueue=MessageQueue [topic=invoice_issued, brokerName=broker-b, queueId=0], Mode=POP]]",
      );
      assert.equal(event.detail.template, "broker_rebalance_result_changed");
      assert.equal(event.detail.allocatedBy, "broker");
      assert.deepEqual(event.detail.queues, ["broker-a:1", "broker-b:0"]);
      assert.equal(event.group, "cg_invoice");
      assert.equal(event.instance, "10.0.0.6@27015");
    });

    it(`${version}: a broker's notification is a rebalance trigger for the group`, () => {
      const event = oneEvent(
        `${prefix}receive broker's notification[10.0.0.2:10911], the consumer group: cg_order_paid changed, rebalance immediately`,
      );
      assert.equal(event.kind, "rebalance");
      assert.equal(event.group, "cg_order_paid");
      assert.deepEqual(event.detail, { template: "rebalance_trigger", action: "trigger", brokerAddr: "10.0.0.2:10911", instanceRaw: "10.0.0.5" });
    });

    it(`${version}: the gRPC consumer's assignment change lists queues before, after, added and removed`, () => {
      const event = oneEvent(
        `${prefix}Assignments of topic=order_paid has changed, Assignments{assignmentList=[Assignment{messageQueue=broker-a.order_paid.0}, ` +
          "Assignment{messageQueue=broker-a.order_paid.1}]} => Assignments{assignmentList=[Assignment{messageQueue=broker-a.order_paid.0}, " +
          "Assignment{messageQueue=broker-b.order_paid.2}]}, clientId=order-svc-7d9f@40411@0@lk3h2x1q8",
      );
      assert.equal(event.detail.template, "assignments_changed");
      assert.deepEqual(event.detail.queues, ["broker-a:0", "broker-b:2"]);
      assert.deepEqual(event.detail.previousQueues, ["broker-a:0", "broker-a:1"]);
      assert.deepEqual(event.detail.addedQueues, ["broker-b:2"]);
      assert.deepEqual(event.detail.removedQueues, ["broker-a:1"]);
      assert.equal(event.instance, "order-svc-7d9f@40411");
    });

    it(`${version}: the first gRPC assignment (from null) and the older "->" wording without clientId`, () => {
      const event = oneEvent(
        `${prefix}Assignments of topic=order_paid has changed, null -> Assignments{assignmentList=[Assignment{messageQueue=broker-a.order_paid.0}]}`,
      );
      assert.deepEqual(event.detail.previousQueues, []);
      assert.deepEqual(event.detail.addedQueues, ["broker-a:0"]);
    });

    it(`${version}: the gRPC consumer dropping a queue, unassigned or expired`, () => {
      const unassigned = oneEvent(
        `${prefix}Drop message queue according to the latest assignmentList, mq=broker-a.order_paid.1, clientId=order-svc-7d9f@40411@0@lk3h2x1q8`,
      );
      assert.equal(unassigned.queue, "broker-a:1");
      assert.equal(unassigned.topic, "order_paid");
      assert.equal(unassigned.detail.action, "remove");
      assert.equal(unassigned.detail.reason, undefined);
      const expired = oneEvent(`${prefix}Drop message queue because it is expired, mq=broker-b.order_paid.0, clientId=order-svc-7d9f@40411@0@lk3h2x1q8`);
      assert.equal(expired.detail.template, "drop_mq");
      assert.equal(expired.detail.reason, "expired");
    });
  }
});

describe("rocketmq client log: message evidence", () => {
  for (const [version, prefix] of PREFIXES) {
    it(`${version}: a dropped process queue with one message names that message`, () => {
      const event = oneEvent(`${prefix}processQueue is dropped without process consume result. messageQueue=${MQ_A3}, msgs=[${messageExt(UNIQ, 5120)}]`);
      assert.equal(event.kind, "rebalance");
      assert.equal(event.queue, "broker-a:3");
      assert.equal(event.msgId, UNIQ);
      assert.equal(event.offsetMsgId, OFFSET_ID);
      assert.equal(event.queueOffset, 5120);
      assert.equal(event.retryTimes, 1);
      assert.equal(event.detail.action, "dropped_without_result");
      assert.deepEqual(event.detail.msgIds, [UNIQ]);
      assert.deepEqual(event.detail.keys, ["order-77"]);
      assert.equal(event.detail.unkeyed, undefined);
    });

    it(`${version}: a dropped process queue with a batch lists the msgIds and is unkeyed`, () => {
      const other = "0A000009303918B4AAC27A1C45B20012";
      const event = oneEvent(
        `${prefix}processQueue is dropped without process consume result. messageQueue=${MQ_A3}, msgs=[${messageExt(UNIQ, 5120)}, ${messageExt(other, 5121, "order-78")}]`,
      );
      assert.equal(event.kind, "rebalance");
      assert.equal(event.msgId, null);
      assert.equal(event.queueOffset, null);
      assert.deepEqual(event.detail.msgIds, [UNIQ, other]);
      assert.deepEqual(event.detail.keys, ["order-77", "order-78"]);
      assert.equal(event.detail.unkeyed, true);
    });

    it(`${version}: "send expire msg back" is a timed-out consume end`, () => {
      const event = oneEvent(
        `${prefix}send expire msg back. topic=order_paid, msgId=0A000009303918B4AAC27A1C4A0B0021, storeHost=/10.0.0.2:10911, queueId=0, queueOffset=4790`,
      );
      assert.equal(event.kind, "consume_end");
      assert.equal(event.success, false);
      assert.equal(event.msgId, "0A000009303918B4AAC27A1C4A0B0021");
      assert.equal(event.topic, "order_paid");
      assert.equal(event.queueOffset, 4790);
      assert.equal(event.queue, null, "the line has no broker name");
      assert.deepEqual(event.detail, {
        template: "send_expire_msg_back",
        action: "consume_timeout",
        contextName: "TIME_OUT",
        storeHost: "10.0.0.2:10911",
        queueId: 0,
        instanceRaw: "10.0.0.5",
      });
    });

    it(`${version}: a consume exception gives one failed consume end per message of the batch`, () => {
      const other = "0A000009303918B4AAC27A1C45B20012";
      const events = lineEvents(
        `${prefix}consumeMessage exception: java.lang.IllegalStateException: stock Group: low, com.example.L.consume(L.java:5) Group: cg_order_paid ` +
          `Msgs: [${messageExt(UNIQ, 5120)}, ${messageExt(other, 5121)}] MQ: ${MQ_A3}`,
      );
      assert.deepEqual(
        events.map((e) => [e.kind, e.msgId, e.queueOffset, e.success, e.group, e.queue]),
        [
          ["consume_end", UNIQ, 5120, false, "cg_order_paid", "broker-a:3"],
          ["consume_end", other, 5121, false, "cg_order_paid", "broker-a:3"],
        ],
      );
      assert.equal(events[0]!.detail.error, "java.lang.IllegalStateException: stock Group: low, com.example.L.consume(L.java:5)");
      assert.equal(events[0]!.detail.contextName, "EXCEPTION");
      assert.notEqual(events[0]!.id, events[1]!.id);
    });

    it(`${version}: a consume exception without readable messages is kept unkeyed`, () => {
      const event = oneEvent(`${prefix}consumeMessage exception: java.lang.Error Group: cg_order_paid Msgs: [] MQ: ${MQ_A3}`);
      assert.equal(event.kind, "instance_lifecycle");
      assert.equal(event.detail.template, "consume_exception");
      assert.equal(event.detail.unkeyed, true);
      assert.equal(event.queue, "broker-a:3");
    });

    it(`${version}: "consumeMessageDirectly" is a direct consume start`, () => {
      const event = oneEvent(`${prefix}consumeMessageDirectly receive new message: ${messageExt(UNIQ, 12)}`);
      assert.equal(event.kind, "consume_start");
      assert.equal(event.msgId, UNIQ);
      assert.equal(event.queue, "broker-a:3");
      assert.equal(event.topic, "order_paid");
      assert.equal(event.detail.direct, true);
    });

    it(`${version}: the consumer's start and shutdown are lifecycle events for its group`, () => {
      const start = oneEvent(`${prefix}the consumer [cg_order_paid] start OK.`);
      assert.equal(start.kind, "instance_lifecycle");
      assert.equal(start.group, "cg_order_paid");
      assert.equal(start.detail.action, "start");
      const shutdown = oneEvent(`${prefix}the consumer [cg_order_paid] shutdown OK`);
      assert.equal(shutdown.detail.action, "shutdown");
      assert.equal(shutdown.detail.template, "consumer_shutdown");
    });

    it(`${version}: the retried message's toString after a resend is a keyed failed send attempt`, () => {
      const event = oneEvent(
        `${prefix}Message{topic='order_shipped', flag=0, properties={KEYS=order-42, WAIT=true, UNIQ_KEY=0A0000057A6918B4AAC27A1C40030007, TAGS=shipped}, body=[1], transactionId='null'}`,
      );
      assert.equal(event.kind, "send_attempt");
      assert.equal(event.success, false);
      assert.equal(event.msgId, "0A0000057A6918B4AAC27A1C40030007");
      assert.equal(event.topic, "order_shipped");
      assert.equal(event.detail.template, "producer_resend_message");
    });

    it(`${version}: "Send [n] times, still failed" is an unkeyed failed send with the brokers tried`, () => {
      const event = oneEvent(`${prefix}Send [3] times, still failed, cost [24]ms, Topic: invoice_issued, BrokersSent: [broker-b, broker-a, null]`);
      assert.equal(event.kind, "instance_lifecycle");
      assert.equal(event.topic, "invoice_issued");
      assert.equal(event.success, false);
      assert.deepEqual(event.detail, {
        template: "producer_send_failed",
        times: 3,
        costMs: 24,
        brokersSent: ["broker-b", "broker-a"],
        instanceRaw: "10.0.0.5",
        unkeyed: true,
      });
    });
  }

  it("4.x: a producer resend keeps invoke id, round trip and queue, unkeyed", () => {
    const event = oneEvent(
      `${P4}sendKernelImpl exception, resend at once, InvokeID: -4418235377613350071, RT: 3ms, Broker: MessageQueue [topic=order_shipped, brokerName=broker-b, queueId=2]`,
    );
    assert.equal(event.kind, "instance_lifecycle");
    assert.equal(event.success, false);
    assert.equal(event.topic, "order_shipped");
    assert.equal(event.queue, "broker-b:2");
    assert.deepEqual(event.detail, {
      template: "producer_resend",
      action: "producer_resend",
      invokeId: "-4418235377613350071",
      rtMs: 3,
      broker: "broker-b",
      instanceRaw: "10.0.0.5",
      unkeyed: true,
    });
  });

  it("5.x: a producer resend whose %s placeholders slf4j left unfilled is still recognised", () => {
    const event = oneEvent(`${P5}sendKernelImpl exception, resend at once, InvokeID: %s, RT: %sms, Broker: %s`);
    assert.equal(event.detail.template, "producer_resend");
    assert.equal(event.detail.unfilledPlaceholders, true);
    assert.equal(event.queue, null);
  });
});

describe("rocketmq client log: offsets", () => {
  const illegal = (next: string, begin: number) =>
    `${P4}the pull request offset illegal, PullRequest [consumerGroup=g, messageQueue=MessageQueue [topic=t, brokerName=broker-06, queueId=10], nextOffset=${next}] ` +
    `PullResult [pullStatus=OFFSET_ILLEGAL, nextBeginOffset=${begin}, minOffset=${begin}, maxOffset=5757977, msgFoundList=0]`;

  it("reads an illegal pull offset as a reset back, a skip forward, and a reset when the pull had no position yet (-1)", () => {
    assert.deepEqual([oneEvent(illegal("9000", 100)).detail.action, oneEvent(illegal("100", 9000)).detail.action], ["offset_reset", "offset_skipped"]);
    const fromNowhere = oneEvent(illegal("-1", 5531762));
    assert.deepEqual([fromNowhere.detail.action, fromNowhere.queue, fromNowhere.detail.fromOffset, fromNowhere.detail.toOffset], ["offset_reset", "broker-06:10", -1, 5531762]);
  });
});

describe("rocketmq client log: instances", () => {
  it("takes the instance from the clientId on the line, canonical ip@pid, keeping the raw value", () => {
    const event = oneEvent(
      `${P4}rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=g, topic=t, clientId=10.0.0.6@27015#2104883114127@unitA, ` +
        "mqAllSize=1, cidAllSize=1, rebalanceResultSize=0, rebalanceResultSet=[]",
    );
    assert.equal(event.instance, "10.0.0.6@27015");
    assert.equal(event.detail.instanceRaw, "10.0.0.6@27015#2104883114127@unitA");
  });

  it("falls back to the context's instance, canonicalised", () => {
    const event = oneEvent(`${P4}the consumer [g] start OK.`, { source: "s", instance: "10.0.0.5:8080" });
    assert.equal(event.instance, "10.0.0.5");
    assert.equal(event.detail.instanceRaw, "10.0.0.5:8080");
  });

  it("adds the 5.x prefix's pid to a bare host, not to an instance that has a process already", () => {
    assert.equal(oneEvent(`${P5}the consumer [g] start OK.`, { source: "s", instance: "10.0.0.5" }).instance, "10.0.0.5@31337");
    assert.equal(oneEvent(`${P5}the consumer [g] start OK.`, { source: "s", instance: "10.0.0.5@999" }).instance, "10.0.0.5@999");
  });

  it("leaves the instance unknown when neither the line nor the context names one", () => {
    const event = oneEvent(`${P4}the consumer [g] start OK.`, { source: "s" });
    assert.equal(event.instance, null);
    assert.equal(event.detail.instanceRaw, undefined);
  });
});

describe("rocketmq client log: time", () => {
  it("reads 4.x `2026-11-30 20:00:01,204` at the default +08:00 as 2026-11-30T12:00:01.204Z", () => {
    const event = oneEvent(`${P4}the consumer [g] start OK.`);
    assert.equal(new Date(event.ts).toISOString(), "2026-11-30T12:00:01.204Z");
    assert.equal(event.tsPrecision, "ms");
  });

  it("reads 5.x `2026-11-30 20:00:01.204,GMT+8` the same way", () => {
    assert.equal(new Date(oneEvent(`${P5}the consumer [g] start OK.`).ts).toISOString(), "2026-11-30T12:00:01.204Z");
  });

  it("uses the context's utcOffset when given", () => {
    const event = oneEvent(`${P4}the consumer [g] start OK.`, { ...CTX, utcOffset: "Z" });
    assert.equal(new Date(event.ts).toISOString(), "2026-11-30T20:00:01.204Z");
  });

  it("reads how a starting push consumer's group consumes, without counting the start as a join", () => {
    for (const model of ["CLUSTERING", "BROADCASTING"]) {
      const event = oneEvent(`${P4}the consumer [cg_config_cache] start beginning. messageModel=${model}, isUnitMode=false`);
      assert.equal(event.kind, "instance_lifecycle");
      assert.equal(event.group, "cg_config_cache");
      assert.equal(event.bizKey, null);
      assert.deepEqual(
        { action: event.detail.action, messageModel: event.detail.messageModel, unitMode: event.detail.unitMode },
        { action: "starting", messageModel: model, unitMode: false },
      );
    }
    const garbled = parse(`${P4}the consumer [g] start beginning. messageModel=SOMETIMES, isUnitMode=false`, CTX);
    assert.equal(garbled.events.length, 0);
    assert.equal(garbled.issues[0]?.code, "invalid_field");
  });

  it("keeps second precision when the line has no milliseconds", () => {
    const event = oneEvent("2026-11-30 20:00:01 INFO main - the consumer [g] start OK.");
    assert.equal(event.tsPrecision, "s");
    assert.equal(new Date(event.ts).toISOString(), "2026-11-30T12:00:01.000Z");
  });
});

describe("rocketmq client log: skipped lines and issues", () => {
  it("counts unrelated RocketMQ lines and near misses as skipped, and a stack trace as part of the line before it", () => {
    const text = [
      `${P4}send heart beat to broker[broker-a 0 10.0.0.2:10911] success`,
      `${P4}doRebalance, cg_order_paid, but the topic[order_paid] not exist.`,
      `${P4}[PersistAllConsumerOffset] Group: g ClientId: 10.0.0.5@31337 updateConsumeOffsetToBroker ${MQ_A3} 4818`,
      "java.lang.IllegalStateException: boom",
      "\tat com.example.order.PaidListener.consumeMessage(PaidListener.java:57)",
      "org.apache.rocketmq.client.exception.MQClientException: Send [3] times, still failed, cost [24]ms, Topic: t, BrokersSent: [b]",
    ].join("\n");
    const result = parse(text, CTX);
    assert.deepEqual(result, { events: [], issues: [], skipped: 3, lines: 6 });
  });

  it("reports a recognised line with garbage fields as invalid_field, naming the template", () => {
    const result = parseClientLogLine(`${P4}doRebalance, g, add a new mq, MessageQueue [topic=t, brokerName=b, queueId=x]`, 7, CTX);
    assert.deepEqual(result, {
      events: [],
      issue: { line: 7, code: "invalid_field", reason: "rebalance_add_mq: the line's fields do not parse" },
    });
  });

  it("reports an impossible timestamp on a recognised line, and skips it on any other", () => {
    const bad = parseClientLogLine("2026-02-30 20:00:01,204 INFO RocketmqClient - the consumer [g] start OK.", 3, CTX);
    assert.equal(bad.issue?.code, "invalid_field");
    assert.match(bad.issue?.reason ?? "", /^consumer_start: impossible timestamp/);
    const other = parseClientLogLine("2026-02-30 20:00:01,204 INFO RocketmqClient - heartbeat", 3, CTX);
    assert.deepEqual(other, { events: [], skipped: true });
  });

  it("reports an unusable utcOffset as an issue on recognised lines instead of throwing", () => {
    const result = parseClientLogLine(`${P4}the consumer [g] start OK.`, 1, { ...CTX, utcOffset: "Asia/Shanghai" });
    assert.equal(result.issue?.code, "invalid_field");
  });

  it("gives stable ids that differ per event of a line and per context instance", () => {
    const line = `${P4}consumeMessage exception: e Group: g Msgs: [${messageExt(UNIQ, 1)}, ${messageExt("0A01", 2)}] MQ: ${MQ_A3}`;
    const first = lineEvents(line).map((e) => e.id);
    assert.deepEqual(lineEvents(line).map((e) => e.id), first);
    assert.equal(new Set(first).size, 2);
    assert.notDeepEqual(lineEvents(line, { ...CTX, instance: "10.0.0.6" }).map((e) => e.id), first);
    assert.match(first[0]!, /^rocketmq-client-log:[0-9a-f]{32}$/);
  });
});

const testdata = collectorTestdata("rocketmq-client-log");

/** The context each fixture was recorded with (see testdata/README.md). */
const FIXTURE_CONTEXTS: Record<string, Omit<ParseContext, "source">> = {
  "client-4x.log": { instance: "10.0.0.5@31337" },
  "client-5x.log": { instance: "10.0.0.6" },
  "client-5x-grpc.log": {},
  "invalid-fields.log": { instance: "10.0.0.5@31337" },
};

describe("rocketmq client log: fixtures", () => {
  const fixtures = testdata.fixtures(".log");

  it("has a recorded context for every fixture", () => {
    assert.deepEqual(fixtures.sort(), Object.keys(FIXTURE_CONTEXTS).sort());
  });

  for (const name of fixtures) {
    const result = parse(testdata.read(name), { source: `rocketmq-client-log:testdata/${name}`, ...FIXTURE_CONTEXTS[name] });

    it(`${name} parses to its golden file`, () => {
      testdata.assertGolden(name, result);
    });

    it(`${name}: every event is one the store accepts`, () => {
      for (const event of result.events) {
        const checked = validateEvent(event);
        assert.ok(checked.ok, `${event.detail.template}: ${checked.ok ? "" : checked.reason}`);
      }
    });
  }
});

describe("rocketmq client log: properties", () => {
  const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/);
  const topic = fc.stringMatching(/^%?[A-Za-z0-9_%-]{1,40}$/);
  const prefix = fc.constantFrom(P4, P5, "2026-11-30 20:00:01 INFO main - ");

  it("never throws on arbitrary lines, with or without a prefix and a template's opening", () => {
    const openings = fc.constantFrom(
      "",
      "client rebalanced result changed. ",
      "broker rebalanced result changed. ",
      "doRebalance, g, remove unnecessary mq, ",
      "doRebalance, g, add a new mq failed, ",
      "Assignments of topic=t has changed, ",
      "Drop message queue according to the latest assignmentList, mq=",
      "receive broker's notification[",
      "processQueue is dropped without process consume result. messageQueue=",
      "send expire msg back. ",
      "consumeMessage exception: ",
      "sendKernelImpl exception, resend at once, ",
      "Message{topic=",
      "Send [3] times, still failed, ",
      "consumeMessageDirectly receive new message: MessageExt [",
      "the consumer [",
    );
    fc.assert(
      fc.property(fc.oneof(fc.constant(""), prefix), openings, fc.string(), (head, opening, tail) => {
        const result = parseClientLogLine(head + opening + tail, 1, CTX);
        for (const event of result.events) assert.ok(validateEvent(event).ok);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a consumeMessage exception cut before its group by the exception it names first", () => {
    const exception = fc.constantFrom("java.lang.IllegalStateException", "java.util.ConcurrentModificationException", "com.example.OrderRejectedException");
    const cut = fc.constantFrom((e: string) => `${e}: rejected, com.example.Listener.consumeMessage(Listener.java:58)`, (e: string) => `${e}, java.util.ArrayList.forEach(ArrayList.java:1260) `);
    fc.assert(
      fc.property(prefix, exception, cut, (head, e, render) => {
        const event = oneEvent(`${head}consumeMessage exception: ${render(e)}`);
        assert.deepEqual([event.detail.action, event.detail.exception, event.queue], ["consume_exception", e, null]);
      }),
    );
  });

  it("reads the Node.js client's topic@broker@id queue and the Python client's ClientType-named shutdown", () => {
    fc.assert(
      fc.property(prefix, topic, name, fc.nat(1023), (head, t, brokerName, queueId) => {
        const event = oneEvent(`${head}Drop message queue according to the latest assignmentList, mq=${t}@${brokerName}@${queueId}, clientId=10.0.0.7@4127@0@1a2b3c`);
        assert.deepEqual([event.detail.action, event.topic, event.queue], ["remove", t, `${brokerName}:${queueId}`]);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom("PUSH_CONSUMER", "SIMPLE_CONSUMER", "LITE_PUSH_CONSUMER", "PRODUCER"), name, (type, group) => {
        const self = `${type}:${group}, client_id:10.0.0.7@4127@0@1a2b3c`;
        assert.equal(oneEvent(`2026-11-30 10:24:40,502 [INFO] shutdown ${self} success.`).detail.action, "shutdown");
        assert.deepEqual(parseClientLogLine(`2026-11-30 10:24:40,311 [INFO] begin to to shutdown ${self}.`, 1, CTX).events, []);
      }),
    );
  });

  it("reads the C++ 5.x push consumer's namespace@topic@queueId@broker queues it stops receiving from, not a client id", () => {
    const ns = fc.stringMatching(/^[A-Za-z0-9_-]{0,12}$/);
    fc.assert(
      fc.property(ns, topic, name, fc.nat(1023), fc.boolean(), (namespace, t, brokerName, queueId, expired) => {
        const mq = `${namespace}@${t}@${queueId}@${brokerName}`;
        const message = expired ? `ProcessQueue=${mq} is expired. Remove it for now.` : `Stop receiving messages from ${mq} as it is not assigned to current client according to latest assignment result from load balancer`;
        const event = oneEvent(`2026-11-30 10:30:01.118 [--I--] [ 104523] ${message} PushConsumerImpl.cpp:306`);
        assert.deepEqual([event.detail.action, event.topic, event.queue], ["remove", t, `${brokerName}:${queueId}`]);
      }),
    );
    assert.deepEqual(parseClientLogLine("2026-11-30 10:30:01.118 [--I--] [ 104523] Heartbeat sent, clientId=10.0.0.7@4127@0@1a2b3c Client.cpp:1", 1, CTX).events, []);
  });

  it("reads both clients' messageQueueChanged as the rebalance's result, whatever the topic and versions", () => {
    fc.assert(
      fc.property(prefix, topic, fc.nat(), fc.nat(), (head, t, from, to) => {
        assert.equal(oneEvent(`${head}${t} Rebalance changed, also update version: ${from}, ${to}`).detail.action, "result");
        assert.equal(oneEvent(`time="2026-11-30T10:52:04+08:00" level=info msg="the MessageQueue changed, version also updated" changeTo=${to} changedFrom=${from}`).detail.action, "result");
      }),
    );
  });

  it("round-trips group, topic and queue of a generated per-queue rebalance line", () => {
    const wording = fc.constantFrom("remove unnecessary mq", "add a new mq", "mq already exists", "truncateMessageQueueNotMyTopic remove unnecessary mq");
    fc.assert(
      fc.property(prefix, wording, name, topic, name, fc.nat(1023), (head, what, group, t, brokerName, queueId) => {
        const event = oneEvent(`${head}doRebalance, ${group}, ${what}, MessageQueue [topic=${t}, brokerName=${brokerName}, queueId=${queueId}]`);
        assert.equal(event.group, group);
        assert.equal(event.topic, t);
        assert.equal(event.queue, `${brokerName}:${queueId}`);
      }),
    );
  });

  it("round-trips group, topic and queue set of a generated result-changed line", () => {
    const queue = fc.record({ brokerName: name, queueId: fc.nat(1023) });
    fc.assert(
      fc.property(prefix, fc.boolean(), name, topic, fc.array(queue, { maxLength: 8 }), (head, client, group, t, queues) => {
        const set = queues.map((q) => `MessageQueue [topic=${t}, brokerName=${q.brokerName}, queueId=${q.queueId}]`).join(", ");
        const event = oneEvent(
          `${head}${client ? "client " : ""}rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=${group}, topic=${t}, ` +
            `clientId=10.0.0.5@31337, mqAllSize=8, cidAllSize=2, rebalanceResultSize=${queues.length}, rebalanceResultSet=[${set}]`,
        );
        assert.equal(event.group, group);
        assert.equal(event.topic, t);
        assert.deepEqual(event.detail.queues, queues.map((q) => `${q.brokerName}:${q.queueId}`));
      }),
    );
  });
});
