import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { findFormat } from "../../../collectors/registry.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { isQueueAdded, isQueueRemoved } from "../../../lib/diagnosis/sources.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { loadPatternsFile, PatternsError } from "../../../lib/ingest/patterns-file.ts";
import { dedup, redisOnce, SEC, trace } from "../../helpers/diagnosis-events.ts";

const dir = mkdtempSync(path.join(tmpdir(), "dupscope-patterns-"));
function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

/** An in-house wrapper around the RocketMQ consumer that logs its own words for a queue moving between instances. */
const PATTERNS = `# acme-mq wraps the RocketMQ consumer and logs rebalances in its own words
patterns:
  - name: acme-queue-released
    formats: [rocketmq-client-log]
    match: 'acme-mq: released (?P<topic>[A-Z_]+)/(?P<queue>[\\w-]+:\\d+) of (?P<group>[\\w-]+)'
    event: { kind: rebalance, action: remove }
  - name: acme-queue-taken
    formats: [rocketmq-client-log]
    match: 'acme-mq: took (?P<topic>[A-Z_]+)/(?P<queue>[\\w-]+:\\d+) of (?P<group>[\\w-]+)'
    event: { kind: rebalance, action: add }
`;

const KEY = "ORD-20261130-000042";
const MSG = "0A000005216C18B4AAC27A9E2A3F0001";
const GROUP = "pay-consumer";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";

function clientLog(instance: string, lines: string[], patterns = loadPatternsFile(file("p.yaml", PATTERNS))): NormalizedEvent[] {
  const result = parseLines(lines.join("\n"), findFormat("rocketmq-client-log")!.open({ source: `rocketmq-client-log:${instance}.log`, instance, patterns }));
  assert.deepEqual(result.issues, []);
  return result.events;
}

describe("your own patterns", () => {
  it("turn an in-house wording into the events diagnosis reads: a rebalance named from them", () => {
    const released = clientLog(A, ["2026-11-30 20:00:01.201 INFO  [RebalanceService] acme.mq.Consumer - acme-mq: released PAY_SUCCESS/broker-a:3 of pay-consumer"]);
    const taken = clientLog(B, ["2026-11-30 20:00:01.204 INFO  [RebalanceService] acme.mq.Consumer - acme-mq: took PAY_SUCCESS/broker-a:3 of pay-consumer"]);
    assert.deepEqual(
      [...released, ...taken].map((e) => [e.kind, e.detail.action, e.detail.template, e.group, e.queue, e.instance, e.ts]),
      [
        ["rebalance", "remove", "pattern:acme-queue-released", GROUP, "broker-a:3", A, Date.UTC(2026, 10, 30, 12, 0, 1, 201)],
        ["rebalance", "add", "pattern:acme-queue-taken", GROUP, "broker-a:3", B, Date.UTC(2026, 10, 30, 12, 0, 1, 204)],
      ],
    );
    assert.ok(isQueueRemoved(released[0]!) && isQueueAdded(taken[0]!));
    const events = [
      ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 1690, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 1692, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 88123, dedupKey: `pay:${KEY}` }),
    ];
    const v = diagnoseKey({ bizKey: KEY, events, context: [...released, ...taken] }).duplicates[0]!;
    assert.equal(v.cause, "rebalance");
    assert.ok(v.evidence.some((e) => e.code === "queue_moved" && e.eventIds.includes(released[0]!.id)), JSON.stringify(v.evidence.map((e) => e.code)));
  });

  it("read only the lines their format skipped: a line a template reads stays the template's", () => {
    const line = "2026-11-30 20:00:01.150 INFO  [RebalanceService] - doRebalance, pay-consumer, remove unnecessary mq, MessageQueue [topic=PAY_SUCCESS, brokerName=broker-a, queueId=3]";
    const greedy = loadPatternsFile(file("greedy.yaml", "patterns:\n  - name: everything\n    match: 'remove'\n    event: { kind: rebalance, action: trigger }\n"));
    const [event] = clientLog(A, [line], greedy);
    assert.equal(event?.detail.action, "remove");
    assert.notEqual(event?.detail.template, "pattern:everything");
  });

  it("refuse to load with the pattern's name and the reason, for every kind of mistake", () => {
    const cases: [string, RegExp][] = [
      ["patterns: [", /not YAML/],
      ["rules: []", /must be a mapping with a "patterns" list/],
      ["patterns:\n  - name: bad-re\n    match: '(a)\\1'\n    event: { kind: rebalance, action: revoke }\n", /pattern "bad-re": match is not an RE2 expression: .*invalid escape/],
      ["patterns:\n  - name: look\n    match: 'a(?=b)'\n    event: { kind: rebalance, action: revoke }\n", /pattern "look": match is not an RE2 expression/],
      ["patterns:\n  - name: field\n    match: '(?P<shard>\\d+)'\n    event: { kind: rebalance, action: revoke }\n", /pattern "field": unknown field "shard" in match; fields: group, topic/],
      ["patterns:\n  - name: fact\n    match: 'x'\n    event: { kind: rebalance, action: moved }\n", /pattern "fact": event rebalance\/moved is not a fact dupscope reads; one of: rebalance\/joining/],
      ["patterns:\n  - name: fmt\n    formats: [syslog]\n    match: 'x'\n    event: { kind: rebalance, action: revoke }\n", /pattern "fmt": formats\.0: /],
      ["patterns:\n  - name: twice\n    match: 'x'\n    event: { kind: rebalance, action: revoke }\n  - name: twice\n    match: 'y'\n    event: { kind: rebalance, action: assign }\n", /pattern "twice": the name is used twice/],
      ["patterns:\n  - name: extra\n    match: 'x'\n    event: { kind: rebalance, action: revoke }\n    colour: red\n", /pattern "extra": .*colour|Unrecognized key/],
    ];
    for (const [text, message] of cases) {
      const at = file("bad.yaml", text);
      assert.throws(() => loadPatternsFile(at), (error: unknown) => error instanceof PatternsError && message.test(error.message) && error.message.startsWith(at), text);
    }
    assert.throws(() => loadPatternsFile(path.join(dir, "missing.yaml")), /cannot read the patterns file \(ENOENT\)/);
  });

  it("cannot stall a batch: a pattern written to backtrack runs in linear time on a 1 MiB line", () => {
    const patterns = loadPatternsFile(file("evil.yaml", "patterns:\n  - name: evil\n    match: '(a+)+$x'\n    event: { kind: rebalance, action: revoke }\n  - name: evil2\n    match: '(a|aa)*b'\n    event: { kind: rebalance, action: revoke }\n"));
    const line = `2026-11-30 20:00:01.201 INFO x - ${"a".repeat(1 << 20)}!`;
    const started = performance.now();
    const result = parseLines(line, findFormat("kafka-client-log")!.open({ source: "evil", patterns }));
    const ms = performance.now() - started;
    assert.equal(result.events.length, 0);
    // The same expressions in JavaScript's engine take longer than the age of the universe on this line.
    assert.ok(ms < 5000, `${Math.round(ms)} ms`);
  });
});
