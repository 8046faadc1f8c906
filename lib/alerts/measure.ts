import type { SqlDriver } from "../store/driver.ts";
import { layersAfter, thresholdOf, type Condition } from "./conditions.ts";

/** A condition measured at one moment: its value, whether it breaches the threshold, and the keys behind it. */
export interface Measurement {
  value: number;
  active: boolean;
  keys: string[];
}

/** Keys kept per firing: enough to start from, few enough for a chat message. */
export const MAX_KEYS = 20;

type Row = Record<string, unknown>;
const num = (row: Row | undefined, column: string) => Number(row?.[column] ?? 0);
const keysOf = (row: Row | undefined) => ((row?.keys as string[] | null) ?? []).slice(0, MAX_KEYS);

/** Optional group/topic filters as SQL over verdicts, with their parameters appended to `params`. */
function verdictFilter(c: { group?: string | undefined; topic?: string | undefined }, params: unknown[]): string {
  let sql = "";
  if (c.group !== undefined) sql += ` AND group_name = $${params.push(c.group)}`;
  if (c.topic !== undefined) sql += ` AND topic = $${params.push(c.topic)}`;
  return sql;
}

type VerdictCondition = Extract<Condition, { kind: "leaked_duplicates" | "cause_count" | "duplicate_rate" }>;

/** Duplicates whose second delivery falls in the window, narrowed by `extra` SQL over `extraParams` ($2…). */
async function verdictCount(driver: SqlDriver, c: VerdictCondition, now: number, extra = "", extraParams: unknown[] = []): Promise<Row | undefined> {
  const params: unknown[] = [now - c.windowSeconds * 1000, ...extraParams];
  const [row] = await driver.query<Row>(
    `SELECT count(*) AS n, (array_agg(DISTINCT biz_key))[1:${MAX_KEYS}] AS keys FROM verdicts
      WHERE second_ts >= $1${extra}${verdictFilter(c, params)}`,
    params,
  );
  return row;
}

/** `since`: when the rule was created; a source that has sent nothing is silent since then. */
export async function measure(driver: SqlDriver, c: Condition, now: number, since: number = now): Promise<Measurement> {
  const breach = (value: number) => ({ value, active: value > thresholdOf(c) });
  switch (c.kind) {
    case "leaked_duplicates": {
      const row = await verdictCount(driver, c, now, ` AND outcome = 'leaked'`);
      return { ...breach(num(row, "n")), keys: keysOf(row) };
    }
    case "cause_count": {
      const row = await verdictCount(driver, c, now, ` AND cause = $2`, [c.cause]);
      return { ...breach(num(row, "n")), keys: keysOf(row) };
    }
    case "duplicate_rate": {
      const duplicates = await verdictCount(driver, c, now);
      const params: unknown[] = [now - c.windowSeconds * 1000];
      const group = c.group !== undefined ? ` AND $${params.push(c.group)} = ANY(groups)` : "";
      const topic = c.topic !== undefined ? ` AND $${params.push(c.topic)} = ANY(topics)` : "";
      const [keys] = await driver.query<Row>(`SELECT count(*) AS n FROM key_diagnoses WHERE last_ts >= $1${group}${topic}`, params);
      const delivered = num(keys, "n");
      const value = delivered === 0 ? 0 : (num(duplicates, "n") / delivered) * 100;
      return { value, active: delivered >= c.minKeys && value > c.thresholdPercent, keys: keysOf(duplicates) };
    }
    case "rebalances": {
      const params: unknown[] = [c.group, now - c.windowSeconds * 1000];
      const [row] = await driver.query<Row>(
        `SELECT count(*) AS n FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'rebalance'${c.topic !== undefined ? ` AND topic = $${params.push(c.topic)}` : ""}`,
        params,
      );
      return { ...breach(num(row, "n")), keys: [] };
    }
    case "dedup_miss_rate": {
      const later = layersAfter(c.layer);
      const [row] = await driver.query<Row>(
        `SELECT count(*) FILTER (WHERE detail->>'layer' = ANY($3::text[])) AS missed, count(*) AS hits,
                (array_agg(DISTINCT biz_key) FILTER (WHERE detail->>'layer' = ANY($3::text[])))[1:${MAX_KEYS}] AS keys
           FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'dedup' AND detail->>'decision' = 'hit' AND detail->>'layer' = ANY($4::text[])`,
        [c.group, now - c.windowSeconds * 1000, later, [c.layer, ...later]],
      );
      const hits = num(row, "hits");
      const value = hits === 0 ? 0 : (num(row, "missed") / hits) * 100;
      return { value, active: hits >= c.minHits && value > c.thresholdPercent, keys: keysOf(row) };
    }
    case "ingest_silent": {
      const [row] = await driver.query<Row>(`SELECT max(last_ingested_at) AS last FROM ingest_sources WHERE starts_with(source, $1)`, [c.source]);
      const last = row?.last ? new Date(row.last as string | Date).getTime() : since;
      const silentSeconds = Math.max(0, (now - last) / 1000);
      return { value: silentSeconds, active: silentSeconds > c.silentSeconds, keys: [] };
    }
  }
}
