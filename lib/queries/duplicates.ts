import { clockOrder } from "../diagnosis/clock-order.ts";
import type { SqlDriver } from "../store/driver.ts";
import { num, Params } from "./sql.ts";

/** Which stored duplicates to list; `after` is the last row of the previous page (keyset paging). */
export interface DuplicateFilter {
  from?: number;
  to?: number;
  group?: string;
  topic?: string;
  cause?: string;
  outcome?: string;
  after?: { secondTs: number; id: string };
}

export interface DuplicateRow {
  bizKey: string;
  group: string | null;
  topic: string | null;
  cause: string;
  confidence: number;
  outcome: string;
  layer: string | null;
  defect: string | null;
  /** Never negative: the stored deliveries' stamps measured by lib/diagnosis/clock-order.ts. */
  gapMs: number;
  /** How far the clocks put the repeat before the first consumption; 0 when they agree. */
  clockSkewMs: number;
  gapClass: string;
  firstTs: number;
  secondTs: number;
  firstInstance: string | null;
  secondInstance: string | null;
  sameInstance: boolean;
  msgId: string | null;
}

interface VerdictRowSql {
  id: string;
  biz_key: string;
  group_name: string | null;
  topic: string | null;
  cause: string;
  confidence: unknown;
  outcome: string;
  layer: string | null;
  defect: string | null;
    gap_class: string;
  first_ts: unknown;
  second_ts: unknown;
  first_instance: string | null;
  second_instance: string | null;
  same_instance: boolean;
  msg_id: string | null;
}

/** Stored verdicts newest duplicate first, at most `limit`, on verdicts_second_ts_idx (or the group's index). */
export async function duplicateRows(driver: SqlDriver, f: DuplicateFilter, limit: number): Promise<(DuplicateRow & { id: string })[]> {
  const p = new Params();
  const where = [
    f.group !== undefined ? `group_name = ${p.add(f.group)}` : "",
    f.topic !== undefined ? `topic = ${p.add(f.topic)}` : "",
    f.cause !== undefined ? `cause = ${p.add(f.cause)}` : "",
    f.outcome !== undefined ? `outcome = ${p.add(f.outcome)}` : "",
    f.from !== undefined ? `second_ts >= ${p.add(f.from)}` : "",
    f.to !== undefined ? `second_ts <= ${p.add(f.to)}` : "",
    f.after ? `(second_ts, id) < (${p.add(f.after.secondTs)}, ${p.add(f.after.id)})` : "",
  ].filter(Boolean);
  const rows = await driver.query<VerdictRowSql>(
    `SELECT id, biz_key, group_name, topic, cause, confidence, outcome, layer, defect, gap_class, first_ts, second_ts,
            first_instance, second_instance, same_instance, msg_id
       FROM verdicts ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY second_ts DESC, id DESC LIMIT ${Math.floor(limit)}`,
    p.values,
  );
  // Measured from the two stamps rather than read from gap_ms: rows stored before verdicts kept the gap never
  // negative hold a signed one.
  return rows.map((r) => ({
    ...clockOrder(num(r.first_ts), num(r.second_ts)),
    id: r.id,
    bizKey: r.biz_key,
    group: r.group_name,
    topic: r.topic,
    cause: r.cause,
    confidence: num(r.confidence),
    outcome: r.outcome,
    layer: r.layer,
    defect: r.defect,
    gapClass: r.gap_class,
    firstTs: num(r.first_ts),
    secondTs: num(r.second_ts),
    firstInstance: r.first_instance,
    secondInstance: r.second_instance,
    sameInstance: r.same_instance,
    msgId: r.msg_id,
  }));
}
