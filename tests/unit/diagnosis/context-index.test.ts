import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { anySame, contextIndex, instanceLines, linesOf, timeRange, timeSlice } from "../../../lib/diagnosis/context-index.ts";
import { instanceRelation } from "../../../lib/diagnosis/identity.ts";
import { isJoined, isLeft, sourceKind } from "../../../lib/diagnosis/sources.ts";

/**
 * The per-list answers stand in for walks of the whole list that the rules and the missing-data notes used to make
 * for every pair of deliveries: each must give what the walk gives, line for line and in the list's order.
 */

const T = 1_700_000_000_000;

/** Names one process goes by in different sources, and others on the same and other hosts. */
const NAMES: string[] = ["10.0.0.5@4121", "10.0.0.5", "10.0.0.5@88", "10.0.0.7@88", "10.0.0.7:10911", "pay-7d9f", "pay-7d9f@1"];
const INSTANCES: (string | null)[] = [...NAMES, null];

const arbitraryLine = fc.record({
  ts: fc.integer({ min: 0, max: 120_000 }),
  instance: fc.constantFrom(...INSTANCES),
  kind: fc.constantFrom("rebalance", "instance_lifecycle", "send_attempt", "transaction"),
  action: fc.constantFrom("add", "remove", "start", "connected", "shutdown", "registered"),
  source: fc.constantFrom("rocketmq-client-log", "rocketmq-broker-log", "kafka-client-log", "rabbitmq-server-log", "otlp-traces"),
  group: fc.option(fc.constantFrom("g1", "g2"), { nil: null }),
  precision: fc.constantFrom("ms", "s"),
});

interface Line {
  ts: number;
  instance: string | null;
  kind: string;
  action: string;
  source: string;
  group: string | null;
  precision: string;
}

function line(a: Line, i: number): NormalizedEvent {
  return {
    id: `${a.source}:${i}`,
    kind: a.kind as NormalizedEvent["kind"],
    ts: T + a.ts,
    tsPrecision: a.precision as NormalizedEvent["tsPrecision"],
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rocketmq",
    topic: null,
    group: a.group,
    instance: a.instance,
    queue: null,
    queueOffset: null,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: { action: a.action },
    source: `${a.source}:test`,
  };
}

const lists = fc.tuple(fc.array(arbitraryLine, { maxLength: 60 }), fc.boolean()).map(([lines, sorted]) => {
  const events = lines.map(line);
  return sorted ? events.sort((x, y) => x.ts - y.ts) : events;
});
const asked = fc.constantFrom(...NAMES);

describe("a context list's index", () => {
  it("gives each instance's lines as the walk does, in the list's order", () => {
    fc.assert(
      fc.property(lists, fc.constantFrom(...INSTANCES), (context, instance) => {
        const walked = instance === null ? [] : context.filter((e) => instanceRelation(e.instance, instance) === "same");
        assert.deepEqual(linesOf(context, instance), walked);
      }),
    );
  });

  it("knows who wrote client logs, lifecycle lines and broker lines, and who joined", () => {
    fc.assert(
      fc.property(lists, asked, (context, instance) => {
        const index = contextIndex(context);
        const same = (e: NormalizedEvent) => instanceRelation(e.instance, instance) === "same";
        assert.equal(anySame(index.clientLogInstances, instance), context.some((e) => (sourceKind(e) === "client_log" || sourceKind(e) === "kafka_log") && same(e)));
        assert.equal(anySame(index.memberInstances, instance), context.some((e) => (e.kind === "instance_lifecycle" || e.kind === "rebalance") && same(e)));
        for (const group of ["g1", "g2", null]) {
          const walked = context.some((e) => sourceKind(e) === "broker_log" && (e.group === null || e.group === group));
          assert.equal(index.brokerLogGroups.has(null) || index.brokerLogGroups.has(group), walked);
        }
        assert.deepEqual(index.joined, context.filter(isJoined));
        assert.deepEqual(index.memberChanges, context.filter((e) => isJoined(e) || isLeft(e)));
      }),
    );
  });

  it("finds a time range by bisection in a list in time order, and hands out the whole of any other", () => {
    fc.assert(
      fc.property(lists, fc.integer({ min: -5_000, max: 125_000 }), fc.integer({ min: 0, max: 60_000 }), (context, from, width) => {
        const [start, end] = timeRange(context, T + from, T + from + width);
        const inRange = (e: NormalizedEvent) => e.ts >= T + from && e.ts <= T + from + width;
        if (!contextIndex(context).sorted) assert.deepEqual([start, end], [0, context.length]);
        assert.deepEqual(context.slice(start, end).filter(inRange), context.filter(inRange));
      }),
    );
  });

  it("gives an instance's lines, and its client-log lines in time order, once per list", () => {
    fc.assert(
      fc.property(lists, asked, (context, instance) => {
        const lines = instanceLines(context, instance);
        const walked = context.filter((e) => instanceRelation(e.instance, instance) === "same");
        assert.deepEqual(lines.all, walked);
        assert.deepEqual(lines.clientLog, walked.filter((e) => sourceKind(e) === "client_log" || sourceKind(e) === "kafka_log").sort((a, b) => a.ts - b.ts));
        assert.equal(instanceLines(context, instance), lines, "asked again of the same list, the same answer");
      }),
    );
  });

  it("slices an instance's lines to a time range as a filter of the whole would", () => {
    fc.assert(
      fc.property(lists, asked, fc.integer({ min: -5_000, max: 125_000 }), fc.integer({ min: 0, max: 60_000 }), (context, instance, from, width) => {
        const lines = instanceLines(context, instance).all;
        const inRange = (e: NormalizedEvent) => e.ts >= T + from && e.ts <= T + from + width;
        assert.deepEqual(timeSlice(lines, contextIndex(context).sorted, T + from, T + from + width).filter(inRange), lines.filter(inRange));
      }),
    );
  });

  it("indexes a list again when it has grown since", () => {
    const context = [line({ ts: 0, instance: "10.0.0.5@4121", kind: "rebalance", action: "add", source: "rocketmq-client-log", group: "g1", precision: "ms" }, 0)];
    assert.equal(anySame(contextIndex(context).clientLogInstances, "10.0.0.7@88"), false);
    context.push(line({ ts: 10, instance: "10.0.0.7@88", kind: "rebalance", action: "add", source: "rocketmq-client-log", group: "g1", precision: "ms" }, 1));
    assert.equal(anySame(contextIndex(context).clientLogInstances, "10.0.0.7@88"), true);
    assert.equal(instanceLines(context, "10.0.0.7@88").all.length, 1);
    context.push(line({ ts: 20, instance: "10.0.0.7@88", kind: "rebalance", action: "add", source: "rocketmq-client-log", group: "g1", precision: "ms" }, 2));
    assert.equal(instanceLines(context, "10.0.0.7@88").all.length, 2);
  });
});
