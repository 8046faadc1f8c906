import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLiveChannel, type LiveMessage } from "../../lib/live/channel.ts";
import { withRedis } from "../../lib/redis/connect.ts";

const url = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function reachable(): Promise<boolean> {
  try {
    return (await withRedis(url, (r) => r.ping())) === "PONG";
  } catch (error) {
    if (process.env.TEST_REDIS_URL) throw error;
    return false;
  }
}

const redisUp = await reachable();

const message = (keys: number): LiveMessage => ({ type: "diagnosed", keys, at: Date.now() });
/** The keys a message reports; an alerts message reports none. */
const keysOf = (m: LiveMessage) => (m.type === "diagnosed" ? m.keys : null);

/** Publishes until the listener has heard it: a Redis SUBSCRIBE takes a moment to be active. */
async function heard(publish: () => void, received: LiveMessage[], count = 1): Promise<void> {
  const deadline = Date.now() + 5000;
  while (received.length < count) {
    if (Date.now() > deadline) throw new Error("nothing arrived within 5 s");
    publish();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("live channel", () => {
  it("carries the worker's message to every subscriber of the process", async () => {
    const channel = createLiveChannel({});
    const a: LiveMessage[] = [];
    const b: LiveMessage[] = [];
    const stopA = channel.subscribe((m) => a.push(m));
    channel.subscribe((m) => b.push(m));
    channel.publish(message(3));
    stopA();
    channel.publish(message(4));
    assert.deepEqual(a.map(keysOf), [3]);
    assert.deepEqual(b.map(keysOf), [3, 4]);
    await channel.close();
  });

  it("goes through Redis pub/sub with REDIS_URL, so another server process hears it once", { skip: !redisUp && `no Redis at ${url}` }, async () => {
    const worker = createLiveChannel({ REDIS_URL: url });
    const web = createLiveChannel({ REDIS_URL: url });
    const onWorker: LiveMessage[] = [];
    const onWeb: LiveMessage[] = [];
    worker.subscribe((m) => onWorker.push(m));
    web.subscribe((m) => onWeb.push(m));
    try {
      // Both SUBSCRIBEs become active in their own time: publish until both hear, let the stragglers land, then
      // count one message from a clean start.
      await heard(() => worker.publish(message(7)), onWeb);
      await heard(() => worker.publish(message(7)), onWorker);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok([...onWeb, ...onWorker].every((m) => m.type === "diagnosed" && m.keys === 7));
      onWeb.length = 0;
      onWorker.length = 0;
      worker.publish(message(8));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(onWeb.map(keysOf), [8], "another process hears it once");
      assert.deepEqual(onWorker.map(keysOf), [8], "the publishing process hears it once too, through Redis");
    } finally {
      await worker.close();
      await web.close();
    }
  });
});
