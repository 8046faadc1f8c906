import { CAUSES, DEDUP_LAYERS, OUTCOMES, type Cause, type DedupLayer, type Outcome } from "../diagnosis/vocabulary.ts";
import type { Filters } from "../queries/filters.ts";
import {
  dedupFunnel,
  duplicatesByCause,
  gapHistogram,
  latestLeaks,
  outcomesOverTime,
  storeState as readStoreState,
  topByRate,
  totals,
  type CausePoint,
  type FunnelStage,
  type GapBin,
  type LeakRow,
  type OutcomePoint,
  type RateRow,
  type StoreState,
  type Totals,
} from "../queries/overview.ts";
import type { SqlDriver } from "../store/driver.ts";
import { rawEventsFrom } from "../queries/retention.ts";

export type { CausePoint, OutcomePoint, RateRow };

/**
 * What each overview widget shows, read and totalled here so the widgets (components/overview) only put words,
 * colours and charts on it. Each widget reads its own model inside its own Suspense boundary: a slow chart does not
 * hold back the others.
 */

export type Count<K extends string> = { key: K; n: number };

/** A chart's one-line text summary: everything counted, and the three largest non-empty parts. */
export function leaders<K extends string>(counts: readonly Count<K>[], top = 3): { total: number; top: Count<K>[] } {
  return {
    total: counts.reduce((s, c) => s + c.n, 0),
    top: [...counts]
      .sort((a, b) => b.n - a.n)
      .slice(0, top)
      .filter((c) => c.n > 0),
  };
}

function causeCounts<T extends Record<Cause, number>>(rows: readonly T[]): Count<Cause>[] {
  return CAUSES.map((c) => ({ key: c, n: rows.reduce((s, r) => s + r[c], 0) })).filter((c) => c.n > 0);
}

/** Whether the store holds anything, and where the newest duplicate is when the chosen range is empty. */
/** The store's state, and from when raw events are still stored (null: no partition, nothing stored). */
export async function storeState(driver: SqlDriver): Promise<StoreState & { rawEventsFrom: number | null }> {
  const [state, from] = await Promise.all([readStoreState(driver), rawEventsFrom(driver)]);
  return { ...state, rawEventsFrom: from };
}

export function kpis(driver: SqlDriver, f: Filters): Promise<Totals> {
  return totals(driver, f);
}

export interface CauseTrend {
  points: CausePoint[];
  /** Causes with at least one duplicate in the range, in CAUSES order: the series to draw. */
  causes: Count<Cause>[];
}

export async function causeTrend(driver: SqlDriver, f: Filters): Promise<CauseTrend> {
  const points = await duplicatesByCause(driver, f);
  return { points, causes: causeCounts(points) };
}

export interface OutcomeTrend {
  points: OutcomePoint[];
  outcomes: Count<Outcome>[];
}

export async function outcomeTrend(driver: SqlDriver, f: Filters): Promise<OutcomeTrend> {
  const points = await outcomesOverTime(driver, f);
  return { points, outcomes: OUTCOMES.map((o) => ({ key: o, n: points.reduce((s, p) => s + p[o], 0) })) };
}

export interface Funnel {
  stages: FunnelStage[];
  /** Duplicates each dedup layer caught, in the order the layers run. */
  caughtBy: Count<DedupLayer>[];
}

export interface FunnelBar {
  stage: FunnelStage["stage"];
  /** What the bar is drawn to and labelled with: duplicates checked, a layer's catches, or the leaks. */
  value: number;
  kind: "checked" | "caught" | "leaked";
}

/**
 * One bar per stage, each the count it is labelled with: a layer's bar is what it caught, not what reached it, so
 * "Bloom filter 112 caught" is as long as 112 and the layers' bars with the leaks' add up to the checked one.
 */
export function funnelBars(stages: readonly FunnelStage[]): FunnelBar[] {
  return stages.map((s) =>
    s.stage === "checked" || s.stage === "leaked" ? { stage: s.stage, value: s.reached, kind: s.stage } : { stage: s.stage, value: s.caught, kind: "caught" },
  );
}

export async function funnel(driver: SqlDriver, f: Filters): Promise<Funnel> {
  const stages = await dedupFunnel(driver, f);
  return { stages, caughtBy: DEDUP_LAYERS.map((l) => ({ key: l, n: stages.find((s) => s.stage === l)?.caught ?? 0 })) };
}

export const GAP_BANDS = ["ms", "seconds", "minutes"] as const;
export type GapBand = (typeof GAP_BANDS)[number];

export interface Gaps {
  bins: GapBin[];
  causes: Count<Cause>[];
  /** Duplicates per band of gap: milliseconds point at retries, seconds at timeouts, minutes at redelivery. */
  bands: Count<GapBand>[];
}

export async function gaps(driver: SqlDriver, f: Filters): Promise<Gaps> {
  const bins = await gapHistogram(driver, f);
  const inBin = (b: GapBin) => CAUSES.reduce((n, c) => n + b[c], 0);
  return {
    bins,
    causes: causeCounts(bins),
    bands: GAP_BANDS.map((band) => ({ key: band, n: bins.filter((b) => b.band === band).reduce((s, b) => s + inBin(b), 0) })),
  };
}

/** What the groups and topics widgets rank by: the most duplicates (the question they answer), or the highest rate. */
export const RANK_ORDERS = ["duplicates", "rate"] as const;
export type RankOrder = (typeof RANK_ORDERS)[number];

export function rankOrder(value: string | string[] | undefined): RankOrder {
  const v = Array.isArray(value) ? value[0] : value;
  return v === "rate" ? "rate" : "duplicates";
}

/**
 * Rows in the chosen order, ties broken by the other measure and then by name. A large group with a low rate can
 * still hold the most duplicates, and a small one the highest rate: each order answers its own question.
 */
export function ranked(rows: readonly RateRow[], order: RankOrder): RateRow[] {
  const byName = (a: RateRow, b: RateRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return [...rows].sort((a, b) =>
    order === "duplicates" ? b.duplicates - a.duplicates || b.rate - a.rate || byName(a, b) : b.rate - a.rate || b.duplicates - a.duplicates || byName(a, b),
  );
}

/** Every group (or topic) with keys in the range, ranked: the widget charts the first few and lists them all. */
export async function rates(driver: SqlDriver, f: Filters, by: "group" | "topic", order: RankOrder): Promise<RateRow[]> {
  return ranked(await topByRate(driver, f, by, Number.POSITIVE_INFINITY), order);
}

export function leaks(driver: SqlDriver, f: Filters): Promise<LeakRow[]> {
  return latestLeaks(driver, f);
}
