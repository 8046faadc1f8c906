/**
 * Runs a session (connect, declare, consume until the connection closes) again and again until stopped, waiting
 * between attempts: the delay doubles from `initialDelayMs` up to `maxDelayMs`, with jitter so that collectors
 * of several vhosts do not hammer a restarting broker in step, and starts over once a session got going.
 */

export interface Backoff {
  initialDelayMs: number;
  maxDelayMs: number;
}

/** A session resolves when its connection ended after working; it rejects when it could not get going. */
export type Session = (signal: AbortSignal) => Promise<void>;

export class FatalSessionError extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

export async function runWithReconnect(
  session: Session,
  backoff: Backoff,
  signal: AbortSignal,
  onRetry: (error: unknown, delayMs: number) => void,
): Promise<void> {
  let delay = backoff.initialDelayMs;
  while (!signal.aborted) {
    try {
      await session(signal);
      delay = backoff.initialDelayMs;
      if (signal.aborted) return;
      onRetry(new Error("connection closed"), delay);
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof FatalSessionError) throw error;
      onRetry(error, delay);
    }
    await sleep(delay / 2 + Math.random() * (delay / 2), signal);
    delay = Math.min(delay * 2, backoff.maxDelayMs);
  }
}
