import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS, contextOf, contextScope, mergeWindows } from "../../../lib/diagnosis/scope.ts";
import { broker, client, MIN, SEC, T0, trace } from "../../helpers/diagnosis-events.ts";

const GROUP = "pay-consumer";
const HOUR = 60 * MIN;
const key = { bizKey: "PAY-1", msgId: "7F0000010B2A18B4AAC2841F3D9C0000", group: GROUP };

describe("context scope", () => {
  it("reads the minutes around each of a key's events, not the hours between deliveries far apart", () => {
    // Consumed at 0, replayed from the DLQ six hours later.
    const own = [...trace.consume({ ...key, at: 0, host: "10.0.0.5" }), ...trace.consume({ ...key, at: 6 * HOUR, host: "10.0.0.7", retryTimes: 17 })];
    const scope = contextScope(own)!;
    assert.deepEqual(scope.windows, [
      { from: T0 - CONTEXT_BEFORE_MS, to: own[1]!.ts + CONTEXT_AFTER_MS },
      { from: T0 + 6 * HOUR - CONTEXT_BEFORE_MS, to: own[3]!.ts + CONTEXT_AFTER_MS },
    ]);
    const moved = (at: number) => client.resultChanged({ at, group: GROUP, instance: "10.0.0.5@4121", queues: ["broker-a:3"] });
    const near = [moved(-90 * SEC), moved(2 * MIN), moved(6 * HOUR - MIN), moved(6 * HOUR + 2 * MIN)];
    const between = [moved(HOUR), moved(3 * HOUR), moved(6 * HOUR - 3 * MIN)];
    const crash = broker.lifecycle("channel_inactive", { at: 6 * HOUR + 150 * SEC, group: GROUP, instance: "10.0.0.7@88" });
    assert.deepEqual(
      contextOf(own, [...near, ...between, crash]).map((e) => e.id),
      [...near, crash].map((e) => e.id),
    );
  });

  it("reads one stretch when the events are minutes apart, everything between them included", () => {
    const own = [...trace.consume({ ...key, at: 0, host: "10.0.0.5" }), ...trace.consume({ ...key, at: 4 * MIN, host: "10.0.0.7" })];
    const scope = contextScope(own)!;
    assert.deepEqual(scope.windows, [{ from: T0 - CONTEXT_BEFORE_MS, to: own[3]!.ts + CONTEXT_AFTER_MS }]);
  });

  it("leaves out lines about another message's consumption, and keeps those naming this key or no key", () => {
    const own = trace.consume({ ...key, at: 0, host: "10.0.0.5" });
    const failed = (keys: string[], msgId: string) =>
      client.consumeException({ at: 20 * SEC, group: GROUP, queue: "broker-a:3", instance: "10.0.0.5@4121", msgId, offsetMsgId: "0A000005000029AA0000000000001000", queueOffset: 7, retryTimes: 1, keys });
    const other = failed(["PAY-2"], "7F0000010B2A18B4AAC2841F3D9C0001");
    const mine = failed(["PAY-0", "PAY-1"], "7F0000010B2A18B4AAC2841F3D9C0002");
    const unnamed = { ...failed([], "7F0000010B2A18B4AAC2841F3D9C0003"), detail: { action: "consume_exception" } };
    // A rebalance line naming the messages it dropped tells who owned the queue, whichever messages they were.
    const dropped = client.processQueueDropped({ at: 30 * SEC, queue: "broker-a:3", instance: "10.0.0.5@4121", msgId: "7F0000010B2A18B4AAC2841F3D9C0004", queueOffset: 8, keys: ["PAY-3"] });
    assert.deepEqual(
      contextOf(own, [other, mine, unnamed, { ...dropped, group: GROUP }]).map((e) => e.id),
      [mine, unnamed, dropped].map((e) => e.id),
    );
  });

  it("merges overlapping and touching windows and keeps apart ones apart, whatever their order", () => {
    assert.deepEqual(
      mergeWindows([
        { from: 50, to: 60 },
        { from: 0, to: 10 },
        { from: 10, to: 20 },
        { from: 15, to: 18 },
        { from: 30, to: 40 },
      ]),
      [
        { from: 0, to: 20 },
        { from: 30, to: 40 },
        { from: 50, to: 60 },
      ],
    );
    assert.deepEqual(mergeWindows([]), []);
  });
});
