import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { openKafkaClientLog } from "../../../collectors/kafka-client-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { dedup, SEC, T0 } from "../../helpers/diagnosis-events.ts";

/**
 * Kafka's classic duplicate, read from the consumers' own log lines in the wordings kafka-clients prints
 * (docs/field-samples/issue-17-causes.md §1): a member overruns max.poll.interval.ms, leaves, its commit is refused,
 * and the new owner processes the batch again — against a rebalance whose commits succeeded and a killed consumer.
 */

const GROUP = "points-award";
const TOPIC = "order-paid";
const A = "points-7d9f@41";
const B = "points-c2a1@57";
const BIZ = "ORD-20261130-100231";

function stamp(at: number): string {
  return new Date(T0 + at).toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
}

/** Lines of one consumer's log (log4j `%d %p [%t] %c: %m`), read by the kafka-client-log collector. */
function kafkaLog(instance: string, clientId: string, lines: [at: number, level: string, logger: string, message: string][]): NormalizedEvent[] {
  const text = lines.map(([at, level, logger, message]) => `${stamp(at)} ${level} [${logger === "AbstractCoordinator" ? "kafka-coordinator-heartbeat-thread | points-award" : "main"}] o.a.k.c.c.internals.${logger}: [Consumer clientId=${clientId}, groupId=${GROUP}] ${message}`).join("\n");
  const parsed = parseLines(text, openKafkaClientLog({ source: `kafka-client-log:${instance}.log`, instance }));
  assert.deepEqual(parsed.issues ?? [], []);
  return parsed.events;
}

const POLL_TIMEOUT =
  "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.";

function delivery(at: number, instance: string, decision: "pass" | "executed" | "hit", offset = 884213): NormalizedEvent {
  return dedup({ at, bizKey: BIZ, msgId: `${TOPIC}-3@${offset}`, group: GROUP, instance, layer: "redis", decision, broker: "kafka", topic: TOPIC, queue: `${TOPIC}-3`, queueOffset: offset, dedupKey: `points:${BIZ}`, ...(decision === "pass" ? { ttlMs: 30_000 } : {}) });
}

/** A processed the record at 0 s and was slow; B took the partition and processed it again at 320 s. */
const deliveries = [delivery(0, A, "pass"), delivery(45, A, "executed"), delivery(320 * SEC, B, "pass"), delivery(320 * SEC + 40, B, "executed")];
const newOwner = kafkaLog(B, "consumer-points-award-2", [[310 * SEC, "INFO", "ConsumerCoordinator", `Adding newly assigned partitions: ${TOPIC}-3`]]);

describe("commit_failed (Kafka)", () => {
  it("names a poll timeout followed by a refused commit, with the lines it rests on, in both languages", () => {
    const oldOwner = kafkaLog(A, "consumer-points-award-1", [
      [300 * SEC, "WARN", "ConsumerCoordinator", POLL_TIMEOUT],
      [300 * SEC + 2, "INFO", "ConsumerCoordinator", `Member consumer-points-award-1-5e6b sending LeaveGroup request to coordinator 10.0.0.2:9092 (id: 2147483646 rack: null) due to consumer poll timeout has expired.`],
      [340 * SEC, "ERROR", "ConsumerCoordinator", `Offset commit failed on partition ${TOPIC}-3 at offset 884250: The coordinator is not aware of this member.`],
    ]);
    const result = diagnoseKey({ bizKey: BIZ, events: deliveries, context: [...oldOwner, ...newOwner] });
    assert.equal(result.duplicates.length, 1);
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "commit_failed");
    assert.ok(v.confidence >= 0.7, `confidence ${v.confidence}`);
    const codes = v.evidence.filter((e) => e.role === "cause").map((e) => e.code);
    assert.ok(codes.includes("poll_interval_exceeded") && codes.includes("offset_commit_failed") && codes.includes("queue_added"), codes.join());
    const refused = v.evidence.find((e) => e.code === "offset_commit_failed")!;
    assert.deepEqual(refused.eventIds, [oldOwner[2]!.id]);
    assert.match(describeEvidence(refused), /offset commit of points-7d9f@41 for order-paid-3 at offset 884250 was refused at 12:05:40\.000: it was no longer a member/);
    assert.match(describeEvidence(refused, { locale: "zh-CN" }), /位点提交在 12:05:40\.000 被拒绝/);
    const timeout = v.evidence.find((e) => e.code === "poll_interval_exceeded")!;
    assert.match(describeEvidence(timeout), /went longer than max\.poll\.interval\.ms between polls and was dropped from the group \(logged at 12:05:00\.000\)/);
    assert.match(describeEvidence(timeout, { locale: "zh-CN" }), /超过了 max\.poll\.interval\.ms/);
  });

  it("takes the refused commit alone (2.5+ `not part of an active group`) and the 3.7+ rejoin line alone", () => {
    const refusedOnly = kafkaLog(A, "consumer-points-award-1", [[340 * SEC, "INFO", "ConsumerCoordinator", "Failing OffsetCommit request since the consumer is not part of an active group"]]);
    assert.equal(diagnoseKey({ bizKey: BIZ, events: deliveries, context: [...refusedOnly, ...newOwner] }).duplicates[0]?.cause, "commit_failed");
    const rejoin = kafkaLog(A, "consumer-points-award-1", [
      [345 * SEC, "WARN", "ConsumerMembershipManager", "Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded approximately by 41250 ms. Member kQx3b2T9SlqvVdE1hYt4Yw will rejoin the group now."],
    ]);
    const v = diagnoseKey({ bizKey: BIZ, events: deliveries, context: [...rejoin, ...newOwner] }).duplicates[0]!;
    assert.equal(v.cause, "commit_failed");
    assert.match(describeEvidence(v.evidence.find((e) => e.code === "poll_interval_exceeded")!), /between polls \(by 41 s\) and was dropped from the group \(logged at 12:05:45\.000\)/);
  });

  it("leaves a rebalance whose commits succeeded a rebalance, and a retriable commit error does not make it one", () => {
    const oldOwner = kafkaLog(A, "consumer-points-award-1", [
      [305 * SEC, "INFO", "ConsumerCoordinator", `Revoke previously assigned partitions ${TOPIC}-3`],
      [306 * SEC, "WARN", "ConsumerCoordinator", `Offset commit failed on partition ${TOPIC}-3 at offset 884250: This is not the correct coordinator.`],
    ]);
    const v = diagnoseKey({ bizKey: BIZ, events: deliveries, context: [...oldOwner, ...newOwner] }).duplicates[0]!;
    assert.equal(v.cause, "rebalance");
  });

  it("does not blame an old poll timeout after which the member was given its partitions again", () => {
    const oldOwner = kafkaLog(A, "consumer-points-award-1", [
      [-200 * SEC, "WARN", "ConsumerCoordinator", POLL_TIMEOUT],
      [-150 * SEC, "INFO", "ConsumerCoordinator", `Adding newly assigned partitions: ${TOPIC}-3`],
      [305 * SEC, "INFO", "ConsumerCoordinator", `Revoke previously assigned partitions ${TOPIC}-3`],
    ]);
    assert.equal(diagnoseKey({ bizKey: BIZ, events: deliveries, context: [...oldOwner, ...newOwner] }).duplicates[0]?.cause, "rebalance");
  });
});
