import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { focusScale, tickStep, timeScale } from "../../../lib/timeline/scale.ts";
import { toLanes, type Timeline } from "../../../lib/timeline/to-lanes.ts";
import { broker, client, redisOnce, SEC, T0, trace, dedup } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-000042";
const MSG = "0A000005216C18B4AAC27A9E2A3F0001";
const GROUP = "pay-consumer";
const PRODUCER = "10.0.0.20";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";

/** The rebalance story of the diagnosis tests: A starts consuming, queue broker-a:3 moves to B, B consumes again. */
function rebalanceStory(): { events: NormalizedEvent[]; context: NormalizedEvent[] } {
  return {
    events: [
      trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: PRODUCER }),
      ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
      ...trace.consume({ at: 1690, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
      dedup({ at: 1692, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 88123, dedupKey: `pay:${KEY}` }),
    ],
    context: [
      broker.lifecycle("connected", { at: 1000, group: GROUP, instance: "10.0.0.9@301" }),
      client.rebalance("remove", { at: 1201, group: GROUP, queue: "broker-a:3", instance: A }),
      client.rebalance("add", { at: 1204, group: GROUP, queue: "broker-a:3", instance: B }),
      client.rebalance("remove", { at: 40 * SEC, group: GROUP, queue: "broker-a:1", instance: A }),
    ],
  };
}

function timelineOf(story: { events: NormalizedEvent[]; context: NormalizedEvent[] }): Timeline {
  const diagnosis = diagnoseKey({ bizKey: KEY, ...story });
  return toLanes({ ...story, deliveries: diagnosis.deliveries, duplicates: diagnosis.duplicates });
}

const lane = (t: Timeline, label: string) => {
  const found = t.lanes.find((l) => l.label === label);
  assert.ok(found, `a lane for ${label} among ${t.lanes.map((l) => l.label).join(", ")}`);
  return found;
};

