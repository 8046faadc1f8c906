import type { NormalizedEvent } from "../events/model.ts";

/**
 * Which context events the key page and the key API list. A key inside a rebalance storm has thousands of lines
 * around it (6,000 on the 10M bench store: 20 MB of HTML, a second to serve, and nothing an engineer would read),
 * so they list every line the evidence cites plus the ones nearest in time to the key's own events, up to a
 * limit, in time order; the API lists all of them when asked (`?context=all`).
 */

export const CONTEXT_ROWS_SHOWN = 200;

export interface ContextRows {
  shown: NormalizedEvent[];
  total: number;
}

function distanceTo(sortedTs: readonly number[], ts: number): number {
  let lo = 0;
  let hi = sortedTs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sortedTs[mid]! < ts) lo = mid + 1;
    else hi = mid;
  }
  const after = lo < sortedTs.length ? sortedTs[lo]! - ts : Infinity;
  const before = lo > 0 ? ts - sortedTs[lo - 1]! : Infinity;
  return Math.min(after, before);
}

export function contextRows(context: readonly NormalizedEvent[], own: readonly NormalizedEvent[], cited: ReadonlySet<string>, limit = CONTEXT_ROWS_SHOWN): ContextRows {
  if (context.length <= limit) return { shown: [...context], total: context.length };
  const ownTs = own.map((e) => e.ts).sort((a, b) => a - b);
  const citedRows = context.filter((e) => cited.has(e.id));
  const nearest = context
    .filter((e) => !cited.has(e.id))
    .map((e, i) => ({ e, i, d: distanceTo(ownTs, e.ts) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, Math.max(0, limit - citedRows.length))
    .map((x) => x.e);
  const keep = new Set([...citedRows, ...nearest]);
  return { shown: context.filter((e) => keep.has(e)), total: context.length };
}
