import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findFormat } from "../../../collectors/registry.ts";
import { parseLines } from "../../../collectors/types.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { runSpanSimulation } from "../../../lib/simulator/otel/run.ts";

/**
 * The span-only simulator (lib/simulator/otel) that `eval:diagnosis --spans` grades the engine on: reproducible,
 * read by the otlp-traces collector without an issue, in both attribute namings and both systems, and its truth
 * about the keys whose events it wrote.
 */

const run = (seed: number, keys = 400) => runSpanSimulation({ keys, seed });

describe("the OpenTelemetry span simulator", () => {
  it("writes the same requests for the same seed, and others for another", () => {
    assert.equal(run(7).files[0]!.text, run(7).files[0]!.text);
    assert.notEqual(run(7).files[0]!.text, run(8).files[0]!.text);
  });

  it("writes export requests the collector reads whole: no issue, events the store accepts, ≤ 512 spans a request", () => {
    const { files, truth } = run(3);
    const file = files[0]!;
    const requests = file.text.trimEnd().split("\n").map((line) => JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { attributes: { key: string }[] }[] }[] }[] });
    assert.equal(requests.length, file.lines);
    const spans = requests.flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
    for (const r of requests) assert.ok(r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)).length <= 512);
    const names = new Set(spans.flatMap((s) => s.attributes.map((a) => a.key)));
    for (const name of ["messaging.operation", "messaging.operation.type", "messaging.kafka.message.offset", "messaging.kafka.offset", "messaging.rocketmq.message.keys"]) {
      assert.ok(names.has(name), `no span carries ${name}`);
    }
    const parsed = parseLines(file.text, findFormat("otlp-traces")!.open({ source: "otlp-traces:sim" }));
    assert.deepEqual(parsed.issues, []);
    for (const event of parsed.events) assert.ok(validateEvent(event).ok, event.id);
    assert.deepEqual(new Set(parsed.events.map((e) => e.broker)), new Set(["kafka", "rocketmq"]));
    const keysWithEvents = new Set(parsed.events.map((e) => e.bizKey));
    for (const d of truth.duplicates) assert.ok(keysWithEvents.has(d.bizKey), `truth names ${d.bizKey}, which has no event`);
  });

  it("writes each Kafka consumer's client log, read by the kafka-client-log collector without an issue, naming what spans cannot", () => {
    const { files, manifest } = run(5, 2000);
    const logs = files.filter((f) => f.format === "kafka-client-log");
    assert.ok(logs.length >= 2, `${logs.length} consumer logs`);
    const actions = new Set<unknown>();
    for (const log of logs) {
      assert.ok(log.instance !== undefined && manifest.files.some((m) => m.path === log.path && m.instance === log.instance), `${log.path} names its process`);
      const parsed = parseLines(log.text, findFormat("kafka-client-log")!.open({ source: `kafka-client-log:${log.path}`, instance: log.instance! }));
      assert.deepEqual(parsed.issues, [], log.path);
      assert.equal(parsed.skipped, 0, `${log.path}: every line matches a template`);
      for (const event of parsed.events) {
        assert.ok(validateEvent(event).ok, event.id);
        actions.add(event.detail.action);
      }
    }
    for (const action of ["poll_timeout", "leave_group", "commit_failed", "lost", "revoke", "assign"]) assert.ok(actions.has(action), `no ${action} line`);
  });

  it("writes each RocketMQ 5 consumer's client log: refused acks of expired receipt handles, read with the messages they name", () => {
    const { files, truth } = run(5, 2000);
    const logs = files.filter((f) => f.format === "rocketmq-client-log");
    assert.ok(logs.length >= 2, `${logs.length} consumer logs`);
    const refused: string[] = [];
    for (const log of logs) {
      const parsed = parseLines(log.text, findFormat("rocketmq-client-log")!.open({ source: `rocketmq-client-log:${log.path}`, instance: log.instance! }));
      assert.deepEqual(parsed.issues, [], log.path);
      for (const event of parsed.events) {
        assert.ok(validateEvent(event).ok, event.id);
        // The listener's failures (`Message listener raised an exception…`) are read too, by their signal.
        if (event.detail.action === "consume_exception") continue;
        assert.equal(event.detail.action, "receipt_handle_invalid");
        assert.equal(event.group, "ledger");
        refused.push(event.msgId!);
      }
    }
    const leased = new Set(truth.duplicates.filter((d) => d.cause === "invisible_timeout").map((d) => d.msgIds[0]));
    assert.ok(refused.length > 0 && refused.every((id) => leased.has(id)), "only messages whose lease ran out have a refused ack");
  });

  it("makes every span-only cause it is graded on", () => {
    const causes = new Set(run(5, 2000).truth.duplicates.map((d) => d.cause));
    for (const cause of ["rebalance", "commit_failed", "retry_after_failure", "producer_retry", "upstream_resend", "invisible_timeout"]) assert.ok(causes.has(cause as never), `no ${cause} in 2,000 keys: ${[...causes].join(", ")}`);
  });
});
