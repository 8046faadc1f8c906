import type { EventInput, NormalizedEvent } from "../../lib/events/model.ts";
import { validateEvent } from "../../lib/events/validate.ts";

/** A realistic RocketMQ story for one order: published, consumed on one instance, redelivered to another. */
export const ORDER_KEY = "ORDER-20261130-000042";
export const T0 = Date.UTC(2026, 10, 30, 4, 0, 0, 0);

export function orderStory(bizKey = ORDER_KEY): EventInput[] {
  const base = { broker: "rocketmq" as const, bizKey, msgId: "7F0000010B2A18B4AAC2841F3D9C0000", topic: "PAY_SUCCESS", source: "test:order-story.ndjson" };
  return [
    { ...base, kind: "publish", ts: T0, offsetMsgId: "0A00000500002A9F0000000000A1C2D4", queue: "broker-a:3", queueOffset: 88123, instance: "10.0.0.9", success: true, detail: { producerGroup: "pay-producer", costTime: 3 } },
    { ...base, kind: "consume_start", ts: T0 + 450, group: "pay-consumer", queue: "broker-a:3", queueOffset: 88123, instance: "10.0.0.5@4121", retryTimes: 0, detail: { requestId: "a1" } },
    { ...base, kind: "dedup", ts: T0 + 452, group: "pay-consumer", instance: "10.0.0.5@4121", detail: { layer: "redis", decision: "pass" } },
    { ...base, kind: "consume_end", ts: T0 + 530, group: "pay-consumer", instance: "10.0.0.5@4121", success: true, detail: { requestId: "a1", contextCode: 0 } },
    { ...base, kind: "rebalance", bizKey: null, msgId: null, ts: T0 + 1204, group: "pay-consumer", queue: "broker-a:3", instance: "10.0.0.7@88", detail: { action: "add" } },
    { ...base, kind: "consume_start", ts: T0 + 1690, group: "pay-consumer", queue: "broker-a:3", queueOffset: 88123, instance: "10.0.0.7@88", retryTimes: 0, redelivered: false, detail: { requestId: "b7" } },
    { ...base, kind: "dedup", ts: T0 + 1691, group: "pay-consumer", instance: "10.0.0.7@88", detail: { layer: "redis", decision: "hit" } },
  ];
}

export function toNdjson(records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

/** Records as the ingest path validates them; a record the validator refuses fails the test with its reason. */
export function validated(inputs: unknown[]): NormalizedEvent[] {
  return inputs.map((input) => {
    const result = validateEvent(input);
    if (!result.ok) throw new Error(result.reason);
    return result.event;
  });
}
