import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseContext } from "../../../collectors/types.ts";
import { parse, parseBrokerLogLine } from "../../../collectors/rocketmq-broker-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";
import { memberChangeOf } from "../../../lib/diagnosis/members.ts";

const CTX: ParseContext = { source: "rocketmq-broker-log:test", instance: "broker-a" };
const PREFIX = "2026-11-30 20:00:20 INFO HeartbeatThread_1 - ";
const CHANNEL_INFO = (arrow: string) =>
  `ClientChannelInfo [channel=[id: 0x7e03d5b1, L:/10.0.0.2:10911 ${arrow} R:/10.0.0.7:50321], clientId=10.0.0.7@8812#2104901442861, ` +
  "language=JAVA, version=453, lastUpdateTimestamp=1796040020004]";

function oneEvent(line: string, ctx: ParseContext = CTX): NormalizedEvent {
  const result = parseBrokerLogLine(line, 1, ctx);
  assert.equal(result.issue, undefined, `unexpected issue for ${line}: ${result.issue?.reason}`);
  assert.equal(result.events.length, 1, `expected one event for ${line}`);
  return result.events[0]!;
}

describe("rocketmq broker log: consumer connections", () => {
  it("a new consumer connection names the group, the consumer's ip@pid and its channel", () => {
    const line = `${PREFIX}new consumer connected, group: cg_order_paid CONSUME_PASSIVELY CLUSTERING channel: ${CHANNEL_INFO("-")}`;
    const event = oneEvent(line);
    assert.equal(event.kind, "instance_lifecycle");
    assert.equal(event.group, "cg_order_paid");
    assert.equal(event.instance, "10.0.0.7@8812");
    assert.deepEqual(event.detail, {
      template: "consumer_connected",
      action: "connected",
      consumeType: "CONSUME_PASSIVELY",
      messageModel: "CLUSTERING",
      instanceRaw: "10.0.0.7@8812#2104901442861",
      remoteAddress: "10.0.0.7:50321",
      brokerInstance: "broker-a",
      brokerLine: line,
    });
  });

  it("an unregistered consumer", () => {
    const event = oneEvent(`${PREFIX}unregister a consumer[cg_order_paid] from consumerGroupInfo ${CHANNEL_INFO("-")}`);
    assert.equal(event.detail.action, "unregistered");
    assert.equal(event.group, "cg_order_paid");
    assert.equal(event.instance, "10.0.0.7@8812");
  });

  it("a channel the broker saw close, in the 4.x and the 5.x wording", () => {
    const old = oneEvent(
      `${PREFIX}NETTY EVENT: remove not active channel[${CHANNEL_INFO("!")}] from ConsumerGroupInfo groupChannelTable, consumer group: cg_order_paid`,
    );
    const current = oneEvent(`${PREFIX}NETTY EVENT: remove idle channel[${CHANNEL_INFO("!")}] from ConsumerGroupInfo, consumerGroup: cg_order_paid`);
    for (const event of [old, current]) {
      assert.equal(event.detail.template, "channel_inactive");
      assert.equal(event.detail.action, "channel_inactive");
      assert.equal(event.group, "cg_order_paid");
      assert.equal(event.instance, "10.0.0.7@8812");
    }
  });

  it("a channel expired by the broker's scan: the consumer is known by its host only", () => {
    const event = oneEvent(`${PREFIX}SCAN: remove expired channel from ConsumerManager consumerTable. channel=10.0.0.7:50321, consumerGroup=cg_order_paid`);
    assert.equal(event.detail.action, "channel_expired");
    assert.equal(event.instance, "10.0.0.7");
    assert.equal(event.detail.instanceRaw, "10.0.0.7:50321");
  });

  it("an old broker's ClientChannelInfo with channel=/ip:port", () => {
    const event = oneEvent(
      `${PREFIX}new consumer connected, group: g CONSUME_PASSIVELY CLUSTERING channel: ClientChannelInfo [channel=/10.0.0.7:50321, clientId=10.0.0.7@8812, language=JAVA, version=1]`,
    );
    assert.equal(event.instance, "10.0.0.7@8812");
    assert.equal(event.detail.remoteAddress, "10.0.0.7:50321");
  });

  it("a channel naming no client leaves the instance unknown", () => {
    const event = oneEvent(`${PREFIX}unregister a consumer[g] from consumerGroupInfo GrpcClientChannel{}`);
    assert.equal(event.instance, null);
  });
});

