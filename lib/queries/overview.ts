import { CAUSES, DEDUP_LAYERS, type Cause, type DedupLayer } from "../diagnosis/vocabulary.ts";
import { clockOrder } from "../diagnosis/clock-order.ts";
import type { SqlDriver } from "../store/driver.ts";
import type { Filters } from "./filters.ts";
import { bucketStarts, fromRollups, keyRollupWhere, keyWhere, num, Params, rollupWhere, verdictWhere } from "./sql.ts";

/**
 * One function per widget of the overview (`/`). Ranges charted in whole minutes (an hour and longer) read the
 * per-minute rollups the triggers of prisma/migrations/…_rollups keep, so a week costs the same as an hour; shorter
 * ones read the verdicts themselves, which a few minutes of them are cheap to. Rollup minutes are taken whole, so
 * the edges of such a range are exact to the minute. Shaping (dense buckets, funnel stages, histogram bins) happens
 * here so the chart components only draw.
 */

export interface StoreState {
  /** Events are stored, or verdicts remain of events the retention job dropped. */
  hasEvents: boolean;
  /** The newest duplicate, to point at data when the chosen range is empty. */
  newestDuplicate: number | null;
  /** The last event time of the least recent key diagnosed: older than the oldest raw event, its events expired. */
  oldestKeyLastTs: number | null;
}

export async function storeState(driver: SqlDriver): Promise<StoreState> {
  const [row] = await driver.query<{ any: boolean; newest: unknown; oldest_key: unknown }>(
    `SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM key_diagnoses) AS any, (SELECT max(second_ts) FROM verdicts) AS newest,
            (SELECT min(last_ts) FROM key_diagnoses) AS oldest_key`,
  );
  const orNull = (v: unknown) => (v === null || v === undefined ? null : num(v));
  return { hasEvents: Boolean(row?.any), newestDuplicate: orNull(row?.newest), oldestKeyLastTs: orNull(row?.oldest_key) };
}

export interface Totals {
  keys: number;
  keysWithDuplicates: number;
  duplicates: number;
  caught: number;
  leaked: number;
  unknown: number;
  lost: number;
}

export async function totals(driver: SqlDriver, f: Filters): Promise<Totals> {
  const p = new Params();
  const sql = fromRollups(f)
    ? `SELECT d.*, k.* FROM
         (SELECT coalesce(sum(duplicates), 0) AS duplicates, coalesce(sum(${f.cause ? "cause_key_firsts" : "key_firsts"}), 0) AS keys_with_duplicates,
                 coalesce(sum(duplicates) FILTER (WHERE outcome = 'caught'), 0) AS caught, coalesce(sum(duplicates) FILTER (WHERE outcome = 'leaked'), 0) AS leaked,
                 coalesce(sum(duplicates) FILTER (WHERE outcome = 'unknown'), 0) AS unknown
            FROM duplicate_rollups WHERE ${rollupWhere(f, p)}) d,
         (SELECT coalesce(sum(keys), 0) AS keys, coalesce(sum(lost), 0) AS lost FROM key_rollups WHERE ${keyRollupWhere(f, p)}) k`
    : `SELECT d.*, k.* FROM
         (SELECT count(*) AS duplicates, count(DISTINCT biz_key) AS keys_with_duplicates, count(*) FILTER (WHERE outcome = 'caught') AS caught,
                 count(*) FILTER (WHERE outcome = 'leaked') AS leaked, count(*) FILTER (WHERE outcome = 'unknown') AS unknown
            FROM verdicts WHERE ${verdictWhere(f, p)}) d,
         (SELECT count(*) AS keys, coalesce(sum(lost), 0) AS lost FROM key_diagnoses WHERE ${keyWhere(f, p)}) k`;
  const [row] = await driver.query<Record<string, unknown>>(sql, p.values);
  return {
    keys: num(row?.keys),
    keysWithDuplicates: num(row?.keys_with_duplicates),
    duplicates: num(row?.duplicates),
    caught: num(row?.caught),
    leaked: num(row?.leaked),
    unknown: num(row?.unknown),
    lost: num(row?.lost),
  };
}

