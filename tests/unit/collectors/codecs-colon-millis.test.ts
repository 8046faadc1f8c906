import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findFormat } from "../../../collectors/registry.ts";
import { findTimestamp } from "../../../collectors/codecs/timestamp.ts";

/**
 * `HH:mm:ss:SSS` stamps: log4j2 configurations (`[%d{HH:mm:ss:SSS}] [%p] - %l - %m%n`) and Python's loguru
 * (`{time:YYYY-MM-DD HH:mm:ss:SSS}`) write the milliseconds after a colon. A time-only one used to be no time at all,
 * and a dated one lost its milliseconds.
 */

function read(text: string): [string, string, string] | undefined {
  const found = findTimestamp(text, { utcOffset: "Z", date: "2026-11-30" });
  return found?.ok ? [new Date(found.time.ts).toISOString(), found.time.precision, found.time.text] : undefined;
}

describe("milliseconds after a colon", () => {
  it("reads them in dated and time-only stamps", () => {
    assert.deepEqual(read("2026-11-30 20:00:01:204 | INFO | x"), ["2026-11-30T20:00:01.204Z", "ms", "2026-11-30 20:00:01:204"]);
    assert.deepEqual(read("[20:00:01:204] [INFO] - x"), ["2026-11-30T20:00:01.204Z", "ms", "20:00:01:204"]);
    assert.deepEqual(read("26-11-30 20:00:01:204 INFO x"), ["2026-11-30T20:00:01.204Z", "ms", "26-11-30 20:00:01:204"]);
  });

  it("takes only three digits with nothing numeric after them", () => {
    assert.deepEqual(read("2026-11-30 20:00:01:2045 x"), ["2026-11-30T20:00:01.000Z", "s", "2026-11-30 20:00:01"]);
    assert.deepEqual(read("2026-11-30 20:00:01:204:5 x"), ["2026-11-30T20:00:01.000Z", "s", "2026-11-30 20:00:01"]);
    assert.equal(read("12:00:01:20 x"), undefined);
  });

  it("gives a client line in such a layout its time to the millisecond", () => {
    const parser = findFormat("rocketmq-client-log")!.open({ source: "colon", date: "2026-11-30", utcOffset: "+08:00" });
    const line =
      "[20:00:01:204] [INFO] - org.apache.rocketmq.client.impl.consumer.RebalanceImpl.updateProcessQueueTableInRebalance(RebalanceImpl.java:350) - doRebalance, cg_order_paid, remove unnecessary mq, MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]";
    const events = [...parser.line(line, 1).events, ...parser.end().events];
    assert.deepEqual(
      events.map((e) => [e.kind, e.detail.action, new Date(e.ts).toISOString(), e.tsPrecision, e.group, e.queue]),
      [["rebalance", "remove", "2026-11-30T12:00:01.204Z", "ms", "cg_order_paid", "broker-a:3"]],
    );
  });
});
