import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";

const dir = mkdtempSync(path.join(tmpdir(), "dupscope-explain-"));

function file(name: string, lines: string[]): string {
  const at = path.join(dir, name);
  writeFileSync(at, `${lines.join("\n")}\n`);
  return at;
}

describe("dupscope explain", () => {
  const kafka = file("consumer.log", [
    "2026-11-30 12:00:19.605 INFO  [main] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=c-1, groupId=points] Revoke previously assigned partitions order-paid-0, order-paid-1",
    "2026-11-30 12:00:19.700 INFO  [main] o.a.k.c.c.KafkaConsumer - [Consumer clientId=c-1, groupId=points] Pausing partitions [order-paid-0]",
    "2026-11-30 12:00:20.001 ERROR [main] c.e.Listener - [Consumer clientId=c-1, groupId=points] Offset commit failed on partition order-paid-0 at offset 42: The coordinator is not aware of this member.",
    "org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed",
    "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1109)",
    "2026-11-30 12:00:21.000 INFO  [main] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=c-1, groupId=points] Adding newly assigned partition: order-paid-0",
    "2026-13-45 12:00:22.000 INFO  [main] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=c-1, groupId=points] (Re-)joining group",
    "2026-11-30 12:00:23.000 INFO  [main] c.e.Admin - Adding newly created partitions: order-paid-4",
  ]);

  it("tells, for each line, the format and template that matched and the fields read, the record a stack trace continues, and why others did not match", async () => {
    const result = await runCli(["explain", kafka]);
    assert.equal(result.code, 0, result.stderr);
    const rows = result.stdout.trim().split("\n");
    assert.equal(rows[0], "format: kafka-client-log");
    assert.match(rows[1]!, /^1 {2}rebalance\/revoke {2}Revoke previously assigned partitions \{\} {2}ts=2026-11-30T12:00:19\.605Z group=points topic=order-paid queue=order-paid-0/);
    assert.match(rows[2]!, /^1 {2}rebalance\/revoke .* queue=order-paid-1/);
    assert.match(rows[3]!, /^2 {2}skipped: no template of kafka-client-log matches$/);
    assert.match(rows[4]!, /^3 {2}instance_lifecycle\/commit_failed .*exception=org\.apache\.kafka\.clients\.consumer\.CommitFailedException/);
    assert.equal(rows[5], "4  continues line 3");
    assert.equal(rows[6], "5  continues line 3");
    // No template reads the singular "partition:", the assignment signal does (collectors/codecs/signals.ts).
    assert.match(rows[7]!, /^6 {2}rebalance\/assign {2}signal:assign {2}ts=2026-11-30T12:00:21\.000Z group=points topic=order-paid queue=order-paid-0/);
    assert.match(rows[8]!, /^7 {2}rejected: invalid_field: timestamp: impossible timestamp/);
    assert.match(rows[9]!, /^8 {2}skipped: no template of kafka-client-log matches; closest: assign "Adding newly assigned partitions: \{\}" \(shares 3 of its 4 words\)$/);
    assert.equal(rows[10], "8 lines: 3 gave events, 2 continued a record, 2 skipped, 1 rejected");
  });

  it("answers in JSON, reads standard input with the format it is told, and dates time-only lines with --date", async () => {
    const timeOnly = file("time-only.log", ["20:00:01.204 [RebalanceService] INFO  RocketmqClient - the consumer [cg_order_paid] start OK."]);
    const result = await runCli(["explain", "--format", "rocketmq-client-log", "--date", "2026-11-29", "--json", timeOnly]);
    assert.equal(result.code, 0, result.stderr);
    const explanation = JSON.parse(result.stdout);
    assert.equal(explanation.lines[0].status, "event");
    assert.equal(explanation.lines[0].events[0].ts, "2026-11-29T12:00:01.204Z", "20:00:01.204 at the RocketMQ default +08:00");
    const undated = await runCli(["explain", "--format", "rocketmq-client-log", "--json", timeOnly]);
    assert.match(JSON.parse(undated.stdout).lines[0].reason, /has no date: give one with --date/);
  });

  it("says when it cannot tell the format, and refuses what is not a format or a file", async () => {
    const notes = file("notes.txt", ["nothing a collector knows"]);
    const unknown = await runCli(["explain", notes]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /cannot tell the format of .*notes\.txt .*--format/);
    assert.equal((await runCli(["explain", "--format", "syslog", notes])).code, 2);
    const missing = await runCli(["explain", path.join(dir, "missing.log")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*missing\.log: ENOENT/);
  });
});
