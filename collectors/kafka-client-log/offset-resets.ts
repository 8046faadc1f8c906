/**
 * A Kafka consumer says where a reset moved a partition in one line and why in the line before it:
 *
 *   Fetch position FetchPosition{offset=100, …} is out of range for partition t-0, resetting offset   (2.6+)
 *   Fetch offset 100 is out of range for partition t-0, resetting offset                                (0.10 – 2.5)
 *   Seeking to EARLIEST offset of partition t-0                                                         (2.3+, an application's seek)
 *   Found no committed offset for partition t-0                                                         (2.3+; DEBUG before)
 *   Resetting offset for partition t-0 to position FetchPosition{offset=0, …}.                          (2.7+)
 *   Resetting offset for partition t-0 to offset 0.                                                     (0.11 – 2.6)
 *
 * This keeps, per consumer and partition, what the line before said, so the reset's event can state where the
 * partition was (`fromOffset`) and whether the move went back — everything from there is consumed again — or forward,
 * which skips messages and repeats none. A reset after `Found no committed offset` (a new group, or one whose offsets
 * expired with `offsets.retention.minutes` while it was away) or with nothing before it names only where it went; the
 * diagnosis compares that with the offset of the record delivered twice.
 */

export type ResetStrategy = "earliest" | "latest";

export interface ResetOutcome {
  action: "offset_reset" | "offset_skipped";
  fromOffset?: number;
  strategy?: ResetStrategy;
  reason?: "out_of_range" | "seek" | "no_committed_offset";
}

/** The lines of one reset follow each other within milliseconds; a much older one belongs to another reset. */
const PAIRED_WITHIN_MS = 60_000;

interface Pending {
  ts: number;
  fromOffset?: number;
  strategy?: ResetStrategy;
  uncommitted?: true;
}

/** 0.9 names no partition in its out-of-range line: it stands for the consumer's next reset, whichever partition. */
const ANY_PARTITION = "*";

export class OffsetResets {
  private readonly pending = new Map<string, Pending>();

  outOfRange(consumer: string, partition: string | null, ts: number, fromOffset: number): void {
    this.pending.set(key(consumer, partition ?? ANY_PARTITION), { ts, fromOffset });
  }

  seek(consumer: string, partition: string, ts: number, strategy: ResetStrategy): void {
    this.pending.set(key(consumer, partition), { ts, strategy });
  }

  uncommitted(consumer: string, partition: string, ts: number): void {
    this.pending.set(key(consumer, partition), { ts, uncommitted: true });
  }

  /** The reset of `partition` to `toOffset` (old clients name only the strategy): what its event says. */
  reset(consumer: string, partition: string, ts: number, toOffset: number | undefined, stated: ResetStrategy | undefined): ResetOutcome {
    const before = this.take(key(consumer, partition), ts) ?? this.take(key(consumer, ANY_PARTITION), ts);
    const fromOffset = before?.fromOffset;
    const strategy = stated ?? before?.strategy;
    const reason = fromOffset !== undefined ? "out_of_range" : before?.strategy !== undefined ? "seek" : before?.uncommitted ? "no_committed_offset" : undefined;
    const forward = toOffset !== undefined && fromOffset !== undefined ? toOffset >= fromOffset : strategy === "latest";
    return { action: forward ? "offset_skipped" : "offset_reset", fromOffset, strategy, reason };
  }

  private take(id: string, ts: number): Pending | undefined {
    const found = this.pending.get(id);
    if (found === undefined) return undefined;
    this.pending.delete(id);
    return Math.abs(ts - found.ts) <= PAIRED_WITHIN_MS ? found : undefined;
  }
}

const key = (consumer: string, partition: string) => `${consumer}\u0000${partition}`;
