import type { NormalizedEvent } from "../events/model.ts";
import { contextScope, fromScopeSources, otherMessageKeys, type ContextScope } from "./scope.ts";

/**
 * contextOf (scope.ts) for many keys over one list of candidates, as the diagnosis worker and the key lookups read
 * them: a batch's keys lie seconds apart and their windows are minutes wide, so most of them read the same stretch
 * of the same groups' lines. Filtering every candidate for every key made a worker step cost keys × candidates (a
 * busy group's 400 rebalance lines, for each of 1,000 keys); here each distinct (groups, hosts, stretch) is filtered
 * once and its list is shared, read-only, by every key that has it. Lines naming keys (otherMessageKeys) are the only
 * part that differs between such keys, and they are found through an index by key. The answers are contextOf's,
 * element for element and in the same order (tests/unit/diagnosis/batch-context.test.ts).
 */
export class BatchContext {
  private readonly ts: Float64Array;
  private readonly ids: Set<string>;
  /** Candidates' positions by a key their line names (only lines that otherMessageKeys reads). */
  private readonly naming = new Map<string, number[]>();
  private readonly shared = new Map<string, { positions: number[]; events: readonly NormalizedEvent[] }>();

  /** `candidates` in time order (by ts, ascending). */
  constructor(private readonly candidates: readonly NormalizedEvent[]) {
    this.ts = Float64Array.from(candidates, (e) => e.ts);
    for (let i = 1; i < this.ts.length; i++) if (this.ts[i]! < this.ts[i - 1]!) throw new Error("BatchContext: candidates must be in time order");
    this.ids = new Set(candidates.map((e) => e.id));
    candidates.forEach((e, i) => {
      for (const key of otherMessageKeys(e) ?? []) {
        const list = this.naming.get(key);
        if (list === undefined) this.naming.set(key, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
    });
  }

  /**
   * The context of a key with these events, as contextOf(keyEvents, candidates) answers it; `scope` is theirs, when
   * the caller has it already. Do not modify the answer: keys share it.
   */
  of(keyEvents: readonly NormalizedEvent[], scope: ContextScope | undefined = contextScope(keyEvents)): readonly NormalizedEvent[] {
    if (!scope) return [];
    const at = (test: (ts: number) => boolean) => firstIndex(this.ts.length, (i) => test(this.ts[i]!));
    const ranges = scope.windows.map((w) => [at((ts) => ts >= w.from), at((ts) => ts > w.to)] as const).filter(([lo, hi]) => lo < hi);
    const signature = JSON.stringify([scope.groups, scope.hosts, ranges]);
    let base = this.shared.get(signature);
    if (base === undefined) {
      const positions: number[] = [];
      for (const [lo, hi] of ranges) {
        for (let i = lo; i < hi; i++) {
          const e = this.candidates[i]!;
          if (e.bizKey === null && otherMessageKeys(e) === null && fromScopeSources(e, scope)) positions.push(i);
        }
      }
      base = { positions, events: positions.map((i) => this.candidates[i]!) };
      this.shared.set(signature, base);
    }
    const within = (i: number) => ranges.some(([lo, hi]) => i >= lo && i < hi);
    const naming = scope.bizKeys.flatMap((k) => this.naming.get(k) ?? []).filter((i) => within(i) && this.candidates[i]!.bizKey === null && fromScopeSources(this.candidates[i]!, scope));
    const own = keyEvents.filter((e) => this.ids.has(e.id)).map((e) => e.id);
    if (naming.length === 0 && own.length === 0) return base.events;
    const skip = new Set(own);
    return [...new Set([...base.positions, ...naming])]
      .sort((a, b) => a - b)
      .map((i) => this.candidates[i]!)
      .filter((e) => !skip.has(e.id));
  }
}

/** The first index in [0, length) from which `test` holds, given that it holds from some index on (binary search). */
export function firstIndex(length: number, test: (i: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
