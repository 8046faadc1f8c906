import type { DeliveredKeys } from "../diagnosis/findings.ts";
import type { KeyDiagnosis } from "../diagnosis/types.ts";
import type { NormalizedEvent } from "../events/model.ts";
import type { SqlDriver } from "../store/driver.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../store/event-rows.ts";
import { num } from "./sql.ts";

const REBALANCE_LIMIT = 50_000;

/** The newest key's last event time among the stored diagnoses, or undefined for an empty store. */
export async function newestDiagnosedTs(driver: SqlDriver): Promise<number | undefined> {
  const t = (await driver.query<{ t: string | null }>(`SELECT max(last_ts)::text AS t FROM key_diagnoses`))[0]?.t;
  return t === null || t === undefined ? undefined : Number(t);
}

export interface FindingsInput {
  /** The newest `limit` diagnoses with a duplicate or a lost message whose key ended in the period. */
  diagnoses: KeyDiagnosis[];
  /** More diagnoses matched than `limit`. */
  truncated: boolean;
  /** Keys delivered per group in the period's minutes: the denominator of duplicate rates. */
  delivered: DeliveredKeys[];
  rebalances: NormalizedEvent[];
}

/** What findings are summarised from, for a period and optionally one group. */
export async function findingsInput(driver: SqlDriver, period: { from: number; to: number; group?: string }, limit: number): Promise<FindingsInput> {
  const { from, to, group } = period;
  const params = group !== undefined ? [from, to, group] : [from, to];
  const rows = await driver.query<{ diagnosis: unknown }>(
    `SELECT diagnosis FROM key_diagnoses WHERE diagnosis IS NOT NULL AND last_ts BETWEEN $1 AND $2 ${group !== undefined ? "AND $3 = ANY(groups)" : ""}
      ORDER BY last_ts DESC LIMIT ${Math.floor(limit) + 1}`,
    params,
  );
  // From the per-group key rollups, the minutes of the period's keys' last events: a key with nothing found is
  // forgotten with its raw events (lib/retention/job.ts) while its count stays there, and a day of keys is a few
  // thousand rollup rows rather than millions of key rows.
  const delivered = await driver.query<{ g: string; n: unknown }>(
    `SELECT group_name AS g, sum(keys) AS n FROM key_rollups
      WHERE scope = 1 AND minute BETWEEN $1 AND $2 AND group_name <> '' ${group !== undefined ? "AND group_name = $3" : ""}
      GROUP BY 1 HAVING sum(keys) > 0`,
    [Math.floor(from / 60_000) * 60_000, ...params.slice(1)],
  );
  const rebalances = await driver.query<EventRowSql>(
    // Rebalance lines carry no key: on the keyless indexes, not past every delivery of the period.
    `SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND kind = 'rebalance' AND ts BETWEEN $1 AND $2 ${group !== undefined ? "AND group_name = $3" : ""}
      ORDER BY ts LIMIT ${REBALANCE_LIMIT}`,
    params,
  );
  return {
    diagnoses: rows.slice(0, limit).map((r) => (typeof r.diagnosis === "string" ? JSON.parse(r.diagnosis) : r.diagnosis) as KeyDiagnosis),
    truncated: rows.length > limit,
    delivered: delivered.map((r) => ({ group: r.g, topic: null, keys: num(r.n) })),
    rebalances: rebalances.map(eventFromSql),
  };
}
