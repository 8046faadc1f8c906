import { summarizeFindings, type GroupFindings } from "../diagnosis/findings.ts";
import { describeAdvice } from "../i18n/diagnosis-text.ts";
import type { Locale } from "../i18n/locale.ts";
import { findingsInput, newestDiagnosedTs } from "../queries/findings.ts";
import type { SqlDriver } from "../store/driver.ts";

/** Keys with a duplicate or a lost message read per request at most (the newest); the answer says when it was cut. */
export const DIAGNOSES_LIMIT = 20_000;
const DAY = 24 * 3600_000;

export interface FindingsQuery {
  from?: number;
  to?: number;
  group?: string;
  lang?: Locale;
}

export interface Findings {
  from: number;
  to: number;
  truncated: boolean;
  groups: (GroupFindings & { adviceText: string[] })[];
}

/**
 * Per group and topic over a period (default: the last day of data): duplicate rate, causes, outcomes, leaks,
 * rebalance frequency, gaps per cause and advice, from the stored diagnoses (kept current by the worker).
 */
export async function findings(driver: SqlDriver, q: FindingsQuery, diagnosesLimit = DIAGNOSES_LIMIT): Promise<Findings> {
  const to = q.to ?? (await newestDiagnosedTs(driver)) ?? Date.now();
  const from = q.from ?? to - DAY;
  const input = await findingsInput(driver, { from, to, ...(q.group !== undefined ? { group: q.group } : {}) }, diagnosesLimit);
  const groups = summarizeFindings({ ...input, period: { from, to } }).filter((g) => q.group === undefined || g.group === q.group);
  const locale = q.lang ?? "en";
  return { from, to, truncated: input.truncated, groups: groups.map((g) => ({ ...g, adviceText: g.advice.map((a) => describeAdvice(a, { locale })) })) };
}
