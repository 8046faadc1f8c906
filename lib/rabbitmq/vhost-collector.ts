import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from "amqplib";
import { randomUUID } from "node:crypto";
import { formatKeySpec } from "../../collectors/rabbitmq-firehose/config.ts";
import { firehoseLineParser } from "../../collectors/rabbitmq-firehose/parse.ts";
import { table, text, type FirehoseRecord } from "../../collectors/rabbitmq-firehose/record.ts";
import type { ParseContext } from "../../collectors/types.ts";
import { formatDuration } from "../format/duration.ts";
import type { EventSink } from "../ingest/sink.ts";
import { Batcher, type BatchCounters } from "./batcher.ts";
import { ChannelDirectory } from "./channel-directory.ts";
import { maskedUrl, vhostUrl, type CollectorConfig } from "./config.ts";
import { localConnectionName } from "./connection-name.ts";
import { OwnTraffic } from "./own-traffic.ts";
import { runWithReconnect } from "./reconnect.ts";
import { ReplayGuard } from "./replay-guard.ts";
import { contentDigest, toRecord } from "./to-record.ts";
import { declareTopology, dropQueueOf } from "./topology.ts";

/**
 * Collects one vhost: connects, declares its queues, consumes the firehose and event records, turns each into
 * events with the firehose parser and hands them to the batcher; after the connection ends (a broker restart, a
 * network cut) it reconnects with backoff and declares everything again.
 */

export interface VhostStats extends BatchCounters {
  vhost: string;
  connected: boolean;
  /** Whether this session's probe publish came back through the firehose: `off` means `trace_on` is missing. */
  tracing: "unknown" | "on" | "off";
  connects: number;
  received: number;
  ownFiltered: number;
  replaysSkipped: number;
  skipped: number;
  issues: number;
  events: number;
  /** Messages the broker dropped from the full collector queue (counted in `<queue>.dropped`). */
  dropped: number;
}

export interface VhostOptions {
  sink: EventSink;
  log: (line: string) => void;
  /** Receives every record turned into events, as the NDJSON line that was parsed (a recording). */
  record?: (line: string) => void;
  /** Runs after each (re)connect, e.g. `rabbitmqctl trace_on`, which a broker restart switches off. */
  afterConnect?: (vhost: string) => Promise<void>;
  onConnected: () => void;
  onFatal: (error: unknown) => void;
}

/** How long the tracing probe may take to come back before tracing is reported off. */
const PROBE_TIMEOUT_MS = 5000;
const PROBE_HEADER = "x-dupscope-probe";

export class VhostCollector {
  readonly stats: VhostStats;
  private readonly batcher: Batcher;
  private readonly directory = new ChannelDirectory();
  private readonly guard = new ReplayGuard();
  private readonly own: OwnTraffic;
  private readonly parseLine: ReturnType<typeof firehoseLineParser>;
  private readonly ctx: ParseContext;
  /** Probe tokens are `<probeId>:<n>`: any of this collector's probes coming back proves tracing works. */
  private readonly probeId = randomUUID();
  private probeSeq = 0;
  private readonly keyText: string;

  constructor(
    private readonly config: CollectorConfig,
    readonly vhost: string,
    private readonly options: VhostOptions,
  ) {
    this.stats = { vhost, connected: false, tracing: "unknown", connects: 0, received: 0, ownFiltered: 0, replaysSkipped: 0, skipped: 0, issues: 0, events: 0, dropped: 0, stored: 0, duplicates: 0, rejected: 0, batches: 0 };
    this.batcher = new Batcher(options.sink, this.guard, config, this.stats, options.onFatal, options.log);
    this.own = new OwnTraffic(new Set([config.queue, dropQueueOf(config.queue)]));
    this.parseLine = firehoseLineParser({ key: config.key });
    this.keyText = formatKeySpec(config.key);
    this.ctx = { source: `rabbitmq-firehose:${maskedUrl(vhostUrl(config.url, vhost))}` };
  }

  run(signal: AbortSignal): Promise<void> {
    const backoff = { initialDelayMs: this.config.reconnectInitialDelayMs, maxDelayMs: this.config.reconnectMaxDelayMs };
    return runWithReconnect((s) => this.session(s), backoff, signal, (error, delay) =>
      this.options.log(`rabbitmq ${this.vhost}: ${error instanceof Error ? error.message : String(error)}; reconnecting in about ${formatDuration(delay)}`),
    );
  }