describe("rocketmq broker log: transaction check-backs", () => {
  it("a check-back is a transaction event for the uniqKey, its half-queue offset kept apart", () => {
    const event = oneEvent(
      "2026-11-30 20:01:00 INFO TransactionalMessageCheckService - Check transaction. real_topic=order_created,uniqKey=0A0000057A6918B4AAC27A1C3B110005,offset=88,commitLogOffset=2291840",
    );
    assert.equal(event.kind, "transaction");
    assert.equal(event.msgId, "0A0000057A6918B4AAC27A1C3B110005");
    assert.equal(event.topic, "order_created");
    assert.equal(event.queueOffset, null);
    assert.equal(event.instance, null);
    assert.equal(event.detail.checkback, true);
    assert.equal(event.detail.halfQueueOffset, 88);
    assert.equal(event.detail.commitLogOffset, 2291840);
    assert.equal(event.detail.brokerInstance, "broker-a");
  });

  it("accepts separators with a space after the comma", () => {
    const event = oneEvent(
      "2026-11-30 20:01:00 INFO TransactionalMessageCheckService - Check transaction. real_topic=t, uniqKey=0A01, offset=1, commitLogOffset=2",
    );
    assert.equal(event.msgId, "0A01");
  });

  it("a check-back without uniqKey is kept unkeyed", () => {
    const event = oneEvent("2026-11-30 20:03:00 INFO TransactionalMessageCheckService - Check transaction. real_topic=null,uniqKey=null,offset=93,commitLogOffset=2311002");
    assert.equal(event.kind, "instance_lifecycle");
    assert.equal(event.topic, null);
    assert.equal(event.detail.unkeyed, true);
  });
});

describe("rocketmq broker log: time", () => {
  it("keeps broker.log's second precision, read as GMT+8", () => {
    const event = oneEvent(`${PREFIX}SCAN: remove expired channel from ConsumerManager consumerTable. channel=10.0.0.7:50321, consumerGroup=g`);
    assert.equal(event.tsPrecision, "s");
    assert.equal(new Date(event.ts).toISOString(), "2026-11-30T12:00:20.000Z");
  });

  it("uses the context's utcOffset when given", () => {
    const event = oneEvent(`${PREFIX}SCAN: remove expired channel from ConsumerManager consumerTable. channel=10.0.0.7:50321, consumerGroup=g`, {
      ...CTX,
      utcOffset: "+00:00",
    });
    assert.equal(new Date(event.ts).toISOString(), "2026-11-30T20:00:20.000Z");
  });
});

describe("rocketmq broker log: skipped lines and issues", () => {
  it("counts other broker lines as skipped, a stack trace as part of the line before it", () => {
    const text = [
      "2026-11-30 19:59:50 INFO brokerOutApi_thread_1 - register broker[0]to name server 10.0.0.1:9876 OK",
      "2026-11-30 20:12:31 WARN ClientHousekeepingScheduledThread1 - SCAN: remove expired channel from ConsumerManager consumerTable, all clear, consumerGroup=g",
      "2026-11-30 20:12:32 WARN TransactionalMessageCheckService - Check transaction failed, channel table is empty. groupId=pg",
      "java.io.IOException: Connection reset by peer",
      "\tat sun.nio.ch.FileDispatcherImpl.read0(Native Method)",
    ].join("\n");
    assert.deepEqual(parse(text, CTX), { events: [], issues: [], skipped: 3, lines: 5 });
  });

  it("reports garbage fields as invalid_field naming the template", () => {
    const result = parseBrokerLogLine(
      "2026-11-30 20:01:00 INFO TransactionalMessageCheckService - Check transaction. real_topic=t,uniqKey=u,offset=eighty,commitLogOffset=1",
      4,
      CTX,
    );
    assert.deepEqual(result, { events: [], issue: { line: 4, code: "invalid_field", reason: "transaction_check: the line's fields do not parse" } });
  });

  it("reports an impossible timestamp on a recognised line", () => {
    const result = parseBrokerLogLine(`2026-11-31 20:00:00 INFO main - unregister a consumer[g] from consumerGroupInfo ${CHANNEL_INFO("-")}`, 2, CTX);
    assert.match(result.issue?.reason ?? "", /^consumer_unregistered: impossible timestamp/);
  });

  it("gives ids that are stable and depend on the broker instance", () => {
    const line = `${PREFIX}unregister a consumer[g] from consumerGroupInfo ${CHANNEL_INFO("-")}`;
    assert.equal(oneEvent(line).id, oneEvent(line).id);
    assert.notEqual(oneEvent(line).id, oneEvent(line, { ...CTX, instance: "broker-b" }).id);
    assert.match(oneEvent(line).id, /^rocketmq-broker-log:[0-9a-f]{32}$/);
  });
});

const testdata = collectorTestdata("rocketmq-broker-log");

/** The context each fixture was recorded with (see testdata/README.md). */
const FIXTURE_CONTEXTS: Record<string, Omit<ParseContext, "source">> = {
  "broker.log": { instance: "broker-a" },
  "broker-5x.log": { instance: "broker-b" },
  "transaction.log": { instance: "broker-a" },
  "invalid-fields.log": { instance: "broker-a" },
};

