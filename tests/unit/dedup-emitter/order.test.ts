import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createDedupLog, DEDUP_DECISIONS, DedupLogError, DedupLogUsageError, type DedupLogOptions } from "../../../packages/dedup/src/index.ts";
import { collected, fakeRedis, manualClock, orderRowScript, orderTable, outcomes, runDedupScript } from "../../helpers/dedup-emitter.ts";

/**
 * The rules the Node.js emitter shares with the Java one (emitters/java): the order of one delivery's decisions, as
 * the table of docs/dedup-log.md states it, and the options a log cannot do without. The Java side runs the same
 * table in tests/unit/collectors/dedup-log-java-emitter.test.ts.
 */

describe("one delivery, in order: the table of docs/dedup-log.md", () => {
  const table = orderTable();

  it("has a row for the first line and for each decision, and an answer for each next decision", () => {
    assert.deepEqual(table.map((r) => r.after), [null, ...DEDUP_DECISIONS]);
    for (const row of table) assert.deepEqual(Object.keys(row.allowed), [...DEDUP_DECISIONS]);
  });

  for (const row of table) {
    const allowed = DEDUP_DECISIONS.filter((d) => row.allowed[d]);
    it(`after ${row.after ?? "nothing (the first line)"}: ${allowed.join(", ") || "nothing"} may follow`, () => {
      const { script, expected } = orderRowScript(row);
      const output = runDedupScript(script);
      assert.deepEqual(outcomes(output), expected, output);
      // What is written reads back as one delivery's lines, nothing refused among them.
      collected(output.split("\n").filter((l) => l.startsWith("{")));
    });
  }

  it("refuses executed after a hit through the layer helpers too: the consumer that forgot to return", async () => {
    const clock = manualClock();
    const lines: string[] = [];
    const log = createDedupLog({ group: "points-award", broker: "kafka", instance: "10.8.3.17@23817", clock: clock.now, write: (l) => lines.push(l) });
    const redis = fakeRedis(clock.now);
    await log.delivery({ bizKey: "ORD-1" }).redisMarker(redis, { key: "points:ORD-1", ttlMs: 60_000 });
    const d = log.delivery({ bizKey: "ORD-1" });
    assert.equal((await d.redisMarker(redis, { key: "points:ORD-1", ttlMs: 60_000 })).hit, true);
    assert.throws(
      () => d.executed(),
      (e) =>
        e instanceof DedupLogUsageError &&
        e.message === 'ORD-1: "executed" may not come after "hit": a hit ends the delivery: the message was skipped, and a further line would read as another delivery',
    );
    assert.equal(lines.length, 2);
  });
});

describe("required options, checked when the program runs", () => {
  const write = () => {};
  // Plain JavaScript: what TypeScript would have refused.
  const untyped = (options: unknown) => () => createDedupLog(options as DedupLogOptions);

  it("refuses a log without broker: its lines would be filed as RocketMQ", () => {
    assert.throws(
      untyped({ group: "points-award", write }),
      (e) =>
        e instanceof DedupLogError &&
        e.message === "invalid dedup log options: broker: is required (one of rocketmq, rabbitmq, kafka): the log cannot tell, and dupscope reads a line without it as rocketmq",
    );
  });

  it("refuses a log without group, or without options, naming what is missing", () => {
    assert.throws(untyped({ broker: "kafka", write }), /^DedupLogError: invalid dedup log options: group: is required \(the consumer group; RabbitMQ: the queue\)$/);
    assert.throws(untyped({ write }), (e) => e instanceof DedupLogError && e.problems.length === 2);
    assert.throws(untyped(undefined), /invalid dedup log options: options: must be an object with at least group and broker/);
  });

  it("refuses a broker it does not know", () => {
    assert.throws(untyped({ group: "g", broker: "Kafka", write }), /invalid dedup log options: broker: must be one of rocketmq, rabbitmq, kafka/);
  });
});