/** Duplicates per chart bucket and one more dimension: from the rollups or the verdicts, as the range allows. */
async function countsBy(driver: SqlDriver, f: Filters, dimension: "cause" | "outcome"): Promise<{ t: unknown; v: string; n: unknown }[]> {
  const p = new Params();
  const b = p.add(f.bucketMs);
  return fromRollups(f)
    ? driver.query(`SELECT (minute / ${b}) * ${b} AS t, ${dimension} AS v, sum(duplicates) AS n FROM duplicate_rollups WHERE ${rollupWhere(f, p)} GROUP BY 1, 2`, p.values)
    : driver.query(`SELECT (second_ts / ${b}) * ${b} AS t, ${dimension} AS v, count(*) AS n FROM verdicts WHERE ${verdictWhere(f, p)} GROUP BY 1, 2`, p.values);
}

export type CausePoint = { t: number; rebalances: number } & Record<Cause, number>;

/** Duplicates per bucket by cause, with the group's rebalance episodes of the same bucket beside them. */
export async function duplicatesByCause(driver: SqlDriver, f: Filters): Promise<CausePoint[]> {
  const rows = await countsBy(driver, f, "cause");
  const rebalances = await rebalanceEpisodes(driver, f);
  const points = new Map<number, CausePoint>(
    bucketStarts(f).map((t) => [t, { t, rebalances: rebalances.get(t) ?? 0, ...(Object.fromEntries(CAUSES.map((c) => [c, 0])) as Record<Cause, number>) }]),
  );
  for (const row of rows) {
    const point = points.get(num(row.t));
    if (point && (CAUSES as readonly string[]).includes(row.v)) point[row.v as Cause] += num(row.n);
  }
  return [...points.values()];
}

/** Rebalance lines that change ownership; `exists` and the notification itself change nothing. Must match the
 * list in dupscope_roll_rebalances (prisma/migrations/…_rollups). */
export const OWNERSHIP_ACTIONS = ["result", "add", "remove", "assign", "revoke", "lost", "dropped_without_result"];
/** Every member logs its part of one rebalance within seconds: lines of a group closer than this are one episode. */
export const EPISODE_MS = 10_000;

/**
 * Rebalance episodes per bucket, counted as distinct (group, 10-second slot) in rebalance_rollups: chart buckets
 * are whole multiples of the slot, so a slot never straddles two bars.
 */
async function rebalanceEpisodes(driver: SqlDriver, f: Filters): Promise<Map<number, number>> {
  const p = new Params();
  const b = p.add(f.bucketMs);
  const parts = [`slot BETWEEN ${p.add(Math.floor(f.from / EPISODE_MS) * EPISODE_MS)} AND ${p.add(f.to)}`];
  if (f.group) parts.push(`group_name = ${p.add(f.group)}`);
  if (f.topic) parts.push(`topic = ${p.add(f.topic)}`);
  const rows = await driver.query<{ t: unknown; n: unknown }>(
    `SELECT (slot / ${b}) * ${b} AS t, count(DISTINCT (group_name, slot)) AS n FROM rebalance_rollups WHERE ${parts.join(" AND ")} GROUP BY 1`,
    p.values,
  );
  return new Map(rows.map((r) => [num(r.t), num(r.n)]));
}

export interface OutcomePoint {
  t: number;
  caught: number;
  leaked: number;
  unknown: number;
}

/** Caught vs leaked per bucket: are the dedup layers holding? */
export async function outcomesOverTime(driver: SqlDriver, f: Filters): Promise<OutcomePoint[]> {
  const rows = await countsBy(driver, f, "outcome");
  const points = new Map<number, OutcomePoint>(bucketStarts(f).map((t) => [t, { t, caught: 0, leaked: 0, unknown: 0 }]));
  for (const row of rows) {
    const point = points.get(num(row.t));
    if (point && (row.v === "caught" || row.v === "leaked" || row.v === "unknown")) point[row.v] += num(row.n);
  }
  return [...points.values()];
}

export interface FunnelStage {
  /** `checked`: duplicates whose group logs its dedup decisions; then each layer; `leaked`: ran twice. */
  stage: "checked" | DedupLayer | "leaked";
  /** Duplicates that reached this stage. */
  reached: number;
  /** Stopped here (a layer's hits). */
  caught: number;
}

/** The dedup layers as a funnel: how many duplicates each layer saw and stopped, in the order they are checked. */
export async function dedupFunnel(driver: SqlDriver, f: Filters): Promise<FunnelStage[]> {
  const p = new Params();
  const rows = await driver.query<{ outcome: string; layer: string | null; n: unknown }>(
    fromRollups(f)
      ? `SELECT outcome, nullif(layer, '') AS layer, sum(duplicates) AS n FROM duplicate_rollups WHERE ${rollupWhere(f, p)} AND outcome <> 'unknown' GROUP BY 1, 2`
      : `SELECT outcome, layer, count(*) AS n FROM verdicts WHERE ${verdictWhere(f, p)} AND outcome <> 'unknown' GROUP BY 1, 2`,
    p.values,
  );
  return funnelStages(rows.map((r) => ({ outcome: r.outcome, layer: r.layer, n: num(r.n) })));
}

