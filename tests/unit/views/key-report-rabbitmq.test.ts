import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse as parseFirehose } from "../../../collectors/rabbitmq-firehose/parse.ts";
import { renderReport } from "../../../lib/views/key-report.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { contextOf } from "../../../lib/diagnosis/scope.ts";

/** A RabbitMQ key's texts name channels as its lanes do, from a recording of a real broker (testdata/README.md). */

function report(name: string, locale: "en" | "zh-CN" = "en") {
  const file = path.join(import.meta.dirname, "..", "..", "..", "collectors", "rabbitmq-firehose", "testdata", name);
  const events = parseFirehose(readFileSync(file, "utf8"), { source: `rabbitmq-firehose:testdata/${name}` }).events;
  const bizKey = events.find((e) => e.bizKey !== null)!.bizKey!;
  const own = events.filter((e) => e.bizKey === bizKey);
  const context = contextOf(own, events.filter((e) => e.bizKey === null));
  return renderReport(bizKey, own, context, false, diagnoseKey({ bizKey, events: own, context }), { locale });
}

describe("RabbitMQ key report texts", () => {
  it("names consumers by their connection's client name and channel, and keeps the identities in the data", () => {
    const r = report("ack-lost-socket.ndjson");
    const [v] = r.duplicates;
    assert.equal(v!.cause, "ack_lost");
    assert.match(v!.pair, /: d1 on invoice-worker-a \(1\) at [\d:.]+ → d2 on invoice-worker-b \(1\) at [\d:.]+$/);
    assert.match(v!.evidence[0]!.text, /^invoice-worker-a closed at /);
    assert.match(v!.instances.first!, /^127\.0\.0\.1:\d+ -> 127\.0\.0\.1:5672@1$/, "the verdict's data keeps the channel identity");
    assert.match(report("ack-lost-socket.ndjson", "zh-CN").duplicates[0]!.pair, /invoice-worker-a \(1\)/);
  });
});
