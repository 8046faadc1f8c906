import type { Channel, Message } from "amqplib";
import type { NormalizedEvent } from "../events/model.ts";
import type { EventSink } from "../ingest/sink.ts";
import type { ReplayGuard } from "./replay-guard.ts";

/**
 * Gathers received messages into batches, stores each batch's events in the sink and only then acknowledges the
 * messages (one multiple-ack per channel): a message is never acknowledged before its events are stored. Messages
 * that gave no event (the collector's own traffic, keyless messages) ride along to be acknowledged with the rest.
 * One batch is stored at a time; messages keep arriving meanwhile, bounded by the channel's prefetch.
 */

export interface Received {
  channel: Channel;
  message: Message;
  events: NormalizedEvent[];
  /** Content digest of a message whose events are in the batch, for the replay guard once they are stored. */
  digest: string | null;
}

export interface BatchCounters {
  stored: number;
  duplicates: number;
  rejected: number;
  batches: number;
}

export class Batcher {
  private pending: Received[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: EventSink,
    private readonly guard: ReplayGuard,
    private readonly limits: { batchSize: number; flushAfterMs: number },
    readonly counters: BatchCounters,
    private readonly onFatal: (error: unknown) => void,
    private readonly log: (line: string) => void,
  ) {}

  add(item: Received): void {
    this.pending.push(item);
    if (this.pending.length >= this.limits.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.limits.flushAfterMs);
  }

  /** Stores and acknowledges everything received so far; resolves once done (never rejects: failures are fatal). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const items = this.pending;
    this.pending = [];
    this.chain = this.chain.then(() => this.store(items)).catch((error: unknown) => this.onFatal(error));
    return this.chain;
  }

  private async store(items: Received[]): Promise<void> {
    if (items.length === 0) return;
    const events = items.flatMap((i) => i.events);
    if (events.length > 0) {
      const result = await this.sink.write(events);
      this.counters.stored += result.accepted;
      this.counters.duplicates += result.duplicates;
      this.counters.rejected += result.rejected.length;
      for (const r of result.rejected.slice(0, 3)) this.log(`rejected by the store: ${r.reason}`);
    }
    for (const item of items) if (item.digest !== null) this.guard.stored(item.digest);
    this.counters.batches++;
    const last = new Map<Channel, Message>();
    for (const item of items) last.set(item.channel, item.message);
    for (const [channel, message] of last) {
      try {
        channel.ack(message, true);
      } catch {
        // The channel closed meanwhile: the broker requeues these messages and the replay guard knows them.
      }
    }
  }
}