function funnelStages(rows: readonly { outcome: string; layer: string | null; n: number }[]): FunnelStage[] {
  const caughtBy = (layer: DedupLayer) => rows.filter((r) => r.outcome === "caught" && r.layer === layer).reduce((s, r) => s + r.n, 0);
  const checked = rows.reduce((s, r) => s + r.n, 0);
  const stages: FunnelStage[] = [{ stage: "checked", reached: checked, caught: 0 }];
  let reached = checked;
  for (const layer of DEDUP_LAYERS) {
    const caught = caughtBy(layer);
    stages.push({ stage: layer, reached, caught });
    reached -= caught;
  }
  const leaked = rows.filter((r) => r.outcome === "leaked").reduce((s, r) => s + r.n, 0);
  stages.push({ stage: "leaked", reached: leaked, caught: 0 });
  return stages;
}

/**
 * Lower edges of the gap bins (ms), about 1-3-10 per decade, with edges on the 1 s and 1 min band limits. The
 * rollups bin with the same edges (dupscope_gap_bin in prisma/migrations/…_rollups).
 */
export const GAP_EDGES = [1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 60_000, 180_000, 600_000, 1_800_000, 3_600_000, 10_800_000] as const;

export type GapBin = { bin: number; fromMs: number; toMs: number | null; band: "ms" | "seconds" | "minutes" } & Record<Cause, number>;

/** How far apart the two consumptions are, per cause: log-spaced bins, banded as gapClass bands them. */
export async function gapHistogram(driver: SqlDriver, f: Filters): Promise<GapBin[]> {
  const p = new Params();
  const rows = await driver.query<{ bin: unknown; cause: string; n: unknown }>(
    fromRollups(f)
      ? `SELECT gap_bin AS bin, cause, sum(duplicates) AS n FROM duplicate_rollups WHERE ${rollupWhere(f, p)} GROUP BY 1, 2`
      : `SELECT width_bucket(abs(gap_ms), ${p.add(GAP_EDGES.map(String))}::bigint[]) AS bin, cause, count(*) AS n FROM verdicts WHERE ${verdictWhere(f, p)} GROUP BY 1, 2`,
    p.values,
  );
  const bins: GapBin[] = Array.from({ length: GAP_EDGES.length + 1 }, (_, bin) => {
    const fromMs = bin === 0 ? 0 : GAP_EDGES[bin - 1]!;
    return {
      bin,
      fromMs,
      toMs: GAP_EDGES[bin] ?? null,
      band: fromMs < 1000 ? "ms" : fromMs < 60_000 ? "seconds" : "minutes",
      ...(Object.fromEntries(CAUSES.map((c) => [c, 0])) as Record<Cause, number>),
    };
  });
  for (const row of rows) {
    const bin = bins[num(row.bin)];
    if (bin && (CAUSES as readonly string[]).includes(row.cause)) bin[row.cause as Cause] += num(row.n);
  }
  return bins;
}

export interface RateRow {
  name: string;
  keys: number;
  keysWithDuplicates: number;
  duplicates: number;
  /** keysWithDuplicates / keys. */
  rate: number;
}

/**
 * Groups (or topics) by duplicate rate: keys with a duplicate there over keys delivered there. Keys count by their
 * last event, duplicates by when they happened, both in the range.
 */
