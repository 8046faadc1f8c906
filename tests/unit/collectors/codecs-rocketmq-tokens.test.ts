import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  parseChannel,
  parseClientId,
  parseGrpcAssignments,
  parseGrpcMessageQueue,
  parseMessageQueue,
  parseMessageQueueList,
  parseMessages,
  queueName,
} from "../../../collectors/codecs/rocketmq-tokens.ts";

const MESSAGE_EXT =
  "MessageExt [brokerName=broker-b, queueId=2, storeSize=314, queueOffset=3307, sysFlag=0, bornTimestamp=1796040005790, " +
  "bornHost=/10.0.0.9:41822, storeTimestamp=1796040005793, storeHost=/10.0.0.3:10911, msgId=0A00000300002A9F0000000000C0FFEE, " +
  "commitLogOffset=12648430, bodyCRC=1187290312, reconsumeTimes=2, preparedTransactionOffset=0, toString()=Message{topic='order_paid', " +
  "flag=0, properties={MIN_OFFSET=0, KEYS=order-13 tenant-7, UNIQ_KEY=0A000009303918B4AAC27A1C3A900001, TAGS=paid}, " +
  "body=[123, 125], transactionId='null'}]";

describe("MessageQueue tokens", () => {
  it("parses one MessageQueue and names it brokerName:queueId", () => {
    const mq = parseMessageQueue("MessageQueue [topic=%RETRY%cg_order_paid, brokerName=broker-a, queueId=3]");
    assert.deepEqual(mq, { topic: "%RETRY%cg_order_paid", brokerName: "broker-a", queueId: 3 });
    assert.equal(queueName(mq!), "broker-a:3");
  });

  it("rejects a MessageQueue with a non-numeric queue id or extra text", () => {
    assert.equal(parseMessageQueue("MessageQueue [topic=t, brokerName=b, queueId=x]"), undefined);
    assert.equal(parseMessageQueue("MessageQueue [topic=t, brokerName=b, queueId=1] and more"), undefined);
  });

  it("parses a Set.toString list and an empty one", () => {
    const list = parseMessageQueueList(
      "[MessageQueue [topic=t, brokerName=broker-a, queueId=0], MessageQueue [topic=t, brokerName=broker-b, queueId=1]]",
    );
    assert.deepEqual(list?.map(queueName), ["broker-a:0", "broker-b:1"]);
    assert.deepEqual(parseMessageQueueList("[]"), []);
  });

  it("finds the queues inside MessageQueueAssignment entries", () => {
    const list = parseMessageQueueList(
      "[MessageQueueAssignment [MessageQueue=MessageQueue [topic=t, brokerName=broker-a, queueId=1], Mode=PULL]]",
    );
    assert.deepEqual(list?.map(queueName), ["broker-a:1"]);
  });

  it("refuses a list with one garbled entry rather than reading it shorter", () => {
    assert.equal(
      parseMessageQueueList("[MessageQueue [topic=t, brokerName=b, queueId=zero], MessageQueue [topic=t, brokerName=b, queueId=1]]"),
      undefined,
    );
  });

  it("parses the gRPC client's broker.topic.queueId queues and Assignments", () => {
    assert.deepEqual(parseGrpcMessageQueue("broker-a.order_paid.3"), { brokerName: "broker-a", topic: "order_paid", queueId: 3 });
    assert.deepEqual(parseGrpcMessageQueue("broker.a.order_paid.3")?.brokerName, "broker.a");
    assert.equal(parseGrpcMessageQueue("order_paid"), undefined);
    const assignments = parseGrpcAssignments(
      "Assignments{assignmentList=[Assignment{messageQueue=broker-a.t.0}, Assignment{messageQueue=broker-b.t.1}]}",
    );
    assert.deepEqual(assignments?.map(queueName), ["broker-a:0", "broker-b:1"]);
    assert.deepEqual(parseGrpcAssignments("null"), []);
    assert.equal(parseGrpcAssignments("something else"), undefined);
  });

  it("round-trips any valid MessageQueue", () => {
    const name = fc.stringMatching(/^[%A-Za-z0-9_-]{1,40}$/);
    fc.assert(
      fc.property(name, name, fc.nat(1023), (topic, brokerName, queueId) => {
        assert.deepEqual(parseMessageQueue(`MessageQueue [topic=${topic}, brokerName=${brokerName}, queueId=${queueId}]`), {
          topic,
          brokerName,
          queueId,
        });
      }),
    );
  });
});

