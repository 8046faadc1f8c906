import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openBrokerLog } from "../../../collectors/rocketmq-broker-log/parse.ts";
import { openClientLog } from "../../../collectors/rocketmq-client-log/parse.ts";
import { parseLines, type LineParser } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { summarizeFindings } from "../../../lib/diagnosis/findings.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { gmt8 } from "../../../lib/simulator/clock.ts";
import { client, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

/**
 * offset_rollback on the lines an operator's `mqadmin resetOffsetByTime` leaves (field samples, issue 17 §2.1: the
 * broker's `[reset-offset] reset offset started by …`, the client's `invoke reset offset operation from broker …`),
 * against a rebalance and a reset that does not reach back to the first delivery.
 */

const GROUP = "cg_order_paid";
const KEY = "PAY-20261130-000042";
const MSG = "0A000005303918B4AAC27A1C3A900042";

function read(open: LineParser, lines: string[]): NormalizedEvent[] {
  const parsed = parseLines(lines.join("\n"), open);
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.skipped, 0);
  return parsed.events;
}

const resetTo = T0 + 5 * SEC - 90 * SEC;
const brokerLines = (at: number, to = resetTo) =>
  read(openBrokerLog({ source: "rocketmq-broker-log:broker-a.log", instance: "broker-a" }), [
    `${gmt8(T0 + at, "s")} INFO AdminBrokerThread_4 - [reset-offset] reset offset started by 10.0.9.9:57522. topic=order_paid, group=${GROUP}, timestamp=${to}, isForce=true`,
    `${gmt8(T0 + at, "s")} INFO AdminBrokerThread_4 - [reset-offset] reset offset success. topic=order_paid, group=${GROUP}, clientId=10.0.11.11@31337`,
  ]);
const clientLines = (at: number) =>
  read(openClientLog({ source: "rocketmq-client-log:10.0.11.11.log", instance: "10.0.11.11@31337" }), [
    `${gmt8(T0 + at, "ms")} INFO  [31337] [NettyClientPublicExecutor_1] [o.a.r.c.i.ClientRemotingProcessor#resetOffset:153] - invoke reset offset operation from broker. brokerAddr=10.0.0.2:10911, topic=order_paid, group=${GROUP}, timestamp=${resetTo}`,
  ]);

/** The same copy consumed at 0 s and again at 16 s by the same instance. */
const events = [...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.11.11" }), ...trace.consume({ at: 16 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.11.11" })];

