import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { logger } from "../log.ts";

/**
 * Tells open dashboards that the diagnosis worker stored new verdicts, so new duplicates appear without a reload,
 * and that an alert changed state, so the alerts page shows it without one.
 * In one process an EventEmitter carries it. With REDIS_URL set it goes through Redis pub/sub instead, so every
 * server behind a load balancer hears the worker of any of them (each process publishes to Redis and hears back
 * from it, including its own messages, so nothing arrives twice).
 */

export type LiveMessage =
  | {
      type: "diagnosed";
      /** Keys the worker (re)diagnosed in this tick. */
      keys: number;
      at: number;
    }
  | { type: "alerts"; at: number };

export interface LiveChannel {
  publish(message: LiveMessage): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: (message: LiveMessage) => void): () => void;
  /** Drops every listener and Redis connection. */
  close(): Promise<void>;
}

const REDIS_CHANNEL = "dupscope:live";
const EVENT = "message";

function localChannel(emitter: EventEmitter): LiveChannel {
  return {
    publish: (message) => emitter.emit(EVENT, message),
    subscribe(listener) {
      emitter.on(EVENT, listener);
      return () => emitter.off(EVENT, listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

function redisChannel(url: string, emitter: EventEmitter): LiveChannel {
  const log = logger.child({ component: "live" });
  let publisher: Promise<Redis> | undefined;
  let subscriber: Promise<Redis> | undefined;
  const connect = async () => {
    const { Redis } = await import("ioredis");
    const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    client.on("error", (error) => log.warn({ err: error }, "live channel: Redis error"));
    return client;
  };
  const ensureSubscriber = () => {
    subscriber ??= connect().then(async (client) => {
      client.on("message", (channel: string, text: string) => {
        if (channel !== REDIS_CHANNEL) return;
        try {
          emitter.emit(EVENT, JSON.parse(text) as LiveMessage);
        } catch {
          // Not ours: someone else wrote to the channel.
        }
      });
      await client.subscribe(REDIS_CHANNEL);
      return client;
    });
    return subscriber;
  };
  return {
    publish(message) {
      publisher ??= connect();
      publisher
        .then((client) => client.publish(REDIS_CHANNEL, JSON.stringify(message)))
        .catch((error: unknown) => {
          // Redis is down: this process's own dashboards still hear it.
          log.warn({ err: error }, "live channel: publish through Redis failed");
          emitter.emit(EVENT, message);
        });
    },
    subscribe(listener) {
      void ensureSubscriber().catch((error: unknown) => log.warn({ err: error }, "live channel: cannot subscribe through Redis"));
      emitter.on(EVENT, listener);
      return () => emitter.off(EVENT, listener);
    },
    async close() {
      emitter.removeAllListeners();
      for (const client of [publisher, subscriber]) await client?.then((c) => c.quit()).catch(() => {});
    },
  };
}

export function createLiveChannel(env: Record<string, string | undefined> = process.env): LiveChannel {
  const emitter = new EventEmitter();
  // Every open dashboard is a listener.
  emitter.setMaxListeners(0);
  return env.REDIS_URL ? redisChannel(env.REDIS_URL, emitter) : localChannel(emitter);
}

/** The process's one channel; on globalThis because the worker and the SSE route are bundled apart. */
const KEY = Symbol.for("dupscope.live");
type Holder = { [KEY]?: LiveChannel };

export function liveChannel(): LiveChannel {
  const holder = globalThis as Holder;
  holder[KEY] ??= createLiveChannel();
  return holder[KEY];
}
