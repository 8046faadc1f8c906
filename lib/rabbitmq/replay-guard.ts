/**
 * The collector acknowledges a batch only after the sink stored it. When the connection drops in between (a broker
 * restart), the broker hands the same messages over again, flagged redelivered, and they would be stored a second
 * time under new receipt times: phantom duplicates. The guard counts the content digests it stored lately, and a
 * redelivered message whose digest is counted is skipped, once per count, so two genuinely identical messages (a
 * producer resending on one channel) still both get through. It lives in memory: a collector killed between
 * storing and acknowledging re-stores that one batch after it restarts.
 */
export class ReplayGuard {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 200_000) {}

  stored(digest: string): void {
    const count = this.counts.get(digest) ?? 0;
    // Re-inserting moves the digest to the young end, so eviction drops the oldest.
    this.counts.delete(digest);
    this.counts.set(digest, count + 1);
    while (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value!);
  }

  /** Whether a redelivered message with this digest was already stored; consumes one count when it was. */
  alreadyStored(digest: string): boolean {
    const count = this.counts.get(digest);
    if (count === undefined) return false;
    if (count <= 1) this.counts.delete(digest);
    else this.counts.set(digest, count - 1);
    return true;
  }
}
