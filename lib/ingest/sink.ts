import type { NormalizedEvent } from "../events/model.ts";

/** Where parsed events go: a running server over HTTP, or PostgreSQL directly. */
export interface EventSink {
  readonly description: string;
  /**
   * Stores a batch; `rejected` holds indexes into `events` the destination refused. Transient failures are
   * retried inside; a thrown error is final (bad token, wrong URL, a store that cannot be opened). A sink must
   * not read `events` after its first await: the pipeline lets go of them to save memory.
   */
  write(events: NormalizedEvent[]): Promise<{ accepted: number; duplicates: number; rejected: { index: number; reason: string }[] }>;
  close(): Promise<void>;
}

export class FatalSinkError extends Error {}

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
