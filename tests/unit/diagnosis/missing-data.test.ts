import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { describeMissing } from "../../../lib/i18n/diagnosis-text.ts";
import type { MissingData } from "../../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { client, dedup, redisOnce, SEC, trace } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-0042";
const MSG = "0A000009303918B4AAC27A1C3F760003";
const GROUP = "cg_order_paid";

const missing = (events: NormalizedEvent[], context: NormalizedEvent[] = []): MissingData[] => diagnoseKey({ bizKey: KEY, events, context }).missing;
/** A note with at least these fields (times are not pinned). */
const has = (list: MissingData[], m: MissingData) => list.some((x) => Object.entries(m).every(([k, v]) => x[k as keyof MissingData] === v));

describe("missing-data notes", () => {
  it("says the producer trace is missing when no Pub record names a consumed msgId", () => {
    const list = missing(trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }));
    assert.ok(has(list, { code: "no_pub_trace", msgId: MSG }));
    assert.equal(describeMissing({ code: "no_pub_trace", msgId: MSG }), `no Pub trace for msgId ${MSG}: producer tracing off?`);
  });

  it("says the consumer trace is missing when only the dedup log saw a RocketMQ group's deliveries", () => {
    const list = missing(redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@31337" }));
    assert.ok(has(list, { code: "no_consume_trace", group: GROUP }));
  });

  it("names the instance whose client log is missing when an ownership question decides the cause", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@31337", queue: "broker-a:3", queueOffset: 5120 }),
      ...trace.consume({ at: 9 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.6" }),
      dedup({ at: 9 * SEC + 2, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.6@27015", layer: "redis", decision: "hit", queue: "broker-a:3", queueOffset: 5120 }),
    ];
    const context = [client.rebalance("add", { at: 8 * SEC, group: GROUP, queue: "broker-a:3", instance: "10.0.0.6@27015" })];
    const list = missing(events, context);
    assert.ok(has(list, { code: "no_client_log", group: GROUP, instance: "10.0.0.5@31337" }));
    assert.ok(!list.some((m) => m.code === "no_client_log" && m.instance === "10.0.0.6@27015"));
    assert.ok(has(list, { code: "no_broker_log", group: GROUP }));
    assert.equal(describeMissing({ code: "no_client_log", instance: "10.0.0.5@31337" }), "no client log for instance 10.0.0.5@31337");
  });

  it("warns that host-only identities cannot tell two processes on one host apart", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...trace.consume({ at: 20 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
    ];
    assert.ok(has(missing(events), { code: "host_only_identity", group: GROUP, instance: "10.0.0.5" }));
  });

  it("notes a SubBefore without SubAfter, and a duplicate delivery the dedup log did not cover", () => {
    const events = [
      ...trace.consume({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
      ...redisOnce({ at: 0, bizKey: KEY, msgId: MSG, group: GROUP, instance: "10.0.0.5@31337" }),
      trace.consumeStart({ at: 30 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.6" }),
    ];
    const list = missing(events);
    assert.ok(has(list, { code: "no_consume_end", group: GROUP, instance: "10.0.0.6", msgId: MSG }));
    assert.ok(has(list, { code: "no_dedup_line", group: GROUP, instance: "10.0.0.6" }));
  });
});
