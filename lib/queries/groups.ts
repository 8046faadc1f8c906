import type { NormalizedEvent } from "../events/model.ts";
import type { SqlDriver } from "../store/driver.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../store/event-rows.ts";
import type { Filters } from "./filters.ts";
import { EPISODE_MS, OWNERSHIP_ACTIONS } from "./overview.ts";
import { keyWhere, num, Params, verdictWhere } from "./sql.ts";

/** The groups pages' queries: the list with rates, and one group's membership and rebalance lines. */

export interface GroupSummary {
  group: string;
  keys: number;
  keysWithDuplicates: number;
  duplicates: number;
  leaked: number;
  rebalances: number;
  rate: number;
}


/** Rebalances are counted as in the overview: ownership lines in distinct 10-second slots. */
export async function groupSummaries(driver: SqlDriver, f: Filters): Promise<GroupSummary[]> {
  const p = new Params();
  const k = keyWhere(f, p);
  const v = verdictWhere(f, p);
  const from = p.add(f.from);
  const to = p.add(f.to);
  const rows = await driver.query<{ g: string; keys: unknown; dup_keys: unknown; duplicates: unknown; leaked: unknown; rebalances: unknown }>(
    `WITH delivered AS (SELECT g, count(*) AS keys FROM key_diagnoses, unnest(groups) AS g WHERE ${k} GROUP BY g),
          duplicated AS (SELECT group_name AS g, count(DISTINCT biz_key) AS dup_keys, count(*) AS duplicates, count(*) FILTER (WHERE outcome = 'leaked') AS leaked
                           FROM verdicts WHERE ${v} GROUP BY 1),
          rebalanced AS (SELECT group_name AS g, count(DISTINCT ts / ${EPISODE_MS}) AS rebalances FROM events
                          WHERE group_name IN (SELECT g FROM delivered) AND ts BETWEEN ${from} AND ${to} AND kind = 'rebalance'
                            AND detail->>'action' = ANY(${p.add(OWNERSHIP_ACTIONS)}::text[]) GROUP BY 1)
     SELECT d.g, d.keys, coalesce(x.dup_keys, 0) AS dup_keys, coalesce(x.duplicates, 0) AS duplicates, coalesce(x.leaked, 0) AS leaked, coalesce(r.rebalances, 0) AS rebalances
       FROM delivered d LEFT JOIN duplicated x USING (g) LEFT JOIN rebalanced r USING (g)`,
    p.values,
  );
  return rows
    .map((r) => ({
      group: r.g,
      keys: num(r.keys),
      keysWithDuplicates: num(r.dup_keys),
      duplicates: num(r.duplicates),
      leaked: num(r.leaked),
      rebalances: num(r.rebalances),
      rate: num(r.keys) === 0 ? 0 : num(r.dup_keys) / num(r.keys),
    }))
    .sort((a, b) => b.rate - a.rate || (a.group < b.group ? -1 : 1));
}

/** Lines read per group page at most; a group rebalancing all week is cut, and the page says so. */
export const ACTIVITY_LIMIT = 20_000;

/** The group's lifecycle and rebalance lines in the range, on events_group_name_ts_idx. */
export async function groupActivity(driver: SqlDriver, group: string, f: Filters): Promise<{ events: NormalizedEvent[]; truncated: boolean }> {
  const rows = await driver.query<EventRowSql>(
    `SELECT ${EVENT_SELECT} FROM events WHERE group_name = $1 AND ts BETWEEN $2 AND $3 AND kind IN ('instance_lifecycle', 'rebalance') ORDER BY ts LIMIT ${ACTIVITY_LIMIT + 1}`,
    [group, f.from, f.to],
  );
  return { events: rows.slice(0, ACTIVITY_LIMIT).map(eventFromSql), truncated: rows.length > ACTIVITY_LIMIT };
}
