import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeLogPrefix, ROCKETMQ_UTC_OFFSET } from "./log-prefix.ts";

function decoded(line: string, utcOffset = ROCKETMQ_UTC_OFFSET) {
  const result = decodeLogPrefix(line, utcOffset);
  assert.ok(result?.ok, `expected a prefix in ${line}`);
  return result.prefix;
}

describe("decodeLogPrefix", () => {
  it("reads the 5.x client pattern: pid, thread, abbreviated logger, padded level", () => {
    const prefix = decoded(
      "2026-11-30 20:00:01.204 INFO  [31337] [RebalanceService] [o.a.r.c.i.c.RebalanceImpl#updateProcessQueueTableInRebalance:489] - doRebalance, g, add a new mq, x",
    );
    assert.deepEqual(prefix, {
      layout: "client-5x",
      ts: Date.parse("2026-11-30T12:00:01.204Z"),
      precision: "ms",
      level: "INFO",
      pid: 31337,
      thread: "RebalanceService",
      logger: "o.a.r.c.i.c.RebalanceImpl",
      message: "doRebalance, g, add a new mq, x",
    });
  });

  it("keeps 5.x thread names with spaces and dollar signs", () => {
    const prefix = decoded(
      "2026-11-30 20:00:05.861 ERROR [27015] [Consume Thread $1] [o.a.r.c.i.c.ConsumeMessageConcurrentlyService$ConsumeRequest#run:436] - boom",
    );
    assert.equal(prefix.thread, "Consume Thread $1");
    assert.equal(prefix.level, "ERROR");
    assert.equal(prefix.message, "boom");
  });

  it("reads the 4.x client pattern as logger name with millisecond precision", () => {
    const prefix = decoded("2026-11-30 20:00:01,204 WARN RocketmqClient - consumeMessage exception: x");
    assert.equal(prefix.layout, "client-4x");
    assert.equal(prefix.logger, "RocketmqClient");
    assert.equal(prefix.thread, null);
    assert.equal(prefix.pid, null);
    assert.equal(prefix.precision, "ms");
    assert.equal(prefix.message, "consumeMessage exception: x");
  });

  it("reads the broker pattern as thread name with second precision", () => {
    const prefix = decoded("2026-11-30 20:00:01 INFO NettyServerCodecThread_3 - new consumer connected, group: g");
    assert.equal(prefix.layout, "broker");
    assert.equal(prefix.thread, "NettyServerCodecThread_3");
    assert.equal(prefix.precision, "s");
    assert.equal(prefix.ts, Date.parse("2026-11-30T12:00:01Z"));
  });

  it("converts GMT+8 wall time to UTC: 2026-11-30 20:00:01,204 is 2026-11-30T12:00:01.204Z", () => {
    assert.equal(decoded("2026-11-30 20:00:01,204 INFO RocketmqClient - x").ts, Date.parse("2026-11-30T12:00:01.204Z"));
  });

  it("honours another UTC offset", () => {
    assert.equal(decoded("2026-11-30 20:00:01,204 INFO RocketmqClient - x", "Z").ts, Date.parse("2026-11-30T20:00:01.204Z"));
    assert.equal(decoded("2026-11-30 20:00:01,204 INFO RocketmqClient - x", "-05:00").ts, Date.parse("2026-12-01T01:00:01.204Z"));
  });

  it("keeps an empty message", () => {
    assert.equal(decoded("2026-11-30 20:00:01,204 INFO RocketmqClient - ").message, "");
  });

  it("has no prefix for stack-trace frames, continuation lines and other formats", () => {
    for (const line of [
      "\tat org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService$ConsumeRequest.run(ConsumeMessageConcurrentlyService.java:411)",
      "java.lang.IllegalStateException: inventory service timeout",
      "2026-11-30 20:00:01,204",
      "2026-11-30 20:00:01,204 NOTICE RocketmqClient - x",
      "2024-10-04 03:23:52.968389-04:00 [info] <0.1.0> message",
      "",
    ]) {
      assert.equal(decodeLogPrefix(line, ROCKETMQ_UTC_OFFSET), undefined, line);
    }
  });

  it("reports an impossible or out-of-range timestamp instead of inventing a time", () => {
    const impossible = decodeLogPrefix("2026-02-30 20:00:01,204 INFO RocketmqClient - hello", ROCKETMQ_UTC_OFFSET);
    assert.deepEqual(impossible, { ok: false, message: "hello", reason: 'impossible timestamp "2026-02-30 20:00:01,204"' });
    const ancient = decodeLogPrefix("1999-12-31 23:59:59 INFO main - hello", ROCKETMQ_UTC_OFFSET);
    assert.equal(ancient?.ok, false);
  });

  it("reports an unusable UTC offset instead of throwing", () => {
    const result = decodeLogPrefix("2026-11-30 20:00:01,204 INFO RocketmqClient - x", "GMT+8");
    assert.ok(result && !result.ok);
    assert.match(result.reason, /UTC offset/);
  });

  it("never throws, whatever the line", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("", "2026-11-30 20:00:01", "2026-11-30 20:00:01.204", "2026-11-30 20:00:01,204"), (tail, stamp) => {
        decodeLogPrefix(stamp + tail, ROCKETMQ_UTC_OFFSET);
      }),
    );
  });
});
