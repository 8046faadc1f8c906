import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { promisify } from "node:util";
import { formatDuration } from "../lib/format/duration.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { DEFAULT_RETRY, type EventSink, type RetryPolicy } from "../lib/ingest/sink.ts";
import { storeSink } from "../lib/ingest/store-sink.ts";
import { startCollector } from "../lib/rabbitmq/collector.ts";
import { collectorConfigSchema, type CollectorConfigInput } from "../lib/rabbitmq/config.ts";
import type { VhostStats } from "../lib/rabbitmq/vhost-collector.ts";
import { formatIssues } from "../lib/events/validate.ts";
import { UsageError } from "./ingest.ts";

/**
 * `dupscope rabbitmq setup` prints (with --apply runs) what the broker needs; `dupscope rabbitmq collect` runs the
 * collector until interrupted.
 */

const run = promisify(execFile);

/** The commands that switch on what the collector reads: the event exchange plugin, and tracing per vhost. */
export function setupCommands(vhosts: string[]): string[][] {
  return [["rabbitmq-plugins", "enable", "rabbitmq_event_exchange"], ...vhosts.map((vhost) => ["rabbitmqctl", "trace_on", "-p", vhost])];
}

const shellWord = (word: string) => (/^[\w./:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

export async function runSetup(options: { vhosts: string[]; apply: boolean }, log: (line: string) => void, out: (line: string) => void): Promise<void> {
  const commands = setupCommands(options.vhosts);
  if (!options.apply) {
    out("# on every node of the cluster: tracing is per node and per vhost, and a node restart switches it off again");
    for (const command of commands) out(command.map(shellWord).join(" "));
    return;
  }
  for (const [program, ...args] of commands) {
    log(`$ ${[program!, ...args].map(shellWord).join(" ")}`);
    const { stdout } = await run(program!, args, { timeout: 120_000 });
    for (const line of stdout.trim().split("\n")) if (line !== "") log(line);
  }
}

export interface CollectOptions {
  url: string;
  vhost: string[];
  key: string;
  queue?: string;
  maxLength?: number;
  server: string;
  token?: string;
  database?: string;
  record?: string;
  traceOn?: boolean;
}

/** The collector's configuration from the options; a wrong one is a usage error (exit 2), found before connecting. */
function configOf(options: CollectOptions): CollectorConfigInput {
  const input: CollectorConfigInput = {
    url: options.url,
    vhosts: options.vhost.length > 0 ? options.vhost : ["/"],
    key: options.key,
    ...(options.queue ? { queue: options.queue } : {}),
    ...(options.maxLength ? { maxLength: options.maxLength } : {}),
  };
  const parsed = collectorConfigSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error));
  return input;
}

function describeStats(s: VhostStats): string {
  const state = s.connected ? `connected, tracing ${s.tracing}` : "disconnected";
  return `rabbitmq ${s.vhost}: ${state}; received ${s.received}, events ${s.events}, stored ${s.stored} (${s.duplicates} already stored), skipped ${s.skipped}, own ${s.ownFiltered}, redelivered and already stored ${s.replaysSkipped}, dropped by the broker ${s.dropped}, connects ${s.connects}`;
}

/** Collects until SIGINT/SIGTERM; a sink that fails for good ends it with that error. */
export async function runCollect(options: CollectOptions, log: (line: string) => void): Promise<void> {
  const config = configOf(options);
  const retry: RetryPolicy = { ...DEFAULT_RETRY, giveUpAfterMs: Infinity, onRetry: (attempt, delay, error) => log(`store retry ${attempt} in ${formatDuration(delay)}: ${error instanceof Error ? error.message : String(error)}`) };
  const sink: EventSink = options.database ? await storeSink(options.database, { retry }) : httpSink(options.server, { token: options.token, retry });
  const recording = options.record ? createWriteStream(options.record, { flags: "a" }) : null;
  const collector = startCollector(config, {
    sink,
    log,
    ...(recording ? { record: (line: string) => void recording.write(`${line}\n`) } : {}),
    // A collector on the broker's host can switch tracing back on after the node restarted.
    ...(options.traceOn
      ? {
          afterConnect: async (vhost: string) => {
            await run("rabbitmqctl", ["trace_on", "-p", vhost], { timeout: 60_000 });
          },
        }
      : {}),
  });
  log(`collecting ${collector.config.vhosts.join(", ")} into ${sink.description}; Ctrl-C stops`);
  const report = setInterval(() => collector.stats().forEach((s) => log(describeStats(s))), 30_000);
  const stop = () => void collector.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await collector.done;
  } finally {
    clearInterval(report);
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    collector.stats().forEach((s) => log(describeStats(s)));
    await new Promise<void>((resolve) => (recording ? recording.end(resolve) : resolve()));
    await sink.close();
  }
}
