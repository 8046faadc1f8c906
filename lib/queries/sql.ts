import type { Filters } from "./filters.ts";

/** Numbered parameters for hand-written SQL: `p.add(value)` returns `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Verdicts in the filters' range: `second_ts` (when the duplicate happened) on verdicts_second_ts_idx, or on
 * verdicts_group_name_second_ts_idx when a group is chosen.
 */
export function verdictWhere(f: Filters, p: Params, options: { cause?: boolean } = {}): string {
  const parts = [`second_ts BETWEEN ${p.add(f.from)} AND ${p.add(f.to)}`];
  if (f.group) parts.push(`group_name = ${p.add(f.group)}`);
  if (f.topic) parts.push(`topic = ${p.add(f.topic)}`);
  if (f.cause && options.cause !== false) parts.push(`cause = ${p.add(f.cause)}`);
  return parts.join(" AND ");
}

/** Ranges charted in whole minutes read the per-minute rollups; shorter buckets need the verdicts themselves. */
export function fromRollups(f: Filters): boolean {
  return f.bucketMs % 60_000 === 0;
}

/** The rollup rows split by group and/or topic as far as the filters (or a ranking by one of them) need. */
function rollupScope(f: Filters, rankBy: "group" | "topic" | undefined): number {
  const group = f.group !== null || rankBy === "group";
  const topic = f.topic !== null || rankBy === "topic";
  return group ? (topic ? 0 : 1) : topic ? 2 : 3;
}

function rollupParts(f: Filters, p: Params, rankBy: "group" | "topic" | undefined): string[] {
  const parts = [`scope = ${rollupScope(f, rankBy)}`, `minute BETWEEN ${p.add(Math.floor(f.from / 60_000) * 60_000)} AND ${p.add(f.to)}`];
  if (f.group) parts.push(`group_name = ${p.add(f.group)}`);
  if (f.topic) parts.push(`topic = ${p.add(f.topic)}`);
  return parts;
}

/** duplicate_rollups rows of the filters' range (whole minutes), group, topic and cause. */
export function rollupWhere(f: Filters, p: Params, rankBy?: "group" | "topic"): string {
  const parts = rollupParts(f, p, rankBy);
  if (f.cause) parts.push(`cause = ${p.add(f.cause)}`);
  return parts.join(" AND ");
}

/** key_rollups rows of the filters' range (whole minutes), group and topic; keys have no cause. */
export function keyRollupWhere(f: Filters, p: Params, rankBy?: "group" | "topic"): string {
  return rollupParts(f, p, rankBy).join(" AND ");
}

/** Diagnosed keys whose last event is in the range (key_diagnoses_last_ts_idx): the denominators of rates. */
export function keyWhere(f: Filters, p: Params): string {
  const parts = [`last_ts BETWEEN ${p.add(f.from)} AND ${p.add(f.to)}`];
  if (f.group) parts.push(`${p.add(f.group)} = ANY(groups)`);
  if (f.topic) parts.push(`${p.add(f.topic)} = ANY(topics)`);
  return parts.join(" AND ");
}

/** Bucket starts covering the range, aligned to multiples of the bucket width. */
export function bucketStarts(f: Filters): number[] {
  const starts: number[] = [];
  for (let t = Math.floor(f.from / f.bucketMs) * f.bucketMs; t <= f.to; t += f.bucketMs) starts.push(t);
  return starts;
}

/** BIGINT and count(*) arrive as strings from pg and as numbers (or bigints) from PGlite. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
