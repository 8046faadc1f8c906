import type { EventSink } from "../ingest/sink.ts";
import { collectorConfigSchema, type CollectorConfig, type CollectorConfigInput } from "./config.ts";
import { VhostCollector, type VhostStats } from "./vhost-collector.ts";

/**
 * The RabbitMQ collector: one VhostCollector per configured vhost (an AMQP connection serves one vhost), all
 * writing into one sink. It runs until stopped; a sink that fails for good (a FatalSinkError, or retries given up)
 * stops it, since acknowledging messages whose events were not stored would lose them.
 */

export interface CollectorOptions {
  sink: EventSink;
  log?: (line: string) => void;
  record?: (line: string) => void;
  afterConnect?: (vhost: string) => Promise<void>;
}

export interface RunningCollector {
  readonly config: CollectorConfig;
  /** Per vhost: connection and tracing state, and counters (received, stored, dropped, reconnects…). */
  stats(): VhostStats[];
  /** Resolves when every vhost has connected and is consuming. */
  readonly ready: Promise<void>;
  /** Resolves after stop(); rejects when a sink failure ended collection. */
  readonly done: Promise<void>;
  /** Stops consuming, stores and acknowledges what was received, closes the connections. */
  stop(): Promise<void>;
}

export function startCollector(input: CollectorConfigInput, options: CollectorOptions): RunningCollector {
  const config = collectorConfigSchema.parse(input);
  const abort = new AbortController();
  const log = options.log ?? (() => {});
  let fatal: unknown = null;
  const onFatal = (error: unknown) => {
    fatal ??= error;
    abort.abort();
  };
  const connected: (() => void)[] = [];
  const readies = config.vhosts.map((vhost) => new Promise<void>((resolve) => connected.push(resolve)));
  const collectors = config.vhosts.map(
    (vhost, i) =>
      new VhostCollector(config, vhost, {
        sink: options.sink,
        log,
        ...(options.record ? { record: options.record } : {}),
        ...(options.afterConnect ? { afterConnect: options.afterConnect } : {}),
        onConnected: connected[i]!,
        onFatal,
      }),
  );
  // One vhost that cannot go on (a sink failure, a queue it cannot declare) stops them all.
  const runs = collectors.map((c) => c.run(abort.signal).catch(onFatal));
  const done = Promise.all(runs).then(() => {
    if (fatal !== null) throw fatal;
  });
  const ready = Promise.race([Promise.all(readies).then(() => {}), done.then(() => Promise.reject(new Error("the collector stopped before it connected")))]);
  // Both may be awaited late, or never; a rejection must not count as unhandled meanwhile.
  done.catch(() => {});
  ready.catch(() => {});
  return {
    config,
    stats: () => collectors.map((c) => ({ ...c.stats })),
    ready,
    done,
    async stop() {
      abort.abort();
      await Promise.allSettled(runs);
    },
  };
}
