import type { SqlDriver } from "../store/driver.ts";
import type { Filters } from "./filters.ts";
import { keyWhere, num, Params } from "./sql.ts";

/** Keys that lost a message: skipped by a dedup layer as a duplicate while no delivery of them ran the business. */

export interface LostKeyRow {
  bizKey: string;
  lastTs: number;
  /** Messages of the key lost. */
  lost: number;
  groups: string[];
  topics: string[];
}

/**
 * Keys with a lost message whose last event is in the filters' range (as the overview's count sums them, by the
 * key's last event; keys carry no cause), newest first, after `after` (keyset paging), on
 * key_diagnoses_lost_last_ts_idx.
 */
export async function lostKeys(driver: SqlDriver, f: Filters, limit: number, after?: { lastTs: number; bizKey: string }): Promise<LostKeyRow[]> {
  const p = new Params();
  const where = [`lost > 0`, keyWhere(f, p)];
  if (after) where.push(`(last_ts, biz_key) < (${p.add(after.lastTs)}, ${p.add(after.bizKey)})`);
  const rows = await driver.query<{ biz_key: string; last_ts: unknown; lost: unknown; groups: string[]; topics: string[] }>(
    `SELECT biz_key, last_ts, lost, groups, topics FROM key_diagnoses WHERE ${where.join(" AND ")} ORDER BY last_ts DESC, biz_key DESC LIMIT ${Math.floor(limit)}`,
    p.values,
  );
  return rows.map((r) => ({ bizKey: r.biz_key, lastTs: num(r.last_ts), lost: num(r.lost), groups: r.groups, topics: r.topics }));
}
