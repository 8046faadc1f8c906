import type { NormalizedEvent } from "../events/model.ts";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS } from "../diagnosis/scope.ts";

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

/** A context line placed against the key: one of the key's own events and how far the line is from it (negative: before). */
export interface ContextAnchor {
  event: NormalizedEvent;
  offsetMs: number;
}

/**
 * The key's event a context line was read around: of those whose window (scope.ts) holds it, the nearest. A key's
 * events can lie hours apart, and so can its context; against the verdict alone a line looks hours away, against
 * the event it was read for it is minutes away, as the page's caption says. Undefined for a line in no window.
 */
export function contextAnchor(ts: number, own: readonly NormalizedEvent[]): ContextAnchor | undefined {
  let best: ContextAnchor | undefined;
  for (const event of own) {
    const offsetMs = ts - event.ts;
    if (offsetMs < -CONTEXT_BEFORE_MS || offsetMs > CONTEXT_AFTER_MS) continue;
    if (!best || Math.abs(offsetMs) < Math.abs(best.offsetMs)) best = { event, offsetMs };
  }
  return best;
}