  private async session(signal: AbortSignal): Promise<void> {
    const model = await amqp.connect(vhostUrl(this.config.url, this.vhost), { clientProperties: { connection_name: `dupscope collector (${this.vhost})` } });
    const connectionClosed = connectionEnded(model, signal);
    let channel: Channel | null = null;
    const consumers: string[] = [];
    try {
      const name = localConnectionName(model);
      if (name !== null) this.own.addConnection(name);
      const ch = (channel = await model.createChannel());
      const channelClosed = channelEnded(ch);
      const topology = await declareTopology(ch, this.vhost, this.config.queue, this.config.maxLength);
      if (this.options.afterConnect) await this.options.afterConnect(this.vhost);
      await ch.prefetch(this.config.batchSize * 2);
      consumers.push((await ch.consume(topology.queue, (m) => m && this.receive(ch, m), { noAck: false })).consumerTag);
      consumers.push((await ch.consume(topology.dropQueue, (m) => m && this.stats.dropped++, { noAck: true })).consumerTag);
      this.stats.tracing = "unknown";
      this.probeTracing(ch, signal);
      this.stats.connected = true;
      this.stats.connects++;
      this.options.onConnected();
      await Promise.race([connectionClosed, channelClosed]);
    } finally {
      this.stats.connected = false;
      // On stop nothing may arrive after the last flush: it would be stored but never acknowledged.
      for (const tag of consumers) await channel?.cancel(tag).catch(() => {});
      // What was received is stored either way; the acknowledgements only reach a broker that is still there.
      await this.batcher.flush();
      await model.close().catch(() => {});
    }
  }

  private receive(channel: Channel, message: ConsumeMessage): void {
    this.stats.received++;
    const receivedAt = Date.now();
    const digest = contentDigest(message);
    const item = { channel, message, events: [], digest: null };
    if (message.fields.redelivered && this.guard.alreadyStored(digest)) {
      this.stats.replaysSkipped++;
      return this.batcher.add(item);
    }
    const record = this.directory.annotate(toRecord(message, this.vhost, this.keyText, receivedAt));
    if (this.isProbe(record) || this.own.isOwn(record)) {
      this.stats.ownFiltered++;
      return this.batcher.add(item);
    }
    const line = JSON.stringify(record);
    this.options.record?.(line);
    const result = this.parseLine(line, this.stats.received, this.ctx);
    if (result.issue) {
      this.stats.issues++;
      this.options.log(`rabbitmq ${this.vhost}: ${record.routingKey}: ${result.issue.reason}`);
    }
    if (result.skipped) this.stats.skipped++;
    this.stats.events += result.events.length;
    this.batcher.add({ channel, message, events: result.events, digest: result.events.length > 0 ? digest : null });
  }

  /**
   * `trace_on` is not persistent and cannot be read over AMQP, so each session publishes an unroutable message and
   * waits for its own trace, again and again while none comes back, so that the collector notices when an operator
   * runs `trace_on`. The trace also names this connection as the broker sees it.
   */
  private probeTracing(channel: Channel, signal: AbortSignal): void {
    const seq = ++this.probeSeq;
    const token = `${this.probeId}:${seq}`;
    try {
      channel.publish("", `${this.config.queue}.probe`, Buffer.alloc(0), { headers: { [PROBE_HEADER]: token } });
    } catch {
      return; // The channel is gone; the next session probes again.
    }
    setTimeout(() => {
      if (this.probeSeq !== seq || this.stats.tracing === "on" || signal.aborted || !this.stats.connected) return;
      if (this.stats.tracing === "unknown") {
        this.options.log(`rabbitmq ${this.vhost}: no trace of the probe message after ${formatDuration(PROBE_TIMEOUT_MS)}: tracing is off; run rabbitmqctl trace_on -p ${this.vhost}`);
      }
      this.stats.tracing = "off";
      this.probeTracing(channel, signal);
    }, PROBE_TIMEOUT_MS).unref();
  }

  private isProbe(record: FirehoseRecord): boolean {
    if (!record.routingKey.startsWith("publish.")) return false;
    const token = table(table(record.headers.properties).headers)[PROBE_HEADER];
    if (typeof token !== "string" || token === "") return false;
    if (token.startsWith(`${this.probeId}:`)) {
      if (this.stats.tracing === "off") this.options.log(`rabbitmq ${this.vhost}: tracing is on`);
      this.stats.tracing = "on";
      const name = text(record.headers.connection);
      if (name !== null) this.own.addConnection(name);
    }
    return true;
  }
}

function connectionEnded(model: ChannelModel, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // Without an error listener a lost connection would throw out of the event loop.
    model.on("error", () => {});
    model.on("close", () => resolve());
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

function channelEnded(channel: Channel): Promise<void> {
  return new Promise((resolve) => {
    channel.on("error", () => {});
    channel.on("close", () => resolve());
  });
}
