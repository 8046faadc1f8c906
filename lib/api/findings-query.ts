import { z } from "zod";
import { summarizeFindings, type DeliveredKeys, type GroupFindings } from "../diagnosis/findings.ts";
import { describeAdvice, type RenderOptions } from "../diagnosis/messages.ts";
import type { KeyDiagnosis } from "../diagnosis/types.ts";
import { formatIssues } from "../events/validate.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../store/event-rows.ts";
import type { Store } from "../store/open.ts";
import { ApiError } from "./errors.ts";

const time = z.union([z.string().regex(/^\d+$/).transform(Number), z.iso.datetime({ offset: true }).transform((v) => Date.parse(v))]);

const findingsQuerySchema = z
  .object({ from: time.optional(), to: time.optional(), group: z.string().min(1).max(255).optional(), lang: z.enum(["en", "zh-CN"]).optional() })
  .strict();

export type FindingsQuery = z.infer<typeof findingsQuerySchema>;

export function parseFindingsQuery(url: URL): FindingsQuery {
  const parsed = findingsQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new ApiError("unprocessable", formatIssues(parsed.error));
  return parsed.data;
}

/** Keys with a duplicate or a lost message read per request at most (the newest); the answer says when it was cut. */
export const DIAGNOSES_LIMIT = 20_000;
const REBALANCE_LIMIT = 50_000;
const DAY = 24 * 3600_000;

/**
 * Per group and topic over a period (default: the last day of data): duplicate rate, causes, outcomes, leaks,
 * rebalance frequency, gaps per cause and advice, from the stored diagnoses (kept current by the worker).
 */
export async function findings(
  store: Store,
  q: FindingsQuery,
  diagnosesLimit = DIAGNOSES_LIMIT,
): Promise<{ from: number; to: number; truncated: boolean; groups: (GroupFindings & { adviceText: string[] })[] }> {
  const to = q.to ?? Number((await store.driver.query<{ t: string | null }>(`SELECT max(last_ts)::text AS t FROM key_diagnoses`))[0]?.t ?? Date.now());
  const from = q.from ?? to - DAY;
  const groupFilter = q.group ? `AND $3 = ANY(groups)` : "";
  const params = q.group ? [from, to, q.group] : [from, to];
  const rows = await store.driver.query<{ diagnosis: unknown }>(
    `SELECT diagnosis FROM key_diagnoses WHERE diagnosis IS NOT NULL AND last_ts BETWEEN $1 AND $2 ${groupFilter} ORDER BY last_ts DESC LIMIT ${diagnosesLimit + 1}`,
    params,
  );
  const diagnoses = rows.slice(0, diagnosesLimit).map((r) => (typeof r.diagnosis === "string" ? JSON.parse(r.diagnosis) : r.diagnosis) as KeyDiagnosis);
  const delivered = (
    await store.driver.query<{ g: string; n: string | number }>(
      `SELECT g, count(*) AS n FROM key_diagnoses, unnest(groups) AS g WHERE last_ts BETWEEN $1 AND $2 ${q.group ? "AND g = $3" : ""} GROUP BY g`,
      params,
    )
  ).map((r): DeliveredKeys => ({ group: r.g, topic: null, keys: Number(r.n) }));
  const rebalances = (
    await store.driver.query<EventRowSql>(
      // Rebalance lines carry no key: on the keyless indexes, not past every delivery of the period.
      `SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND kind = 'rebalance' AND ts BETWEEN $1 AND $2 ${q.group ? "AND group_name = $3" : ""} ORDER BY ts LIMIT ${REBALANCE_LIMIT}`,
      params,
    )
  ).map(eventFromSql);
  const o: RenderOptions = { locale: q.lang ?? "en" };
  const groups = summarizeFindings({ diagnoses, delivered, rebalances, period: { from, to } }).filter((g) => !q.group || g.group === q.group);
  return { from, to, truncated: rows.length > diagnosesLimit, groups: groups.map((g) => ({ ...g, adviceText: g.advice.map((a) => describeAdvice(a, o)) })) };
}
