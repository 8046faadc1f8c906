import type { SqlDriver } from "../store/driver.ts";
import { layersAfter, thresholdOf, type Condition } from "./conditions.ts";
import type { Labels } from "./labels.ts";
import type { GroupByLabel } from "./series.ts";

/** A condition measured at one moment for one label set: its value, whether it breaches, and the keys behind it. */
export interface Measurement {
  labels: Labels;
  value: number;
  active: boolean;
  keys: string[];
}

/** Keys kept per firing: enough to start from, few enough for a chat message. */
export const MAX_KEYS = 20;

type Row = Record<string, unknown>;
const num = (row: Row | undefined, column: string) => Number(row?.[column] ?? 0);
const keysOf = (row: Row | undefined) => ((row?.keys as string[] | null) ?? []).slice(0, MAX_KEYS);

/** The column of verdicts each label reads. */
const VERDICT_COLUMNS: Partial<Record<GroupByLabel, string>> = { group: "group_name", topic: "topic", cause: "cause", defect: "defect" };

/**
 * The SELECT list and GROUP BY of a split by `by` over columns named in `columns`. Without labels there is no
 * GROUP BY, so the one row comes back even when nothing matched (a count of 0); with labels only the label sets
 * that have rows come back, and the others measure as quiet.
 */
function split(by: readonly GroupByLabel[], columns: Partial<Record<GroupByLabel, string>>): { select: string; groupBy: string } {
  const used = by.filter((label) => columns[label] !== undefined);
  return {
    select: used.map((label) => `${columns[label]} AS "${label}", `).join(""),
    groupBy: used.length > 0 ? ` GROUP BY ${used.map((label) => columns[label]).join(", ")}` : "",
  };
}

/** The label set of a row: the split's labels it has a value for, plus `fixed` ones (a rule's one group). */
function labelsOf(row: Row, by: readonly GroupByLabel[], fixed: Labels = {}): Labels {
  const labels: Labels = {};
  for (const label of by) {
    const value = fixed[label] ?? row[label];
    if (value !== null && value !== undefined && value !== "") labels[label] = String(value);
  }
  return labels;
}

/** Optional group/topic filters as SQL over verdicts, with their parameters appended to `params`. */
function verdictFilter(c: { group?: string | undefined; topic?: string | undefined }, params: unknown[]): string {
  let sql = "";
  if (c.group !== undefined) sql += ` AND group_name = $${params.push(c.group)}`;
  if (c.topic !== undefined) sql += ` AND topic = $${params.push(c.topic)}`;
  return sql;
}

type VerdictCondition = Extract<Condition, { kind: "leaked_duplicates" | "cause_count" | "duplicate_rate" }>;

/** Duplicates whose second delivery falls in the window, per label set, narrowed by `extra` SQL over `extraParams` ($2…). */
async function verdictCounts(driver: SqlDriver, c: VerdictCondition, by: readonly GroupByLabel[], now: number, extra = "", extraParams: unknown[] = []): Promise<Row[]> {
  const params: unknown[] = [now - c.windowSeconds * 1000, ...extraParams];
  const { select, groupBy } = split(by, VERDICT_COLUMNS);
  return driver.query<Row>(
    `SELECT ${select}count(*) AS n, (array_agg(DISTINCT biz_key))[1:${MAX_KEYS}] AS keys FROM verdicts
      WHERE second_ts >= $1${extra}${verdictFilter(c, params)}${groupBy}`,
    params,
  );
}

/**
 * Keys seen in the window, per group and/or topic when the split has them: the denominator of a rate. Returns how
 * many keys a row of the duplicates' split divides by.
 */
async function deliveredKeys(driver: SqlDriver, c: Extract<Condition, { kind: "duplicate_rate" }>, by: readonly GroupByLabel[], now: number): Promise<(row: Row) => number> {
  const params: unknown[] = [now - c.windowSeconds * 1000];
  const group = c.group !== undefined ? ` AND $${params.push(c.group)} = ANY(groups)` : "";
  const topic = c.topic !== undefined ? ` AND $${params.push(c.topic)} = ANY(topics)` : "";
  const dims = (["group", "topic"] as const).filter((d) => by.includes(d));
  const from = dims.map((d) => `, unnest(${d === "group" ? "groups" : "topics"}) AS ${d}_value`).join("");
  const rows = await driver.query<Row>(
    `SELECT ${dims.map((d) => `${d}_value AS "${d}", `).join("")}count(*) AS n FROM key_diagnoses${from}
      WHERE last_ts >= $1${group}${topic}${dims.length > 0 ? ` GROUP BY ${dims.map((d) => `${d}_value`).join(", ")}` : ""}`,
    params,
  );
  const keyOf = (row: Row) => JSON.stringify(dims.map((d) => row[d] ?? null));
  const counts = new Map(rows.map((row) => [keyOf(row), num(row, "n")]));
  return (row) => counts.get(keyOf(row)) ?? 0;
}

