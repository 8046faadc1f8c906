import type { EventKind, NormalizedEvent } from "../lib/events/model.ts";
import { UniqIds } from "../lib/simulator/ids.ts";
import { Rng } from "../lib/simulator/random.ts";

/** The simulated order stream bench:soak writes and bench:worker diagnoses. */

/** The order service's instances that publish: each builds its messages' UNIQ_KEYs itself. */
const PRODUCERS = 4;

/** murmur3's finalizer: a bijection of 32-bit words that spreads every input bit over the output. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const saltSeeds = new Map<string, [number, number]>();

/** Two words per salt, once per salt (the stream has eight): its FNV-1a and that mixed again, distinct per salt. */
function seedsOf(salt: string): [number, number] {
  let seeds = saltSeeds.get(salt);
  if (seeds === undefined) {
    let fnv = 0x811c9dc5;
    for (let i = 0; i < salt.length; i++) fnv = Math.imul(fnv ^ salt.charCodeAt(i), 0x01000193) >>> 0;
    seeds = [fnv, fmix32(fnv ^ 0x9e3779b9)];
    saltSeeds.set(salt, seeds);
  }
  return seeds;
}

const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const hex8 = (word: number) => HEX_BYTE[word >>> 24]! + HEX_BYTE[(word >>> 16) & 0xff]! + HEX_BYTE[(word >>> 8) & 0xff]! + HEX_BYTE[word & 0xff]!;

/**
 * An event id's 32 hex digits, spread over the unique index as the content hashes of real collectors are. Distinct
 * for every (n, salt) with n < 2^32: the first word is a bijection of n for one salt, and where two salts' first
 * words meet, the second, a bijection of the first under each salt's own seed, parts them. An md5 of `${salt}:${n}`
 * did the same at ~1 µs an event, half of the stream's CPU on the cores bench:soak measures.
 */
function hex32(n: number, salt: string): string {
  const [seed, second] = seedsOf(salt);
  const a = fmix32((n ^ seed) >>> 0);
  const b = fmix32((a ^ second) >>> 0);
  const c = fmix32(b ^ 0x7f4a7c15);
  return hex8(a) + hex8(b) + hex8(c) + hex8(fmix32(c ^ 0x94d049bb));
}

/**
 * One event, every field written out in the same order: object spreads of a shared base with per-event overrides
 * made V8 build each event by property lookups (~7 µs an event, most of the stream's CPU), and bench:soak spends the
 * stream's CPU on the very cores it measures the store on.
 */
function event(
  id: string, kind: EventKind, ts: number, bizKey: string | null, msgId: string | null, queue: string | null, queueOffset: number | null,
  group: string | null, instance: string, success: boolean | null, detail: NormalizedEvent["detail"], source: string,
): NormalizedEvent {
  return {
    id, kind, ts, tsPrecision: "ms", bizKey, msgId, offsetMsgId: null, broker: "rocketmq", topic: "PAY_SUCCESS", group, queue, queueOffset, instance,
    retryTimes: bizKey === null ? null : 0, redelivered: null, success, detail, source,
  };
}

/**
 * One order's events as the collectors would normalize them: the trace's publish, consume start and end, the dedup
 * log's pass; its msgId is the UNIQ_KEY its producer instance builds (lib/simulator/ids.ts: the instance's address,
 * pid and class-loader hash, then the time and a counter), so one instance's ids follow each other as in a real
 * cluster, not scattered as hashes would be (docs/performance-log.md#the-soaks-message-ids); one order in 50 is consumed
 * again on another instance 1.5 s later and caught by Redis; one line in `rebalanceEvery` orders (2000 unless told)
 * is a client-log rebalance of the group, and one in four of those comes with a broker-log line of a member
 * connecting.
 */
export class Stream {
  private next = 0;
  readonly recentKeys: string[] = [];
  private readonly producers: { ip: string; ids: UniqIds }[];

  constructor(private readonly rebalanceEvery = 2000) {
    const rng = new Rng(2000);
    this.producers = Array.from({ length: PRODUCERS }, (_, i) => {
      const ip = `10.0.0.${9 + i}`;
      return { ip, ids: new UniqIds(ip, 4100 + i, rng) };
    });
  }

  orders(count: number, at: number): NormalizedEvent[] {
    const out: NormalizedEvent[] = [];
    for (let i = 0; i < count; i++) {
      const n = this.next++;
      const key = `SOAK-${n}`;
      const producer = this.producers[n % PRODUCERS]!;
      const msgId = producer.ids.next(at);
      const queue = `broker-a:${n % 16}`;
      const consumer = `10.0.1.${(n % 4) + 10}@${7000 + (n % 4)}`;
      const other = `10.0.1.${((n + 1) % 4) + 10}@${7000 + ((n + 1) % 4)}`;
      const traced = (role: string, kind: EventKind, ts: number, instance: string, success: boolean | null): NormalizedEvent =>
        event(`rocketmq-trace:${hex32(n, role)}`, kind, ts, key, msgId, queue, n, "pay-consumer", instance, success, {}, "rocketmq-trace:soak");
      const dedup = (role: string, ts: number, instance: string, decision: string): NormalizedEvent =>
        event(`dedup-log:${hex32(n, role)}`, "dedup", ts, key, msgId, queue, n, "pay-consumer", instance, null, { layer: "redis", decision }, "dedup-log:soak");
      out.push(
        event(`rocketmq-trace:${hex32(n, "pub")}`, "publish", at, key, msgId, queue, n, null, producer.ip, true, { producerGroup: "pay-producer" }, "rocketmq-trace:soak"),
        traced("before", "consume_start", at + 40, consumer, null),
        dedup("pass", at + 41, consumer, "pass"),
        traced("after", "consume_end", at + 90, consumer, true),
      );
      if (n % 50 === 0) out.push(traced("before2", "consume_start", at + 1500, other, null), dedup("hit", at + 1501, other, "hit"));
      if (n % this.rebalanceEvery === 0) {
        // Each member of the group in turn: every one of them logs its rebalances. Every fourth comes with the broker's
        // line of a member connecting, the kind of line that sets a group rebalancing.
        const turn = n / this.rebalanceEvery;
        const member = `10.0.1.${(turn % 4) + 10}@${7000 + (turn % 4)}`;
        out.push(event(`rocketmq-client-log:${hex32(n, "rebalance")}`, "rebalance", at + 5, null, null, queue, null, "pay-consumer", member, null, { action: "add" }, "rocketmq-client-log:soak"));
        if (turn % 4 === 0) {
          const connected = event(`rocketmq-broker-log:${hex32(n, "connected")}`, "instance_lifecycle", at + 3, null, null, null, null, "pay-consumer", member, null, { action: "connected" }, "rocketmq-broker-log:soak");
          connected.topic = null;
          out.push(connected);
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
