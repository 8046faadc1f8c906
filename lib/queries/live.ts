import { clockOrder } from "../diagnosis/clock-order.ts";
import type { SqlDriver } from "../store/driver.ts";
import { num, Params } from "./sql.ts";

export interface LiveDuplicate {
  id: string;
  bizKey: string;
  group: string | null;
  topic: string | null;
  cause: string;
  outcome: string;
  layer: string | null;
  defect: string | null;
  gapMs: number;
  at: number;
}

export interface LiveFilter {
  group?: string | null;
  topic?: string | null;
  cause?: string | null;
}

/** The newest stored duplicates (backwards on verdicts_second_ts_idx): what the live feed compares with what it sent. */
export async function newestDuplicates(driver: SqlDriver, filter: LiveFilter, limit = 50): Promise<LiveDuplicate[]> {
  const p = new Params();
  const where = [filter.group ? `group_name = ${p.add(filter.group)}` : "", filter.topic ? `topic = ${p.add(filter.topic)}` : "", filter.cause ? `cause = ${p.add(filter.cause)}` : ""].filter(Boolean);
  const rows = await driver.query<{ id: string; biz_key: string; group_name: string | null; topic: string | null; cause: string; outcome: string; layer: string | null; defect: string | null; first_ts: unknown; second_ts: unknown }>(
    `SELECT id, biz_key, group_name, topic, cause, outcome, layer, defect, first_ts, second_ts FROM verdicts
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY second_ts DESC, id DESC LIMIT ${Math.floor(limit)}`,
    p.values,
  );
  return rows.map((r) => ({ id: r.id, bizKey: r.biz_key, group: r.group_name, topic: r.topic, cause: r.cause, outcome: r.outcome, layer: r.layer, defect: r.defect, gapMs: clockOrder(num(r.first_ts), num(r.second_ts)).gapMs, at: num(r.second_ts) }));
}
