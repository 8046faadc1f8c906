/**
 * At most `perSecond` queries a second against one database: each query starts no sooner than 1/perSecond after the
 * previous one began. The clock and the wait are arguments so a test can run it without waiting.
 */
export class RateLimiter {
  private next = -Infinity;
  private readonly intervalMs: number;

  constructor(
    perSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    if (!(perSecond > 0)) throw new RangeError("perSecond must be more than 0");
    this.intervalMs = 1000 / perSecond;
  }

  /** Waits for the next slot and takes it. Callers take turns: a slot is reserved before the wait. */
  async take(): Promise<void> {
    const at = Math.max(this.now(), this.next);
    this.next = at + this.intervalMs;
    const wait = at - this.now();
    if (wait > 0) await this.sleep(wait);
  }
}
