import type { SqlDriver } from "../../store/driver.ts";
import type { Labels } from "../labels.ts";
import type { GroupByLabel } from "../series.ts";

/** SQL the kinds' measurements share. */

/** Keys kept per firing: enough to start from, few enough for a chat message. */
export const MAX_KEYS = 20;

export type Row = Record<string, unknown>;
export const num = (row: Row | undefined, column: string) => Number(row?.[column] ?? 0);
export const keysOf = (row: Row | undefined) => ((row?.keys as string[] | null) ?? []).slice(0, MAX_KEYS);

/** The column of verdicts each label reads. */
const VERDICT_COLUMNS: Partial<Record<GroupByLabel, string>> = { group: "group_name", topic: "topic", cause: "cause", defect: "defect" };

/**
 * The SELECT list and GROUP BY of a split by `by` over columns named in `columns`. Without labels there is no
 * GROUP BY, so the one row comes back even when nothing matched (a count of 0); with labels only the label sets
 * that have rows come back, and the others measure as quiet.
 */
export function split(by: readonly GroupByLabel[], columns: Partial<Record<GroupByLabel, string>>): { select: string; groupBy: string } {
  const used = by.filter((label) => columns[label] !== undefined);
  return {
    select: used.map((label) => `${columns[label]} AS "${label}", `).join(""),
    groupBy: used.length > 0 ? ` GROUP BY ${used.map((label) => columns[label]).join(", ")}` : "",
  };
}

/** The label set of a row: the split's labels it has a value for, plus `fixed` ones (a rule's one group). */
export function labelsOf(row: Row, by: readonly GroupByLabel[], fixed: Labels = {}): Labels {
  const labels: Labels = {};
  for (const label of by) {
    const value = fixed[label] ?? row[label];
    if (value !== null && value !== undefined && value !== "") labels[label] = String(value);
  }
  return labels;
}

export type VerdictScope = { group?: string | undefined; topic?: string | undefined; windowSeconds: number };

/** Optional group/topic filters as SQL over verdicts, with their parameters appended to `params`. */
function verdictFilter(c: VerdictScope, params: unknown[]): string {
  let sql = "";
  if (c.group !== undefined) sql += ` AND group_name = $${params.push(c.group)}`;
  if (c.topic !== undefined) sql += ` AND topic = $${params.push(c.topic)}`;
  return sql;
}

/** Duplicates whose second delivery falls in the window, per label set, narrowed by `extra` SQL over `extraParams` ($2…). */
export async function verdictCounts(driver: SqlDriver, c: VerdictScope, by: readonly GroupByLabel[], now: number, extra = "", extraParams: unknown[] = []): Promise<Row[]> {
  const params: unknown[] = [now - c.windowSeconds * 1000, ...extraParams];
  const { select, groupBy } = split(by, VERDICT_COLUMNS);
  return driver.query<Row>(
    `SELECT ${select}count(*) AS n, (array_agg(DISTINCT biz_key))[1:${MAX_KEYS}] AS keys FROM verdicts
      WHERE second_ts >= $1${extra}${verdictFilter(c, params)}${groupBy}`,
    params,
  );
}
