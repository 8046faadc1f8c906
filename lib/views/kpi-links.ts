import type { Totals } from "../queries/overview.ts";
import { filterQuery, type Filters } from "../queries/filters.ts";

/**
 * Where each of the overview's counts opens, under the overview's own filters (range, group, topic, cause), so the
 * list holds what the count counted: keys per group, the duplicates (all, or caught or leaked only) and the keys
 * that lost a message. Pure: filters in, paths out.
 */
export type KpiName = keyof Omit<Totals, "unknown">;

export function kpiLinks(f: Filters): Record<KpiName, string> {
  const base = filterQuery(f);
  const withOutcome = (outcome: string) => {
    const params = new URLSearchParams(base.slice(1));
    params.set("outcome", outcome);
    return `/duplicates?${params}`;
  };
  return {
    keys: `/groups${base}`,
    keysWithDuplicates: `/duplicates${base}`,
    duplicates: `/duplicates${base}`,
    caught: withOutcome("caught"),
    leaked: withOutcome("leaked"),
    // Keys have no cause: the count of lost messages is not narrowed by one, and neither is their list.
    lost: `/lost${filterQuery(f, { cause: null })}`,
  };
}