describe("offset_rollback", () => {
  it("names a reset between the deliveries that rewinds before the first, citing the broker's line with who asked", () => {
    const broker = brokerLines(5 * SEC);
    const result = diagnoseKey({ bizKey: KEY, events, context: [...broker, ...clientLines(5 * SEC + 30)] });
    assert.equal(result.duplicates.length, 1);
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "offset_rollback");
    const e = v.evidence.find((x) => x.code === "offset_reset")!;
    assert.deepEqual(e.eventIds, [broker[0]!.id]);
    assert.equal(describeEvidence(e), "the offsets of group cg_order_paid on order_paid were reset back to 11:58:35 at 12:00:05 (requested from 10.0.9.9:57522), between the two deliveries: what had been consumed since was consumed again (broker time, to the second)");
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /^消费组 cg_order_paid 在 order_paid 上的位点在 12:00:05 被重置回 11:58:35（由 10\.0\.9\.9:57522 发起）/);
  });

  it("reads the client's own line alone, and leaves a plain rebalance or a reset to after the first delivery alone", () => {
    assert.equal(diagnoseKey({ bizKey: KEY, events, context: clientLines(5 * SEC) }).duplicates[0]?.cause, "offset_rollback");
    const moved = [client.rebalance("remove", { at: 4 * SEC, group: GROUP, queue: "broker-a:1", instance: "10.0.11.11@31337" }), client.rebalance("add", { at: 5 * SEC, group: GROUP, queue: "broker-a:1", instance: "10.0.11.12@4242" })];
    const rebalanced = [...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.11.11" }), ...trace.consume({ at: 16 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.11.12" })];
    assert.equal(diagnoseKey({ bizKey: KEY, events: rebalanced, context: moved }).duplicates[0]?.cause, "rebalance");
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: brokerLines(5 * SEC, T0 + 4500) }).duplicates[0]?.cause, "offset_rollback");
  });

  it("reads a client that moved a queue back after the broker answered OFFSET_ILLEGAL, not one moved forward or another queue", () => {
    const illegal = (at: number, queue: number, from: number, to: number) =>
      read(openClientLog({ source: "rocketmq-client-log:10.0.11.11.log", instance: "10.0.11.11@31337" }), [
        `${gmt8(T0 + at, "ms")} WARN  [31337] [PullMessageService] [o.a.r.c.i.c.DefaultMQPushConsumerImpl$1#onSuccess:403] - the pull request offset illegal, PullRequest [consumerGroup=${GROUP}, messageQueue=MessageQueue [topic=order_paid, brokerName=broker-a, queueId=${queue}], nextOffset=${from}] PullResult [pullStatus=OFFSET_ILLEGAL, nextBeginOffset=${to}, minOffset=${to}, maxOffset=7358, msgFoundList=0]`,
      ]);
    const back = illegal(5 * SEC, 2, 15619, 0);
    assert.deepEqual(back.map((e) => [e.kind, e.group, e.topic, e.queue, e.detail.action, e.detail.fromOffset, e.detail.toOffset]), [["instance_lifecycle", GROUP, "order_paid", "broker-a:2", "offset_reset", 15619, 0]]);
    const v = diagnoseKey({ bizKey: KEY, events, context: back }).duplicates[0]!;
    assert.equal(v.cause, "offset_rollback");
    const e = v.evidence.find((x) => x.code === "offset_reset")!;
    assert.deepEqual(e.eventIds, [back[0]!.id]);
    assert.match(describeEvidence(e), /^queue broker-a:2 of group cg_order_paid on order_paid was moved back from offset 15619 to 0 at 12:00:05\.000, after the broker answered its pull with OFFSET_ILLEGAL \(logged by 10\.0\.11\.11@31337\), between the two deliveries/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /的队列 broker-a:2 在 12:00:05\.000 因 broker 对拉取请求返回 OFFSET_ILLEGAL，位点从 15619 回退到 0/);

    const forward = illegal(5 * SEC, 2, 15, 172);
    assert.equal(forward[0]!.detail.action, "offset_skipped");
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: forward }).duplicates[0]?.cause, "offset_rollback");
    const onQueue = (queue: string, queueOffset: number) => events.map((x) => ({ ...x, queue, queueOffset }));
    assert.notEqual(diagnoseKey({ bizKey: KEY, events: onQueue("broker-a:1", 120), context: back }).duplicates[0]?.cause, "offset_rollback");
    assert.equal(diagnoseKey({ bizKey: KEY, events: onQueue("broker-a:2", 120), context: back }).duplicates[0]?.cause, "offset_rollback");
    assert.notEqual(diagnoseKey({ bizKey: KEY, events: onQueue("broker-a:2", 120), context: illegal(5 * SEC, 2, 15619, 150) }).duplicates[0]?.cause, "offset_rollback");
  });

  it("gathers every key that cites the same reset into one episode of the group, with its keys and queues", () => {
    const broker = brokerLines(5 * SEC);
    const other = { key: "PAY-20261130-000043", msg: "0A000005303918B4AAC27A1C3A900043" };
    const second = [...trace.consume({ at: 1 * SEC, bizKey: other.key, msgId: other.msg, group: GROUP, host: "10.0.11.11" }), ...trace.consume({ at: 17 * SEC, bizKey: other.key, msgId: other.msg, group: GROUP, host: "10.0.11.11" })];
    const diagnoses = [diagnoseKey({ bizKey: KEY, events, context: broker }), diagnoseKey({ bizKey: other.key, events: second, context: broker })];
    const [found] = summarizeFindings({ diagnoses, delivered: [{ group: GROUP, topic: null, keys: 40 }] });
    assert.equal(found?.causes.offset_rollback, 2);
    assert.equal(found?.episodes.length, 1);
    const episode = found!.episodes[0]!;
    assert.equal(episode.cause, "offset_rollback");
    assert.equal(episode.eventId, broker[0]!.id);
    assert.equal(episode.ts, T0 + 5 * SEC);
    assert.deepEqual(episode.values, { instance: null, group: GROUP, topic: "order_paid", resetTo, by: "10.0.9.9:57522" });
    assert.equal(episode.keys, 2);
    assert.deepEqual(episode.sampleKeys, [KEY, other.key]);
    assert.equal(episode.lastTs - episode.firstTs, SEC);
  });
});
