import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { inspectMarkers, markerConfig, markerKeys, sampleWithoutTtl, scanGlob } from "../../lib/redis/markers.ts";
import { withRedis } from "../../lib/redis/connect.ts";

/**
 * Against the machine's Redis (TEST_REDIS_URL, default 127.0.0.1:6379), under a prefix of its own that is removed
 * afterwards. Without a reachable Redis the suite is skipped, unless TEST_REDIS_URL says one must be there.
 */
const url = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `dupscope-test:${process.pid}:${Date.now().toString(36)}`;

async function reachable(): Promise<boolean> {
  try {
    return (await withRedis(url, (r) => r.ping())) === "PONG";
  } catch (error) {
    if (process.env.TEST_REDIS_URL) throw error;
    return false;
  }
}

describe("Redis dedup-marker inspector", { skip: !(await reachable()) && `no Redis at ${url} (set TEST_REDIS_URL)` }, () => {
  let redis: Redis;

  before(async () => {
    redis = new Redis(url);
    await redis.set(`${PREFIX}:cg_order_paid:PAY-1`, "1", "PX", 86_400_000);
    await redis.set(`${PREFIX}:cg_order_paid:PAY-2`, "1");
    await redis.set(`${PREFIX}:cg_order_paid:PAY-3`, "1", "EX", 60);
    await redis.set(`${PREFIX}:cg_reward:RWD-1`, "1");
    for (let i = 0; i < 300; i++) await redis.set(`${PREFIX}:cg_bulk:K-${i}`, "1", "EX", 600);
  });

  after(async () => {
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it("reads the configuration from the environment", () => {
    assert.equal(markerConfig({}), undefined);
    assert.deepEqual(markerConfig({ DEDUP_REDIS_URL: url, DEDUP_REDIS_KEY_PATTERN: "dedup:{group}:{bizKey}, points:{msgId}" }), { url, patterns: ["dedup:{group}:{bizKey}", "points:{msgId}"] });
  });

  it("expands a pattern into one key per group and msgId it names", () => {
    const keys = markerKeys([`${PREFIX}:{group}:{bizKey}`, "points:{msgId}"], { bizKey: "PAY-1", msgIds: ["M1", "M2"], groups: ["cg_order_paid", "cg_search_index"], topics: [] });
    assert.deepEqual(keys, [`${PREFIX}:cg_order_paid:PAY-1`, `${PREFIX}:cg_search_index:PAY-1`, "points:M1", "points:M2"]);
  });

  it("tells a live marker with its TTL, one without a TTL, and a missing one", async () => {
    const states = await withRedis(url, (r) => inspectMarkers(r, [`${PREFIX}:cg_order_paid:PAY-1`, `${PREFIX}:cg_order_paid:PAY-2`, `${PREFIX}:cg_order_paid:PAY-9`]));
    assert.equal(states[0]!.exists, true);
    assert.ok(states[0]!.ttlMs! > 86_000_000 && states[0]!.ttlMs! <= 86_400_000);
    assert.deepEqual(states.slice(1), [
      { key: `${PREFIX}:cg_order_paid:PAY-2`, exists: true, ttlMs: null },
      { key: `${PREFIX}:cg_order_paid:PAY-9`, exists: false, ttlMs: null },
    ]);
  });

  it("samples a group's markers with SCAN and reports those that never expire", async () => {
    const sample = await withRedis(url, (r) => sampleWithoutTtl(r, `${PREFIX}:{group}:{bizKey}`, { group: "cg_order_paid" }));
    assert.equal(sample.glob, `${PREFIX}:cg_order_paid:*`);
    assert.equal(sample.scanned, 3);
    assert.deepEqual(sample.withoutTtl, [`${PREFIX}:cg_order_paid:PAY-2`]);
    assert.equal(sample.partial, false);
  });

  it("stops at its bound on a big keyspace and says the sample is partial", async () => {
    const sample = await withRedis(url, (r) => sampleWithoutTtl(r, `${PREFIX}:{group}:{bizKey}`, { maxKeys: 50, count: 20 }));
    assert.ok(sample.scanned <= 50 + 20, `${sample.scanned} keys`);
    assert.equal(sample.partial, true);
  });

  it("escapes glob characters of the literal parts", () => {
    assert.equal(scanGlob("dedup:[x]*:{bizKey}"), "dedup:\\[x\\]\\*:*");
  });

  it("fails fast on a Redis that is not there", async () => {
    const started = Date.now();
    await assert.rejects(withRedis("redis://127.0.0.1:1", (r) => r.ping(), 500));
    assert.ok(Date.now() - started < 3000);
  });
});
