import type { NormalizedEvent } from "../events/model.ts";
import type { SqlDriver } from "../store/driver.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../store/event-rows.ts";
import type { Filters } from "./filters.ts";
import { EPISODE_MS } from "./overview.ts";
import { fromRollups, keyRollupWhere, keyWhere, num, Params, rollupWhere, verdictWhere } from "./sql.ts";

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


/**
 * Rebalances are counted as in the overview: distinct 10-second slots of ownership lines (rebalance_rollups).
 * Keys and duplicates come from the per-minute rollups when the range is charted in whole minutes, as the
 * overview's do (docs/dashboard.md), else from key_diagnoses and verdicts.
 */
export async function groupSummaries(driver: SqlDriver, f: Filters): Promise<GroupSummary[]> {
  const p = new Params();
  let counts: string;
  if (fromRollups(f)) {
    const k = keyRollupWhere(f, p, "group");
    const v = rollupWhere(f, p, "group");
    counts = `delivered AS (SELECT group_name AS g, sum(keys) AS keys FROM key_rollups WHERE ${k} GROUP BY 1 HAVING sum(keys) > 0),
          duplicated AS (SELECT group_name AS g, sum(${f.cause ? "cause_key_firsts" : "key_firsts"}) AS dup_keys, sum(duplicates) AS duplicates,
                                sum(duplicates) FILTER (WHERE outcome = 'leaked') AS leaked
                           FROM duplicate_rollups WHERE ${v} GROUP BY 1)`;
  } else {
    const k = keyWhere(f, p);
    const v = verdictWhere(f, p);
    counts = `delivered AS (SELECT g, count(*) AS keys FROM key_diagnoses, unnest(groups) AS g WHERE ${k} GROUP BY g),
          duplicated AS (SELECT group_name AS g, count(DISTINCT biz_key) AS dup_keys, count(*) AS duplicates, count(*) FILTER (WHERE outcome = 'leaked') AS leaked
                           FROM verdicts WHERE ${v} GROUP BY 1)`;
  }
  const slots = [`slot BETWEEN ${p.add(Math.floor(f.from / EPISODE_MS) * EPISODE_MS)} AND ${p.add(f.to)}`];
  if (f.topic) slots.push(`topic = ${p.add(f.topic)}`);
  const rows = await driver.query<{ g: string; keys: unknown; dup_keys: unknown; duplicates: unknown; leaked: unknown; rebalances: unknown }>(
    `WITH ${counts},
          rebalanced AS (SELECT group_name AS g, count(DISTINCT slot) AS rebalances FROM rebalance_rollups WHERE ${slots.join(" AND ")} GROUP BY 1)
     SELECT d.g, d.keys, coalesce(x.dup_keys, 0) AS dup_keys, coalesce(x.duplicates, 0) AS duplicates, coalesce(x.leaked, 0) AS leaked, coalesce(r.rebalances, 0) AS rebalances
       FROM delivered d LEFT JOIN duplicated x USING (g) LEFT JOIN rebalanced r USING (g) WHERE d.g <> ''`,
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
    // A key delivered to the chosen group and to others would bring the others along.
    .filter((r) => !f.group || r.group === f.group)
    .sort((a, b) => b.rate - a.rate || (a.group < b.group ? -1 : 1));
}

/** Lines read per group page at most; a group rebalancing all week is cut to the newest, and the page says so. */
export const ACTIVITY_LIMIT = 20_000;

/**
 * The group's lifecycle and rebalance lines in the range. They carry no business key, so they are read on
 * events_keyless_group_ts_idx without walking past the group's deliveries.
 */
export async function groupActivity(driver: SqlDriver, group: string, f: Filters): Promise<{ events: NormalizedEvent[]; truncated: boolean }> {
  const rows = await driver.query<EventRowSql>(
    `SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND group_name = $1 AND ts BETWEEN $2 AND $3 AND kind IN ('instance_lifecycle', 'rebalance') ORDER BY ts DESC LIMIT ${ACTIVITY_LIMIT + 1}`,
    [group, f.from, f.to],
  );
  // A cut keeps the newest lines: on call, the last hours of a busy week are the ones that matter.
  return { events: rows.slice(0, ACTIVITY_LIMIT).reverse().map(eventFromSql), truncated: rows.length > ACTIVITY_LIMIT };
}

/**
 * Whether the store knows the group at all, at any time: keys delivered to it (key_rollups, whose primary key
 * starts with the scope and the group), its members over time, or a rebalance or lifecycle line of it (the
 * keyless index). Three index probes, so a group page can say a name is unknown instead of showing zeros.
 */
export async function groupKnown(driver: SqlDriver, group: string): Promise<boolean> {
  const [row] = await driver.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM key_rollups WHERE scope = 1 AND group_name = $1)
         OR EXISTS (SELECT 1 FROM group_members WHERE group_name = $1)
         OR EXISTS (SELECT 1 FROM events WHERE biz_key IS NULL AND group_name = $1) AS known`,
    [group],
  );
  return Boolean(row?.known);
}

/** Every group the store knows by keys or members, to offer the nearest names for one it does not. */
export async function groupNames(driver: SqlDriver): Promise<string[]> {
  const rows = await driver.query<{ g: string }>(
    `SELECT group_name AS g FROM key_rollups WHERE scope = 1 AND group_name <> '' UNION SELECT group_name FROM group_members`,
  );
  return rows.map((r) => r.g).sort();
}
