import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findFormat } from "../../../collectors/registry.ts";
import { parseLines } from "../../../collectors/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";

/**
 * What the wordings read from the upstreams' sources (tests/fixtures/field/upstream-*.jsonl) must say beyond being
 * recognised: who holds a queue after a lock handover, which way an offset reset went, which id a MessageExt gives.
 */
function read(format: string, text: string): NormalizedEvent[] {
  const f = findFormat(format)!;
  return parseLines(text, f.open({ source: "test", date: "2026-11-30", inputTime: Date.UTC(2026, 10, 30) })).events;
}

describe("wordings read from the upstreams' sources", () => {
  it("a broker's expired queue lock taken over: the queue is added to the new client, the old one kept", () => {
    const [e, ...more] = read(
      "rocketmq-broker-log",
      "2024-03-11 09:18:00 WARN AdminBrokerThread_3 - RebalanceLockManager#tryLockBatch: try to lock a expired message queue, group=cg_orders, mq=MessageQueue [topic=orders, brokerName=broker-a, queueId=2], old client id=10.0.0.5@31337, new client id=10.0.0.6@27015",
    );
    assert.equal(more.length, 0);
    assert.equal(e!.kind, "rebalance");
    assert.equal(e!.detail.action, "add");
    assert.equal(e!.group, "cg_orders");
    assert.equal(e!.queue, "broker-a:2");
    assert.equal(e!.instance, "10.0.0.6@27015");
    assert.equal(e!.detail.previousClientId, "10.0.0.5@31337");
  });

  it("a lock the holder keeps moves nothing", () => {
    const events = read(
      "rocketmq-broker-log",
      "2021-06-08 14:20:40 WARN AdminBrokerThread_1 - tryLockBatch, message queue locked by other client. Group: cg_orders OtherClientId: 10.0.0.5@31337 NewClientId: 10.0.0.6@27015 MessageQueue [topic=orders, brokerName=broker-a, queueId=1]",
    );
    assert.deepEqual(events, []);
  });

  it("a channel whose clientId changed names the new consumer on it", () => {
    const info = (id: string) => `ClientChannelInfo [channel=[id: 0x5c1f0a7e, L:/10.0.0.2:10911 - R:/10.0.0.7:53211], clientId=${id}, language=JAVA, version=453, lastUpdateTimestamp=1796040020004]`;
    const [e] = read(
      "rocketmq-broker-log",
      `2026-11-30 20:00:20 ERROR ClientManageThread_4 - ConsumerGroupInfo: consumer channel exists in broker, but clientId is not the same one, group=cg_orders, old clientChannelInfo=${info("10.0.0.7@DEFAULT")}, new clientChannelInfo=${info("10.0.0.7@8812")}`,
    );
    assert.equal(e!.detail.action, "connected");
    assert.equal(e!.instance, "10.0.0.7@8812");
    assert.equal(e!.detail.previousClientId, "10.0.0.7@DEFAULT");
  });

  it("a MessageExt dumped in a consume failure gives its UNIQ_KEY, offset id, queue and offset", () => {
    const [e] = read(
      "rocketmq-client-log",
      "2021-06-08 14:20:01,337 ERROR RocketmqClient - sendMessageBack exception, group: cg_orders msg: MessageExt [brokerName=broker-a, queueId=2, storeSize=220, queueOffset=10336, sysFlag=0, bornTimestamp=1623133200100, bornHost=/10.0.0.5:40122, storeTimestamp=1623133200102, storeHost=/10.0.0.2:10911, msgId=0A01041E00002A9F00000000028A20C8, commitLogOffset=42606792, bodyCRC=19011771, reconsumeTimes=1, preparedTransactionOffset=0, toString()=Message{topic='orders', flag=0, properties={UNIQ_KEY=0A010415708818B4AAC2A1B2C3D40009, TAGS=paid}, body=[123, 125], transactionId='null'}]",
    );
    assert.equal(e!.kind, "consume_end");
    assert.equal(e!.msgId, "0A010415708818B4AAC2A1B2C3D40009");
    assert.equal(e!.offsetMsgId, "0A01041E00002A9F00000000028A20C8");
    assert.equal(e!.queue, "broker-a:2");
    assert.equal(e!.queueOffset, 10336);
    assert.equal(e!.retryTimes, 1);
  });

  it("the Go client's key=value fields name the group and the client", () => {
    const [e] = read(
      "rocketmq-client-log",
      'time="2023-05-04T10:12:33+08:00" level=info msg="MessageQueue do balance done" cidAllSize=2 clientID="10.2.0.17@14932" consumerGroup=go_orders mqAllSize=4 rebalanceResultSet="[MessageQueue [topic=orders, brokerName=broker-a, queueId=0] MessageQueue [topic=orders, brokerName=broker-a, queueId=1]]" rebalanceResultSize=2 topic=orders',
    );
    assert.equal(e!.detail.action, "result");
    assert.equal(e!.group, "go_orders");
    assert.equal(e!.instance, "10.2.0.17@14932");
    assert.deepEqual(e!.detail.queues, ["broker-a:0", "broker-a:1"]);
  });

  it("librdkafka's offset reset goes back to BEGINNING or forward to END, and a lower offset is a rewind", () => {
    const at = (to: string) => read("kafka-client-log", `%4|1710148801.130|OFFSET|rdkafka#consumer-1| [thrd:main]: orders [0]: offset reset (at offset 1500 (leader epoch 3), broker 1) to ${to}: fetch failed due to requested offset not available on the broker: Broker: Offset out of range`)[0]!;
    assert.equal(at("offset BEGINNING (leader epoch -1)").detail.action, "offset_reset");
    assert.equal(at("END").detail.action, "offset_skipped");
    assert.equal(at("offset 1200").detail.action, "offset_reset");
    assert.equal(at("offset 1200").queue, "orders-0");
    assert.equal(at("offset 1200").detail.generationId, undefined, "a leader epoch is not a generation");
  });

  it("librdkafka's assignment taken back by assign() is no loss", () => {
    assert.deepEqual(read("kafka-client-log", '%7|1710148801.119|LOST|rdkafka#consumer-1| [thrd:main]: Group "orders": current assignment no longer considered lost: assign() called'), []);
  });

  it("a Java position's leader epoch is neither a partition nor a generation", () => {
    const [e, ...more] = read(
      "kafka-client-log",
      "[2024-03-11 09:20:05,003] INFO [Consumer clientId=consumer-orders-1, groupId=orders] Truncation detected for partition orders-3 at offset FetchPosition{offset=1500, offsetEpoch=Optional[3], currentLeader=LeaderAndEpoch{leader=Optional[broker1:9092 (id: 1 rack: null)], epoch=4}}, resetting offset to the first offset known to diverge FetchPosition{offset=1450, offsetEpoch=Optional[3], currentLeader=LeaderAndEpoch{leader=Optional[broker2:9092 (id: 2 rack: null)], epoch=5}} (org.apache.kafka.clients.consumer.internals.SubscriptionState)",
    );
    assert.equal(more.length, 0);
    assert.equal(e!.detail.action, "offset_reset");
    assert.equal(e!.queue, "orders-3");
    assert.equal(e!.detail.generationId, undefined);
  });

  it("RabbitMQ: MQTT's consumer timeout names its queue; a refusal before the handshake is no close", () => {
    const [timeout] = read("rabbitmq-server-log", "2025-11-04 09:30:06.623456+00:00 [info] <0.2190.0> Terminating MQTT connection because consumer on queue 'mqtt-subscription-s7qos1' in vhost '/' timed out");
    assert.equal(timeout!.detail.action, "ack_timeout");
    assert.equal(timeout!.queue, "mqtt-subscription-s7qos1");
    const refused = read(
      "rabbitmq-server-log",
      "2025-11-04 09:30:10.023456+00:00 [error] <0.2230.0> closing AMQP connection 10.0.3.20:51000 -> 10.0.3.2:5672 (duration: '0ms'):\n2025-11-04 09:30:10.023456+00:00 [error] <0.2230.0> TLS client detected on non-TLS AMQP port. Ensure the client is connecting to the correct port.",
    );
    assert.deepEqual(refused, []);
  });
});
