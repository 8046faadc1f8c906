import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openBrokerLog } from "../../../collectors/rocketmq-broker-log/parse.ts";
import { openClientLog } from "../../../collectors/rocketmq-client-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { summarizeFindings } from "../../../lib/diagnosis/findings.ts";
import { foldMembers, memberChangesIn, membersFor, membersSpan } from "../../../lib/diagnosis/members.ts";
import { contextOf, contextScope } from "../../../lib/diagnosis/scope.ts";
import { countsAsDuplicate } from "../../../lib/diagnosis/vocabulary.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { gmt8 } from "../../../lib/simulator/clock.ts";
import { HOUR, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

/**
 * broadcast_consumption from the broker's own connection line (`new consumer connected, group: G CONSUME_PASSIVELY
 * BROADCASTING …`, field samples issue 17 §4.1), found however long before the key in the group's members over time
 * (members.ts), against a CLUSTERING group on the same topic; by design, so it counts as a duplicate only when a dedup
 * layer leaked.
 */

/** The members the store gives a key of these events (membersFor), their lines still stored. */
const storedMembers = (lines: readonly NormalizedEvent[], events: readonly NormalizedEvent[]) =>
  membersFor(foldMembers(memberChangesIn(lines)), contextScope(events)!.groups, membersSpan(events), contextScope(events)!).map((i) => ({ ...i, sinceRaw: true }));

function connected(at: number, group: string, model: "BROADCASTING" | "CLUSTERING", host: string): NormalizedEvent[] {
  const line = `${gmt8(T0 + at, "s")} INFO HeartbeatThread_2 - new consumer connected, group: ${group} CONSUME_PASSIVELY ${model} channel: ClientChannelInfo [channel=[id: 0x2f1c9a07, L:/10.0.0.2:10911 - R:/${host}:40112], clientId=${host}@3117, language=JAVA, version=401, lastUpdateTimestamp=${T0 + at}]`;
  const parsed = parseLines(line, openBrokerLog({ source: "rocketmq-broker-log:broker-a.log", instance: "broker-a" }));
  assert.deepEqual(parsed.issues, []);
  return parsed.events;
}

const MSG = "0A000005303918B4AAC27A1C3A90C0F1";
const KEY = "CFG-20261130-000017";
/** One config change consumed on two instances of `group`, 3 ms apart. */
const twice = (group: string) => [
  ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group, host: "10.0.22.11" }),
  ...trace.consume({ at: 3, bizKey: KEY, msgId: MSG, group, host: "10.0.22.12" }),
];

describe("broadcast_consumption", () => {
  it("reads the group's BROADCASTING connection from hours before the key and says the second consumption is by design", () => {
    const lines = [...connected(-3 * HOUR, "cg_config_cache", "BROADCASTING", "10.0.22.11"), ...connected(-3 * HOUR, "cg_config_audit", "CLUSTERING", "10.0.21.11")];
    const events = twice("cg_config_cache");
    assert.deepEqual(contextOf(events, lines), [], "outside the minutes around the key");
    const members = storedMembers(lines, events);
    assert.deepEqual(members.map((i) => i.group), ["cg_config_cache"], "its own group's member, not the other group's");
    const result = diagnoseKey({ bizKey: KEY, events, context: [], members });
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "broadcast_consumption");
    assert.equal(v.outcome, "unknown");
    assert.equal(countsAsDuplicate(v), false);
    const e = v.evidence.find((x) => x.code === "broadcasting_group")!;
    assert.deepEqual(e.eventIds, [lines[0]!.id], "the line that made the interval, though outside the key's context");
    assert.match(describeEvidence(e), /^group cg_config_cache consumes in BROADCASTING mode \(10\.0\.22\.11@3117 connected with it at 09:00:00\): every instance receives every message, so the second consumption on another instance is by design \(broker time, to the second\)$/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /以 BROADCASTING（广播）模式消费.*设计如此/);
    const [group] = summarizeFindings({ diagnoses: [result], delivered: [{ group: "cg_config_cache", topic: null, keys: 1 }] });
    assert.equal(group?.duplicates ?? 0, 0, "by design: not a duplicate in the findings");
  });

  it("reads the mode from the client's own start line when the broker's log is not there", () => {
    const line = `${gmt8(T0 - 2 * HOUR, "ms")} INFO  [3117] [main] [o.a.r.c.i.c.DefaultMQPushConsumerImpl#start:926] - the consumer [cg_config_cache] start beginning. messageModel=BROADCASTING, isUnitMode=false`;
    const parsed = parseLines(line, openClientLog({ source: "rocketmq-client-log:10.0.22.11.log", instance: "10.0.22.11@3117" }));
    assert.deepEqual(parsed.issues, []);
    const events = twice("cg_config_cache");
    const v = diagnoseKey({ bizKey: KEY, events, context: [], members: storedMembers(parsed.events, events) }).duplicates[0]!;
    assert.equal(v.cause, "broadcast_consumption");
    const e = v.evidence.find((x) => x.code === "broadcasting_group")!;
    assert.match(describeEvidence(e), /^group cg_config_cache consumes in BROADCASTING mode \(10\.0\.22\.11@3117 started with it at 10:00:00\.000\)/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /以该模式启动/);
    const clustering = parseLines(line.replace("BROADCASTING", "CLUSTERING"), openClientLog({ source: "rocketmq-client-log:10.0.22.11.log", instance: "10.0.22.11@3117" }));
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: [], members: storedMembers(clustering.events, events) }).duplicates[0]?.cause, "broadcast_consumption");
  });

  it("leaves a CLUSTERING group on the same topic alone, and counts a broadcast whose dedup leaked", () => {
    const audit = twice("cg_config_audit");
    const clustering = diagnoseKey({ bizKey: KEY, events: audit, context: [], members: storedMembers(connected(-3 * HOUR, "cg_config_audit", "CLUSTERING", "10.0.21.11"), audit) });
    assert.notEqual(clustering.duplicates[0]?.cause, "broadcast_consumption");
    assert.equal(countsAsDuplicate({ cause: "broadcast_consumption", outcome: "leaked" }), true);
    assert.equal(countsAsDuplicate({ cause: "broadcast_consumption", outcome: "caught" }), false);
    assert.equal(countsAsDuplicate({ cause: "rebalance", outcome: "caught" }), true);
  });

  it("takes the newest model at or before the key: a group switched to CLUSTERING later is not read for older keys", () => {
    const lines = [...connected(-2 * HOUR, "cg_config_cache", "BROADCASTING", "10.0.22.11"), ...connected(10 * SEC, "cg_config_cache", "CLUSTERING", "10.0.22.12")];
    const events = twice("cg_config_cache");
    assert.equal(diagnoseKey({ bizKey: KEY, events, context: [], members: storedMembers(lines, events) }).duplicates[0]?.cause, "broadcast_consumption");
  });
});