describe("timeline: one lane per process", () => {
  it("gives the producer, each consumer instance and nothing else a lane, in that order", () => {
    const t = timelineOf(rebalanceStory());
    assert.deepEqual(
      t.lanes.map((l) => [l.role, l.label]),
      [
        ["producer", PRODUCER],
        ["consumer", A],
        ["consumer", B],
      ],
    );
    assert.deepEqual(lane(t, A).groups, [GROUP]);
  });

  it("puts a trace's bare host on the lane of the ip@pid process it belongs to", () => {
    const t = timelineOf(rebalanceStory());
    assert.equal(lane(t, A).spans.length, 1, "the SubBefore/SubAfter of 10.0.0.5 and the dedup lines of 10.0.0.5@4121 are one consumption");
    assert.ok(!t.lanes.some((l) => l.label === "10.0.0.5"));
  });

  it("keeps two processes on one host apart", () => {
    const story = rebalanceStory();
    const C = "10.0.0.5@9999";
    story.events.push(
      ...trace.consume({ at: 20 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5", retryTimes: 1 }),
      dedup({ at: 20 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: C, layer: "redis", decision: "hit", retryTimes: 1, dedupKey: `pay:${KEY}` }),
    );
    const t = timelineOf(story);
    const consumers = t.lanes.filter((l) => l.role === "consumer").map((l) => l.label);
    assert.ok(consumers.includes(A) && consumers.includes(C), consumers.join(", "));
    assert.equal(new Set(consumers).size, consumers.length, "no process twice");
  });
});

describe("timeline: what each lane shows", () => {
  it("draws consumptions as spans and dedup decisions as marks on the consumer's lane", () => {
    const t = timelineOf(rebalanceStory());
    const [span] = lane(t, A).spans;
    assert.deepEqual([span!.start, span!.end, span!.status], [T0 + 1300, T0 + 1340, "success"]);
    assert.deepEqual(
      lane(t, A).marks.filter((m) => !m.context).map((m) => [m.kind, m.note]),
      [
        ["dedup_pass", "redis"],
        ["effect", "redis"],
      ],
    );
    assert.deepEqual(lane(t, B).marks.filter((m) => !m.context).map((m) => [m.kind, m.note]), [["dedup_hit", "redis"]]);
    assert.deepEqual(lane(t, PRODUCER).marks.map((m) => m.kind), ["publish"]);
  });

  it("shows the rebalance that moved the key's queue on both instances, and leaves out other queues and other consumers", () => {
    const t = timelineOf(rebalanceStory());
    const contextMarks = (label: string) => lane(t, label).marks.filter((m) => m.context).map((m) => [m.kind, m.note, m.ts - T0]);
    assert.deepEqual(contextMarks(A), [["rebalance", "remove broker-a:3", 1201]], "broker-a:1 moving 40 s later is not about this key");
    assert.deepEqual(contextMarks(B), [["rebalance", "add broker-a:3", 1204]]);
    assert.ok(!t.lanes.some((l) => l.role === "broker"), "the broker line about 10.0.0.9@301, who never had the key, gets no lane");
  });

  it("puts the broker's line about a consumer of the key on a broker lane", () => {
    const story = rebalanceStory();
    story.context.push(broker.lifecycle("channel_inactive", { at: 3 * SEC, group: GROUP, instance: A }));
    const t = timelineOf(story);
    const brokerLane = lane(t, "broker-a");
    assert.equal(brokerLane.role, "broker");
    assert.deepEqual(brokerLane.marks.map((m) => [m.kind, m.note]), [["vanished", `channel_inactive ${A}`]], "the broker's lane says whose channel it was");
    assert.equal(t.lanes.at(-1), brokerLane, "brokers come last");
  });

  it("draws the gap of each duplicate from the first consumption's start to the second's", () => {
    const t = timelineOf(rebalanceStory());
    assert.equal(t.gaps.length, 1);
    const [gap] = t.gaps;
    assert.deepEqual([gap!.fromLane, gap!.toLane, gap!.from - T0, gap!.to - T0, gap!.gapMs], [lane(t, A).id, lane(t, B).id, 1300, 1690, 390]);
    assert.deepEqual([t.start - T0, t.end - T0], [-200, 1730]);
  });

  it("draws a pair the clocks put the other way round in the diagnosis's order, with a positive gap and the clocks' disagreement", () => {
    // B's clock is 2 s behind: its hit is stamped 310 ms before A's pass, and before the send it consumed.
    const story = rebalanceStory();
    story.events = story.events.map((e) => (e.instance === B || e.instance === "10.0.0.7" ? { ...e, ts: e.ts - 2000 } : e));
    const t = timelineOf(story);
    const [gap, ...rest] = t.gaps;
    assert.deepEqual(rest, []);
    assert.deepEqual([gap!.deliveries, gap!.fromLane, gap!.toLane, gap!.to - T0, gap!.gapMs, gap!.clockSkewMs], [["d1", "d2"], lane(t, A).id, lane(t, B).id, -310, 1610, 1610]);
    assert.deepEqual(t.sendSkews, [{ deliveryId: "d2", lane: lane(t, B).id, clockSkewMs: 110 }], "B's consumption is stamped 110 ms before the send at -200 ms");
  });

  it("keeps far surroundings off the scale unless a verdict cites them", () => {
    const story = rebalanceStory();
    const lateJoin = broker.lifecycle("connected", { at: 90 * SEC, group: GROUP, instance: A });
    const cited = broker.lifecycle("channel_inactive", { at: 150 * SEC, group: GROUP, instance: A });
    story.context.push(lateJoin, cited);
    const diagnosis = diagnoseKey({ bizKey: KEY, ...story });
    const t = toLanes({ ...story, deliveries: diagnosis.deliveries, duplicates: diagnosis.duplicates, cited: [cited.id] });
    const ids = t.lanes.flatMap((l) => l.marks.map((m) => m.eventId));
    assert.ok(!ids.includes(lateJoin.id), "a reconnect 90 s later would squeeze the key's 2 s into a dot");
    assert.ok(ids.includes(cited.id));
    assert.equal(t.end, cited.ts);
  });

  it("is empty for a key without events", () => {
    assert.deepEqual(toLanes({ events: [], context: [], deliveries: [], duplicates: [] }), { lanes: [], gaps: [], sendSkews: [], start: 0, end: 0 });
  });
});

describe("timeline: scale", () => {
  it("maps the data's bounds inside the track with a margin, in order", () => {
    const s = timeScale(1000, 2000);
    assert.ok(s.position(1000) > 0 && s.position(1000) < 0.05);
    assert.ok(s.position(2000) < 1 && s.position(2000) > 0.95);
    assert.ok(Math.abs(s.position(1500) - 0.5) < 1e-9);
    assert.equal(s.position(0), 0, "clamped to the track");
    assert.equal(s.position(10_000), 1);
  });

  it("centres a single instant in a view a tenth of a second wide", () => {
    const s = timeScale(5000, 5000);
    assert.equal(s.position(5000), 0.5);
    assert.ok(s.position(5040) < 1);
  });

  it("spreads a story of a few hundred ms over the track instead of a corner of a second", () => {
    const s = timeScale(0, 164);
    assert.ok(s.position(0) < 0.05 && s.position(164) > 0.95, `${s.position(0)} … ${s.position(164)}`);
  });

  it("puts ticks on round offsets from the first event", () => {
    assert.equal(tickStep(390, 6), 100);
    assert.equal(tickStep(9000, 6), 2000);
    assert.equal(tickStep(3 * 3_600_000, 6), 1_800_000);
    const ticks = timeScale(0, 9000).ticks(6);
    assert.deepEqual(ticks.map((t) => t.offsetMs), [0, 2000, 4000, 6000, 8000]);
    assert.ok(ticks.every((t, i) => i === 0 || t.position > ticks[i - 1]!.position));
  });

  it("cuts long empty stretches out, so each burst of events keeps room", () => {
    // A consumption at 0–1.2 s, the redelivery 68 s later: linearly the first burst would be 2% of the track.
    const s = focusScale([0, 400, 1200, 68_000, 68_050]);
    assert.equal(s.breaks.length, 1);
    assert.equal(s.breaks[0]!.skippedMs, 66_800);
    assert.ok(s.position(1200) - s.position(0) > 0.3, "the first burst spans a good part of the track");
    assert.ok(s.position(68_000) > s.breaks[0]!.position && s.breaks[0]!.position > s.position(1200));
    const probes = [-500, 0, 400, 1200, 5000, 30_000, 67_999, 68_000, 68_050, 70_000];
    assert.ok(probes.every((t, i) => i === 0 || s.position(t) >= s.position(probes[i - 1]!)), "still in time order everywhere");
    assert.ok(probes.every((t) => s.position(t) >= 0 && s.position(t) <= 1));
    assert.deepEqual(s.ticks(6).at(-1), { offsetMs: 68_000, position: s.position(68_000), burst: true }, "the later burst is labelled with its offset");
  });

  it("keeps a plain linear scale when nothing is far apart", () => {
    const s = focusScale([0, 300, 700, 1500]);
    assert.deepEqual(s.breaks, []);
    assert.ok(Math.abs(s.position(750) - 0.5) < 1e-9);
  });
});

