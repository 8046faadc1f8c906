import { createHash } from "node:crypto";
import type { NormalizedEvent } from "../lib/events/model.ts";

/** The simulated order stream bench:soak writes and bench:worker diagnoses. */

const hex32 = (n: number, salt: string) => createHash("md5").update(`${salt}:${n}`).digest("hex");

/**
 * One order's events as the collectors would normalize them: the trace's publish, consume start and end, the dedup
 * log's pass; one order in 50 is consumed again on another instance 1.5 s later and caught by Redis; one line in
 * `rebalanceEvery` orders (2000 unless told) is a client-log rebalance of the group, and one in four of those comes
 * with a broker-log line of a member connecting.
 */
export class Stream {
  private next = 0;
  readonly recentKeys: string[] = [];

  constructor(private readonly rebalanceEvery = 2000) {}

  orders(count: number, at: number): NormalizedEvent[] {
    const out: NormalizedEvent[] = [];
    for (let i = 0; i < count; i++) {
      const n = this.next++;
      const key = `SOAK-${n}`;
      const msgId = hex32(n, "msg").toUpperCase();
      const queue = `broker-a:${n % 16}`;
      const consumer = `10.0.1.${(n % 4) + 10}@${7000 + (n % 4)}`;
      const base = { bizKey: key, msgId, offsetMsgId: null, broker: "rocketmq" as const, topic: "PAY_SUCCESS", queue, queueOffset: n, retryTimes: 0, redelivered: null, tsPrecision: "ms" as const };
      const event = (format: string, role: string, over: Partial<NormalizedEvent>): NormalizedEvent => ({
        ...base, id: `${format}:${hex32(n, role)}`, kind: "consume_start", ts: at, group: "pay-consumer", instance: consumer, success: null, detail: {},
        source: `${format}:soak`, ...over,
      });
      out.push(
        event("rocketmq-trace", "pub", { kind: "publish", group: null, instance: "10.0.0.9", success: true, detail: { producerGroup: "pay-producer" } }),
        event("rocketmq-trace", "before", { ts: at + 40 }),
        event("dedup-log", "pass", { kind: "dedup", ts: at + 41, detail: { layer: "redis", decision: "pass" } }),
        event("rocketmq-trace", "after", { kind: "consume_end", ts: at + 90, success: true }),
      );
      if (n % 50 === 0) {
        const other = `10.0.1.${((n + 1) % 4) + 10}@${7000 + ((n + 1) % 4)}`;
        out.push(
          event("rocketmq-trace", "before2", { ts: at + 1500, instance: other }),
          event("dedup-log", "hit", { kind: "dedup", ts: at + 1501, instance: other, detail: { layer: "redis", decision: "hit" } }),
        );
      }
      if (n % this.rebalanceEvery === 0) {
        // Each member of the group in turn: every one of them logs its rebalances. Every fourth comes with the broker's
        // line of a member connecting, the kind of line that sets a group rebalancing.
        const turn = n / this.rebalanceEvery;
        const member = `10.0.1.${(turn % 4) + 10}@${7000 + (turn % 4)}`;
        const keyless = { ...base, bizKey: null, msgId: null, queueOffset: null, retryTimes: null, group: "pay-consumer", instance: member, success: null };
        out.push({ ...keyless, id: `rocketmq-client-log:${hex32(n, "rebalance")}`, kind: "rebalance", ts: at + 5, detail: { action: "add" }, source: "rocketmq-client-log:soak" });
        if (turn % 4 === 0) {
          out.push({
            ...keyless, id: `rocketmq-broker-log:${hex32(n, "connected")}`, kind: "instance_lifecycle", ts: at + 3, topic: null, queue: null,
            detail: { action: "connected" }, source: "rocketmq-broker-log:soak",
          });
        }
      }
      if (n % 97 === 0) {
        this.recentKeys.push(key);
        if (this.recentKeys.length > 500) this.recentKeys.shift();
      }
    }
    return out;
  }
}

/** Events per order in bench:soak's stream, on average: 4, 2 more for one order in 50, 1 for one in 2000, 1 for one in 8000. */
export const EVENTS_PER_ORDER = 4 + 2 / 50 + 1 / 2000 + 1 / 8000;
