import type { Redis } from "ioredis";
import { checkedUrl, checkHost } from "../net/outbound.ts";

/**
 * A short-lived connection to the application's Redis for one inspection. An on-call page view is rare, and a
 * Redis that is down must fail the widget in about a second, not hang it on reconnect retries.
 */
export async function withRedis<T>(url: string, fn: (redis: Redis) => Promise<T>, timeoutMs = 1500): Promise<T> {
  await checkHost(checkedUrl(url, ["redis", "rediss"]).hostname);
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, commandTimeout: 5 * timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}