describe("rocketmq broker log: fixtures", () => {
  const fixtures = testdata.fixtures(".log");

  it("has a recorded context for every fixture", () => {
    assert.deepEqual(fixtures.sort(), Object.keys(FIXTURE_CONTEXTS).sort());
  });

  for (const name of fixtures) {
    const result = parse(testdata.read(name), { source: `rocketmq-broker-log:testdata/${name}`, ...FIXTURE_CONTEXTS[name] });

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

describe("rocketmq broker log: properties", () => {
  it("never throws on arbitrary lines, with or without a prefix and a template's opening", () => {
    const openings = fc.constantFrom(
      "",
      "new consumer connected, group: ",
      "unregister a consumer[",
      "NETTY EVENT: remove not active channel[",
      "NETTY EVENT: remove idle channel[",
      "SCAN: remove expired channel from ConsumerManager consumerTable. ",
      "Check transaction. ",
    );
    fc.assert(
      fc.property(fc.constantFrom("", PREFIX, "2026-11-30 20:00:20,123 INFO RocketmqClient - "), openings, fc.string(), (head, opening, tail) => {
        const result = parseBrokerLogLine(head + opening + tail, 1, CTX);
        for (const event of result.events) assert.ok(validateEvent(event).ok);
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips the group and the consumer of a generated connection line", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/);
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(word, fc.tuple(octet, octet, octet, octet), fc.integer({ min: 1, max: 4194304 }), (group, ip, pid) => {
        const host = ip.join(".");
        const event = oneEvent(
          `${PREFIX}new consumer connected, group: ${group} CONSUME_PASSIVELY CLUSTERING channel: ClientChannelInfo [channel=[id: 0x1, ` +
            `L:/10.0.0.2:10911 - R:/${host}:50000], clientId=${host}@${pid}#1, language=JAVA, version=453, lastUpdateTimestamp=1]`,
        );
        assert.equal(event.group, group);
        assert.equal(event.instance, `${host}@${pid}`);
      }),
    );
  });
});

describe("rocketmq broker log: producer registrations", () => {
  // Producer and consumer groups are separate tables on the broker and may share a name: a producer's lines must never
  // open or close a consumer membership, or the shared-clientId and broadcast rules would count it.
  const PRODUCER = CHANNEL_INFO("-").replace("10.0.0.7@8812#2104901442861", "10.0.0.9@4410");
  const lines = [
    `${PREFIX}new producer connected, group: cg_order_paid channel: ${PRODUCER}`,
    `${PREFIX}unregister a producer[cg_order_paid] from groupChannelTable ${PRODUCER}`,
    `${PREFIX}NETTY EVENT: remove channel[${PRODUCER}][10.0.0.9:50321] from ProducerManager groupChannelTable, producer group: cg_order_paid`,
    `${PREFIX}ProducerManager#scanNotActiveChannel: remove expired channel[10.0.0.9:50321] from ProducerManager groupChannelTable, producer group name: cg_order_paid`,
    `${PREFIX}unregister a producer group[cg_order_paid] from groupChannelTable`,
    `${PREFIX}SCAN: remove expired channel from ProducerManager groupChannelTable, all clear, group=cg_order_paid`,
  ];

  it("each is a producer fact of the producer group, with the producer's clientId as instance", () => {
    const actions = lines.map((line) => {
      const event = oneEvent(line);
      assert.equal(event.group, "cg_order_paid");
      assert.equal(event.detail.role, "producer");
      return event.detail.action;
    });
    assert.deepEqual(actions, ["producer_connected", "producer_disconnected", "producer_disconnected", "producer_disconnected", "producer_group_removed", "producer_group_removed"]);
    assert.equal(oneEvent(lines[0]!).instance, "10.0.0.9@4410");
  });

  it("none is a consumer group's membership change, while the consumer's own connect is", () => {
    for (const line of lines) assert.equal(memberChangeOf(oneEvent(line)), null, line);
    const consumer = oneEvent(`${PREFIX}new consumer connected, group: cg_order_paid CONSUME_PASSIVELY BROADCASTING channel: ${CHANNEL_INFO("-")}`);
    assert.equal(memberChangeOf(consumer)?.change, "open");
  });

  it("a wording no template holds is still read as the producer's, not the consumer's", () => {
    const event = oneEvent(`${PREFIX}NETTY EVENT: removing inactive channel[${PRODUCER}] from ProducerManager, producer group: cg_order_paid`);
    assert.equal(event.detail.action, "producer_disconnected");
    assert.equal(event.group, "cg_order_paid");
    assert.equal(memberChangeOf(event), null);
  });
});