export async function topByRate(driver: SqlDriver, f: Filters, by: "group" | "topic", limit = 8): Promise<RateRow[]> {
  const p = new Params();
  const [array, column] = by === "group" ? ["groups", "group_name"] : ["topics", "topic"];
  let sql: string;
  if (fromRollups(f)) {
    const k = keyRollupWhere(f, p, by);
    const v = rollupWhere(f, p, by);
    sql = `WITH delivered AS (SELECT ${column} AS name, sum(keys) AS keys FROM key_rollups WHERE ${k} GROUP BY 1),
                duplicated AS (SELECT ${column} AS name, sum(${f.cause ? "cause_key_firsts" : "key_firsts"}) AS dup_keys, sum(duplicates) AS duplicates
                                 FROM duplicate_rollups WHERE ${v} GROUP BY 1)
           SELECT delivered.name, delivered.keys, coalesce(duplicated.dup_keys, 0) AS dup_keys, coalesce(duplicated.duplicates, 0) AS duplicates
             FROM delivered LEFT JOIN duplicated USING (name) WHERE delivered.keys > 0 AND delivered.name <> ''`;
  } else {
    const k = keyWhere(f, p);
    const v = verdictWhere(f, p);
    sql = `WITH delivered AS (SELECT x AS name, count(*) AS keys FROM key_diagnoses, unnest(${array}) AS x WHERE ${k} GROUP BY 1),
                duplicated AS (SELECT ${column} AS name, count(DISTINCT biz_key) AS dup_keys, count(*) AS duplicates FROM verdicts WHERE ${v} AND ${column} IS NOT NULL GROUP BY 1)
           SELECT delivered.name, delivered.keys, coalesce(duplicated.dup_keys, 0) AS dup_keys, coalesce(duplicated.duplicates, 0) AS duplicates
             FROM delivered LEFT JOIN duplicated USING (name)`;
  }
  const rows = await driver.query<{ name: string; keys: unknown; dup_keys: unknown; duplicates: unknown }>(sql, p.values);
  return rows
    .map((r) => ({ name: r.name, keys: num(r.keys), keysWithDuplicates: num(r.dup_keys), duplicates: num(r.duplicates), rate: num(r.keys) === 0 ? 0 : num(r.dup_keys) / num(r.keys) }))
    .filter((r) => (by === "group" ? !f.group || r.name === f.group : !f.topic || r.name === f.topic))
    .sort((a, b) => b.rate - a.rate || b.duplicates - a.duplicates || (a.name < b.name ? -1 : 1))
    .slice(0, limit);
}

export interface LeakRow {
  bizKey: string;
  group: string | null;
  topic: string | null;
  cause: string;
  defect: string | null;
  gapMs: number;
  at: number;
}

/** The newest duplicates that got through every dedup layer: the ones to look at first. */
export async function latestLeaks(driver: SqlDriver, f: Filters, limit = 10): Promise<LeakRow[]> {
  const p = new Params();
  const rows = await driver.query<{ biz_key: string; group_name: string | null; topic: string | null; cause: string; defect: string | null; first_ts: unknown; second_ts: unknown }>(
    `SELECT biz_key, group_name, topic, cause, defect, first_ts, second_ts FROM verdicts WHERE ${verdictWhere(f, p)} AND outcome = 'leaked'
      ORDER BY second_ts DESC, id DESC LIMIT ${Math.floor(limit)}`,
    p.values,
  );
  return rows.map((r) => ({ bizKey: r.biz_key, group: r.group_name, topic: r.topic, cause: r.cause, defect: r.defect, gapMs: clockOrder(num(r.first_ts), num(r.second_ts)).gapMs, at: num(r.second_ts) }));
}

/** Groups and topics with keys in the range, for the filter menus (whole minutes: key_rollups). */
export async function filterChoices(driver: SqlDriver, f: Filters): Promise<{ groups: string[]; topics: string[] }> {
  const p = new Params();
  const rows = await driver.query<{ kind: string; name: string }>(
    `SELECT DISTINCT CASE scope WHEN 1 THEN 'group' ELSE 'topic' END AS kind, CASE scope WHEN 1 THEN group_name ELSE topic END AS name
       FROM key_rollups WHERE scope IN (1, 2) AND minute BETWEEN ${p.add(Math.floor(f.from / 60_000) * 60_000)} AND ${p.add(f.to)} AND keys > 0`,
    p.values,
  );
  const pick = (kind: string, current: string | null) =>
    [...new Set([...rows.filter((r) => r.kind === kind && r.name !== "").map((r) => r.name), ...(current ? [current] : [])])].sort();
  return { groups: pick("group", f.group), topics: pick("topic", f.topic) };
}

/**
 * Keys waiting for diagnosis: those queued, and those named by ingest journal rows not folded yet (a key in both,
 * or in two journal rows, counts more than once: it is how far the worker is behind the writes, not a key count).
 */
export async function pendingDiagnoses(driver: SqlDriver): Promise<number> {
  const [row] = await driver.query<{ n: unknown }>(
    `SELECT (SELECT count(*) FROM diagnosis_queue) + (SELECT coalesce(sum(cardinality(keys) + cardinality(keyless_msg_ids)), 0) FROM ingest_journal) AS n`,
  );
  return num(row?.n);
}
