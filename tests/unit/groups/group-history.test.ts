import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { instancesOverTime } from "../../../lib/groups/membership.ts";
import { rebalanceHistory } from "../../../lib/groups/rebalance-history.ts";
import { broker, client, SEC, T0 } from "../../helpers/diagnosis-events.ts";

const GROUP = "pay-consumer";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";
const C = "10.0.0.9@301";

describe("rebalance history", () => {
  it("groups each member's lines of one rebalance into an episode and pairs give-ups with takes into moves", () => {
    const history = rebalanceHistory([
      client.rebalance("remove", { at: 1201, group: GROUP, queue: "broker-a:3", instance: A }),
      client.rebalance("add", { at: 1204, group: GROUP, queue: "broker-a:3", instance: C }),
      client.rebalance("remove", { at: 1210, group: GROUP, queue: "broker-a:1", instance: B }),
      client.rebalance("add", { at: 3300, group: GROUP, queue: "broker-a:1", instance: C }),
      client.rebalance("add", { at: 90 * SEC, group: GROUP, queue: "broker-a:3", instance: A }),
    ]);
    assert.equal(history.length, 2, "lines 87 s apart are two rebalances");
    const [first, second] = history;
    assert.deepEqual([first!.start - T0, first!.end - T0, first!.lines], [1201, 3300, 4]);
    assert.deepEqual(first!.instances, [A, B, C].sort());
    assert.deepEqual(
      first!.moves.map((m) => [m.queue, m.from, m.to]),
      [
        ["broker-a:3", [A], [C]],
        ["broker-a:1", [B], [C]],
      ],
    );
    assert.deepEqual(second!.moves.map((m) => [m.queue, m.from, m.to]), [["broker-a:3", [], [A]]], "taken with nobody giving it up: its owner left or it is new");
  });

  it("has no episode without rebalance lines", () => {
    assert.deepEqual(rebalanceHistory([broker.lifecycle("connected", { at: 0, group: GROUP, instance: A })]), []);
  });
});

describe("instances over time", () => {
  it("spans each process from its first to its last line and marks joins, leaves and crashes", () => {
    const spans = instancesOverTime([
      broker.lifecycle("connected", { at: 0, group: GROUP, instance: A }),
      broker.lifecycle("connected", { at: 2 * SEC, group: GROUP, instance: B }),
      client.rebalance("add", { at: 3 * SEC, group: GROUP, queue: "broker-a:1", instance: B }),
      broker.lifecycle("channel_inactive", { at: 60 * SEC, group: GROUP, instance: A }),
      broker.lifecycle("unregistered", { at: 120 * SEC, group: GROUP, instance: B }),
    ]);
    assert.deepEqual(
      spans.map((s) => [s.instance, s.first - T0, s.last - T0, s.changes.map((c) => c.change)]),
      [
        [A, 0, 60_000, ["joined", "vanished"]],
        [B, 2000, 120_000, ["joined", "left"]],
      ],
    );
  });

  it("puts the broker's host-only 'heartbeat expired' on the process of that host", () => {
    const spans = instancesOverTime([
      broker.lifecycle("connected", { at: 0, group: GROUP, instance: A }),
      broker.lifecycle("channel_expired", { at: 150 * SEC, group: GROUP, instance: "10.0.0.5" }),
    ]);
    assert.equal(spans.length, 1);
    assert.deepEqual(spans[0]!.changes.map((c) => c.change), ["joined", "vanished"]);
  });
});
