import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openKafkaClientLog } from "../../../collectors/kafka-client-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { dedup, SEC, T0 } from "../../helpers/diagnosis-events.ts";

/**
 * offset_rollback from a Kafka consumer's own reset lines, in the wordings kafka-clients prints (collectors/
 * kafka-client-log/offset-resets.ts): the fetch position out of range and the reset after it, an application's seek,
 * a reset with nothing before it — against a reset forward and one that stays after the record.
 */

const GROUP = "points-award";
const TOPIC = "order-paid";
const A = "points-7d9f@41";
const BIZ = "ORD-20261130-100231";
const OFFSET = 884213;

function stamp(at: number): string {
  return new Date(T0 + at).toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
}

/** One consumer's log (logback `%d %p [%t] %logger{36} - %m`), read by the kafka-client-log collector. */
function kafkaLog(lines: [at: number, logger: string, message: string][]): NormalizedEvent[] {
  const text = lines.map(([at, logger, message]) => `${stamp(at)} INFO [main] o.a.k.c.c.internals.${logger} - [Consumer clientId=consumer-points-award-1, groupId=${GROUP}] ${message}`).join("\n");
  const parsed = parseLines(text, openKafkaClientLog({ source: `kafka-client-log:${A}.log`, instance: A }));
  assert.deepEqual(parsed.issues ?? [], []);
  return parsed.events;
}

const position = (offset: number) => `FetchPosition{offset=${offset}, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[kafka-1:9092 (id: 1 rack: null)], epoch=0}}`;
const outOfRange = (at: number, from: number): [number, string, string] => [at, "FetchCollector", `Fetch position ${position(from)} is out of range for partition ${TOPIC}-3, resetting offset`];
const resetTo = (at: number, to: number): [number, string, string] => [at + 31, "SubscriptionState", `Resetting offset for partition ${TOPIC}-3 to position ${position(to)}.`];

function delivery(at: number, decision: "pass" | "executed"): NormalizedEvent {
  return dedup({ at, bizKey: BIZ, msgId: `${TOPIC}-3@${OFFSET}`, group: GROUP, instance: A, layer: "redis", decision, broker: "kafka", topic: TOPIC, queue: `${TOPIC}-3`, queueOffset: OFFSET, dedupKey: `points:${BIZ}` });
}

/** The same record processed twice by the same consumer, 40 s apart. */
const deliveries = [delivery(0, "pass"), delivery(45, "executed"), delivery(40 * SEC, "pass"), delivery(40 * SEC + 40, "executed")];
const diagnose = (context: NormalizedEvent[]) => diagnoseKey({ bizKey: BIZ, events: deliveries, context }).duplicates[0];

describe("offset_rollback (Kafka)", () => {
  it("names a fetch position out of range whose reset went back past the record, with both offsets, in both languages", () => {
    const lines = kafkaLog([outOfRange(20 * SEC, 884300), resetTo(20 * SEC, 884000)]);
    assert.deepEqual(
      lines.map((e) => [e.kind, e.queue, e.detail.action, e.detail.fromOffset, e.detail.toOffset]),
      [
        ["instance_lifecycle", `${TOPIC}-3`, "offset_out_of_range", 884300, undefined],
        ["instance_lifecycle", `${TOPIC}-3`, "offset_reset", 884300, 884000],
      ],
    );
    const v = diagnose(lines)!;
    assert.equal(v.cause, "offset_rollback");
    const e = v.evidence.find((x) => x.code === "offset_reset")!;
    assert.deepEqual(e.eventIds, [lines[1]!.id]);
    assert.match(
      describeEvidence(e),
      /^partition order-paid-3 of group points-award on order-paid was moved back from offset 884300 to 884000 at 12:00:20\.031, after its fetch position was out of range \(auto\.offset\.reset\) \(logged by points-7d9f@41\), between the two deliveries/,
    );
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /的分区 order-paid-3 在 12:00:20\.031 因拉取位置越界（auto\.offset\.reset），位点从 884300 回退到 884000/);
  });

  it("reads an application's seek to the beginning, and a reset that no line explains, by where it went", () => {
    const sought = kafkaLog([[20 * SEC, "SubscriptionState", `Seeking to EARLIEST offset of partition ${TOPIC}-3`], resetTo(20 * SEC, 0)]);
    assert.deepEqual(sought.map((e) => [e.detail.action, e.detail.reason, e.detail.strategy, e.detail.toOffset]), [["offset_reset", "seek", "earliest", 0]]);
    assert.equal(diagnose(sought)?.cause, "offset_rollback");
    const bare = kafkaLog([resetTo(20 * SEC, 884100)]);
    const v = diagnose(bare)!;
    assert.equal(v.cause, "offset_rollback");
    assert.match(describeEvidence(v.evidence.find((x) => x.code === "offset_reset")!), /^partition order-paid-3 of group points-award on order-paid was reset to offset 884100 at 12:00:20\.031 \(logged by/);
  });

  it("says when the group had no committed offset: new, or its offsets expired while it was away", () => {
    const expired = kafkaLog([[20 * SEC, "ConsumerCoordinator", `Found no committed offset for partition ${TOPIC}-3`], resetTo(20 * SEC, 884000)]);
    const v = diagnose(expired)!;
    assert.equal(v.cause, "offset_rollback");
    const e = v.evidence.find((x) => x.code === "offset_reset")!;
    assert.match(describeEvidence(e), /was reset to offset 884000 at 12:00:20\.031, as its group had no committed offset for it \(auto\.offset\.reset\) \(logged by/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /因消费组在该分区没有已提交位点（auto\.offset\.reset），位点被重置为 884000/);
  });

  it("leaves alone a reset forward, one to after the record, and a seek to the end", () => {
    const forward = kafkaLog([outOfRange(20 * SEC, 884000), resetTo(20 * SEC, 884500)]);
    assert.equal(forward[1]!.detail.action, "offset_skipped");
    assert.notEqual(diagnose(forward)?.cause, "offset_rollback");
    assert.notEqual(diagnose(kafkaLog([resetTo(20 * SEC, OFFSET + 1)]))?.cause, "offset_rollback");
    const end = kafkaLog([[20 * SEC, "SubscriptionState", `Seeking to LATEST offset of partition ${TOPIC}-3`], resetTo(20 * SEC, 884100)]);
    assert.deepEqual(end.map((e) => [e.detail.action, e.detail.strategy]), [["offset_skipped", "latest"]]);
    assert.notEqual(diagnose(end)?.cause, "offset_rollback");
  });
});