/**
 * Measures a condition per label set of `by` ([] : one measurement, always). `since`: when the rule was created;
 * a source that has sent nothing is silent since then.
 */
export async function measure(driver: SqlDriver, c: Condition, now: number, since: number = now, by: readonly GroupByLabel[] = []): Promise<Measurement[]> {
  const breach = (value: number) => ({ value, active: value > thresholdOf(c) });
  switch (c.kind) {
    case "leaked_duplicates": {
      const rows = await verdictCounts(driver, c, by, now, ` AND outcome = 'leaked'`);
      return rows.map((row) => ({ labels: labelsOf(row, by), ...breach(num(row, "n")), keys: keysOf(row) }));
    }
    case "cause_count": {
      const rows = await verdictCounts(driver, c, by, now, ` AND cause = $2`, [c.cause]);
      return rows.map((row) => ({ labels: labelsOf(row, by), ...breach(num(row, "n")), keys: keysOf(row) }));
    }
    case "duplicate_rate": {
      const [duplicates, delivered] = await Promise.all([verdictCounts(driver, c, by, now), deliveredKeys(driver, c, by, now)]);
      return duplicates.map((row) => {
        const keys = delivered(row);
        const value = keys === 0 ? 0 : (num(row, "n") / keys) * 100;
        return { labels: labelsOf(row, by), value, active: keys >= c.minKeys && value > c.thresholdPercent, keys: keysOf(row) };
      });
    }
    case "rebalances": {
      const params: unknown[] = [c.group, now - c.windowSeconds * 1000];
      const { select, groupBy } = split(by, { topic: "topic" });
      const rows = await driver.query<Row>(
        `SELECT ${select}count(*) AS n FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'rebalance'${c.topic !== undefined ? ` AND topic = $${params.push(c.topic)}` : ""}${groupBy}`,
        params,
      );
      return rows.map((row) => ({ labels: labelsOf(row, by, { group: c.group }), ...breach(num(row, "n")), keys: [] }));
    }
    case "dedup_miss_rate": {
      const later = layersAfter(c.layer);
      const { select, groupBy } = split(by, { topic: "topic" });
      const rows = await driver.query<Row>(
        `SELECT ${select}count(*) FILTER (WHERE detail->>'layer' = ANY($3::text[])) AS missed, count(*) AS hits,
                (array_agg(DISTINCT biz_key) FILTER (WHERE detail->>'layer' = ANY($3::text[])))[1:${MAX_KEYS}] AS keys
           FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'dedup' AND detail->>'decision' = 'hit' AND detail->>'layer' = ANY($4::text[])${groupBy}`,
        [c.group, now - c.windowSeconds * 1000, later, [c.layer, ...later]],
      );
      return rows.map((row) => {
        const hits = num(row, "hits");
        const value = hits === 0 ? 0 : (num(row, "missed") / hits) * 100;
        return { labels: labelsOf(row, by, { group: c.group }), value, active: hits >= c.minHits && value > c.thresholdPercent, keys: keysOf(row) };
      });
    }
    case "ingest_silent": {
      const silence = (last: unknown) => {
        const at = last ? new Date(last as string | Date).getTime() : since;
        const silentSeconds = Math.max(0, (now - at) / 1000);
        return { value: silentSeconds, active: silentSeconds > c.silentSeconds, keys: [] };
      };
      if (by.includes("source")) {
        const rows = await driver.query<Row>(`SELECT source, last_ingested_at AS last FROM ingest_sources WHERE starts_with(source, $1)`, [c.source]);
        return rows.map((row) => ({ labels: { source: String(row.source) }, ...silence(row.last) }));
      }
      const [row] = await driver.query<Row>(`SELECT max(last_ingested_at) AS last FROM ingest_sources WHERE starts_with(source, $1)`, [c.source]);
      return [{ labels: {}, ...silence(row?.last) }];
    }
  }
}
