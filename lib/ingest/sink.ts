import type { NormalizedEvent } from "../events/model.ts";
import type { UnrecognisedReport } from "./unrecognised.ts";

export interface WriteResult {
  accepted: number;
  duplicates: number;
  /** Indexes into the batch of the events the destination refused, with its reason. */
  rejected: { index: number; reason: string }[];
}

/**
 * A batch a sink encodes while the pipeline fills it: the events are handed over a few hundred at a time and
 * turned into the destination's text (COPY rows, NDJSON) at once, so they die young. Holding thousands of parsed
 * events until a batch is full made the garbage collector copy and promote them: a third of the CLI's time.
 */
export interface SinkBatch {
  /** Takes events; their indexes in the batch continue from the previous call's. */
  add(events: NormalizedEvent[]): void;
  /** Stores everything added, with the same contract as EventSink.write. */
  write(): Promise<WriteResult>;
}

/** Where parsed events go: a running server over HTTP, or PostgreSQL directly. */
export interface EventSink {
  readonly description: string;
  /**
   * Stores a batch; `rejected` holds indexes into `events` the destination refused. Transient failures are
   * retried inside; a thrown error is final (bad token, wrong URL, a store that cannot be opened). A sink must
   * not read `events` after its first await: the pipeline lets go of them to save memory.
   */
  write(events: NormalizedEvent[]): Promise<WriteResult>;
  /** A batch encoded as it fills (SinkBatch); sinks without one get their events collected and written whole. */
  batch?(): SinkBatch;
  /** Keeps what an input's skipped-but-relevant lines looked like (GET /api/v1/ingest/unrecognised shows it). */
  unrecognised?(report: UnrecognisedReport): Promise<void>;
  close(): Promise<void>;
}

/** The sink's own SinkBatch, or one that collects the events for `write`. */
export function openBatch(sink: EventSink): SinkBatch {
  if (sink.batch) return sink.batch();
  let events: NormalizedEvent[] = [];
  return {
    add(more) {
      for (const event of more) events.push(event);
    },
    write() {
      const all = events;
      events = [];
      return sink.write(all);
    },
  };
}

export class FatalSinkError extends Error {
  constructor(
    message: string,
    /** The HTTP status that made it final, for a sink that speaks HTTP. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** First delay; doubles per attempt up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Give up after this long without success; Infinity keeps trying (for --follow). */
  giveUpAfterMs: number;
  onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
}

export const DEFAULT_RETRY: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 10_000, giveUpAfterMs: 5 * 60_000 };

/** Retries `attempt` with exponential backoff and jitter until it succeeds, throws a FatalSinkError, or time is up. */
export async function withRetry<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let delay = policy.initialDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof FatalSinkError) throw error;
      if (Date.now() - started + delay > policy.giveUpAfterMs) throw error;
      const wait = delay / 2 + Math.random() * (delay / 2);
      policy.onRetry?.(n, wait, error);
      await new Promise((resolve) => setTimeout(resolve, wait));
      delay = Math.min(delay * 2, policy.maxDelayMs);
    }
  }
}
