/**
 * How long a verdict must stay unchanged before the duplicate counters count it. The diagnosis of a key changes
 * while its other sources are still arriving (a client log behind the traces turns "unknown" into "rebalance");
 * counting a duplicate only once its verdict has settled keeps every counter monotonic and its labels right.
 */
export const DEFAULT_SETTLE_MS = 120_000;

export function metricsSettleMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.DUPSCOPE_METRICS_SETTLE_MS?.trim();
  if (!raw) return DEFAULT_SETTLE_MS;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`DUPSCOPE_METRICS_SETTLE_MS must be a whole number of ms, got "${raw}"`);
  return value;
}

/** Upper bounds of dupscope_duplicate_gap_seconds: concurrent consumption (ms) up to replays hours later. */
export const GAP_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800, 3600, 10800, 21600] as const;
