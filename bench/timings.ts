/** Latency samples and their percentiles, shared by the benchmarks that print p50/p95/p99. */

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

export class Timings {
  readonly values: number[] = [];

  async time<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await fn();
    this.values.push(performance.now() - started);
    return result;
  }

  add(value: number): void {
    this.values.push(value);
  }

  stats(): { p50: number; p95: number; p99: number; max: number } {
    const sorted = [...this.values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! };
  }
}

export const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);

export function printRow(label: string, t: Timings, width = 58): void {
  const s = t.stats();
  console.log(`${label.padEnd(width)}${[s.p50, s.p95, s.p99, s.max].map((v) => ms(v).padStart(9)).join("")}`);
}

export function printHeader(label: string, width = 58): void {
  console.log(`${label.padEnd(width)}${["p50", "p95", "p99", "max"].map((h) => h.padStart(9)).join("")}`);
}