describe("clientId tokens", () => {
  it("parses the remoting client's ip@instanceName[@unitName]", () => {
    assert.deepEqual(parseClientId("10.0.0.5@31337#2104881822301"), {
      raw: "10.0.0.5@31337#2104881822301",
      host: "10.0.0.5",
      instanceName: "31337#2104881822301",
      suffix: null,
    });
    assert.equal(parseClientId("10.0.0.5@DEFAULT@unitA")?.suffix, "unitA");
  });

  it("parses the gRPC client's host@pid@index@nanotime", () => {
    const id = parseClientId("order-svc-7d9f@40411@0@lk3h2x1q8");
    assert.equal(id?.host, "order-svc-7d9f");
    assert.equal(id?.instanceName, "40411");
    assert.equal(id?.suffix, "0@lk3h2x1q8");
  });

  it("rejects text that is not a clientId", () => {
    for (const text of ["10.0.0.5", "@31337", "10.0.0.5@", "a b@c", ""]) assert.equal(parseClientId(text), undefined, text);
  });
});

describe("message tokens", () => {
  it("takes UNIQ_KEY as the msgId and MessageExt's msgId field as the offset id", () => {
    const [message] = parseMessages(`[${MESSAGE_EXT}]`);
    assert.deepEqual(message, {
      msgId: "0A000009303918B4AAC27A1C3A900001",
      offsetMsgId: "0A00000300002A9F0000000000C0FFEE",
      topic: "order_paid",
      brokerName: "broker-b",
      queueId: 2,
      queueOffset: 3307,
      reconsumeTimes: 2,
      keys: ["order-13", "tenant-7"],
    });
  });

  it("falls back to the offset id for a message without UNIQ_KEY", () => {
    const [message] = parseMessages(MESSAGE_EXT.replace("UNIQ_KEY=0A000009303918B4AAC27A1C3A900001, ", ""));
    assert.equal(message?.msgId, "0A00000300002A9F0000000000C0FFEE");
  });

  it("reads every message of a batch and old MessageExt without brokerName", () => {
    const old = MESSAGE_EXT.replace("brokerName=broker-b, ", "");
    const messages = parseMessages(`[${MESSAGE_EXT}, ${old}]`);
    assert.equal(messages.length, 2);
    assert.equal(messages[1]?.brokerName, null);
    assert.equal(messages[1]?.queueId, 2);
  });

  it("reads a producer's Message toString in both wordings", () => {
    const [current] = parseMessages("Message{topic='order_shipped', flag=0, properties={KEYS=o-42, UNIQ_KEY=0A0000057A69, WAIT=true}, body=[1], transactionId='null'}");
    assert.equal(current?.topic, "order_shipped");
    assert.equal(current?.msgId, "0A0000057A69");
    assert.equal(current?.offsetMsgId, null);
    const [old] = parseMessages("Message [topic=order_shipped, flag=0, properties={UNIQ_KEY=0A0000057A69}, body=1]");
    assert.equal(old?.topic, "order_shipped");
  });

  it("finds no message in text without one", () => {
    assert.deepEqual(parseMessages("[]"), []);
    assert.deepEqual(parseMessages("<unprintable>"), []);
  });
});

describe("channel tokens", () => {
  it("reads clientId and the remote side of a ClientChannelInfo, open or closed", () => {
    for (const arrow of ["-", "!"]) {
      const token = parseChannel(
        `ClientChannelInfo [channel=[id: 0x5c1f0a7e, L:/10.0.0.2:10911 ${arrow} R:/10.0.0.5:53211], clientId=10.0.0.5@31337, language=JAVA, version=395, lastUpdateTimestamp=1796039998690]`,
      );
      assert.deepEqual(token, { clientId: "10.0.0.5@31337", remoteAddress: "10.0.0.5:53211" });
    }
  });

  it("reads old brokers' channel=/ip:port and a bare ip:port", () => {
    assert.deepEqual(parseChannel("ClientChannelInfo [channel=/10.0.0.5:53211, clientId=10.0.0.5@31337, language=JAVA, version=1]"), {
      clientId: "10.0.0.5@31337",
      remoteAddress: "10.0.0.5:53211",
    });
    assert.deepEqual(parseChannel("10.0.0.7:50321"), { clientId: null, remoteAddress: "10.0.0.7:50321" });
  });

  it("gives nothing for text that names no client", () => {
    assert.deepEqual(parseChannel("GrpcClientChannel{}"), { clientId: null, remoteAddress: null });
  });
});

describe("token parsers on garbage", () => {
  it("never throw", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseMessageQueue(text);
        parseMessageQueueList(text);
        parseGrpcMessageQueue(text);
        parseGrpcAssignments(text);
        parseClientId(text);
        parseMessages(text);
        parseChannel(text);
      }),
    );
  });
});
