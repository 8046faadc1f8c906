import path from "node:path";
import { DEFAULT_SKEW_MS, UnknownScenarioError, type Truth } from "../lib/simulator/run.ts";
import { simulate } from "../lib/simulator/simulate.ts";
import { UsageError } from "./ingest.ts";

/**
 * `dupscope simulate --scenario <name|all> --keys N --seed S --out DIR [--skew-ms MS]`: writes a labelled scenario
 * (trace NDJSON, client, broker and dedup logs, truth.json, manifest.json) and prints what it made.
 */

export interface SimulateCliOptions {
  scenario: string;
  keys: number;
  seed: number;
  out: string;
  skewMs?: number;
}

function validate(opts: SimulateCliOptions): void {
  if (!Number.isSafeInteger(opts.keys) || opts.keys <= 0) throw new UsageError("--keys must be a positive whole number");
  if (!Number.isSafeInteger(opts.seed)) throw new UsageError("--seed must be a whole number");
  if (opts.skewMs !== undefined && (!Number.isSafeInteger(opts.skewMs) || opts.skewMs < 0)) throw new UsageError("--skew-ms must be a whole number of ms, 0 or more");
  if (opts.out.trim() === "") throw new UsageError("--out must name a directory");
}

function counts<T>(items: readonly T[], keyOf: (item: T) => string): string {
  const tally = new Map<string, number>();
  for (const item of items) tally.set(keyOf(item), (tally.get(keyOf(item)) ?? 0) + 1);
  return [...tally.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, n]) => `${key} ${n}`)
    .join(", ");
}

function summary(truth: Truth, out: string): string[] {
  const files = Object.values(truth.files);
  const lines = files.reduce((sum, f) => sum + f.lines, 0);
  const d = truth.duplicates;
  return [
    `wrote ${files.length} files (${lines} lines) + truth.json + manifest.json to ${out}`,
    `${truth.keys} keys, ${d.length} duplicates, ${truth.lost.length} lost, ${truth.normalRetries.length} keys with normal retries`,
    ...(d.length > 0 ? [`by cause: ${counts(d, (x) => x.cause)}`, `by outcome: ${counts(d, (x) => (x.outcome === "caught" ? `caught(${x.layer})` : x.outcome === "leaked" ? `leaked(${x.defect})` : x.outcome))}`] : []),
  ];
}

export async function runSimulate(opts: SimulateCliOptions, log: (line: string) => void): Promise<void> {
  validate(opts);
  const out = path.resolve(opts.out);
  let result;
  try {
    result = await simulate({ scenario: opts.scenario, keys: opts.keys, seed: opts.seed, skewMs: opts.skewMs ?? DEFAULT_SKEW_MS, out });
  } catch (error) {
    if (error instanceof UnknownScenarioError) throw new UsageError(error.message);
    throw error;
  }
  for (const line of summary(result.truth, out)) log(line);
}
