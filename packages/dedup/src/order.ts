import type { DedupDecision } from "./record.ts";

/**
 * Which decision may follow which within one delivery: the table "One delivery, in order" of docs/dedup-log.md,
 * which the Java emitter (DedupLog.Delivery) enforces too. It is the way dupscope's diagnosis cuts a dedup log into
 * deliveries: a `hit`, `executed` or `failed` ends one, except that a later step may fail after the commit
 * (`executed`, `failed`) and markers are released after a failure, one `released` line per layer. A line the table
 * does not allow would be read as the start of a delivery nobody made, so it is refused before it is written.
 */
const NEXT: Readonly<Record<DedupDecision | "first", readonly DedupDecision[]>> = {
  first: ["pass", "hit", "executed", "failed"],
  pass: ["pass", "hit", "executed", "failed"],
  hit: [],
  executed: ["failed"],
  failed: ["released"],
  released: ["released"],
};

const WHY: Readonly<Record<DedupDecision | "first", string>> = {
  first: "a marker is released after the effect failed: write failed first",
  pass: "a marker is released after the effect failed: write failed first",
  hit: "a hit ends the delivery: the message was skipped, and a further line would read as another delivery",
  executed: "after executed only failed may follow (a later step failed after the commit)",
  failed: "after failed only released may follow (the markers removed so that the retry can pass)",
  released: "after released only the release of another marker may follow",
};

/** Why `next` may not follow `previous` (null: the delivery's first line) in one delivery, or null when it may. */
export function orderProblem(previous: DedupDecision | null, next: DedupDecision): string | null {
  const after = previous ?? "first";
  if (NEXT[after].includes(next)) return null;
  const where = previous === null ? "as the first line of a delivery" : `after "${previous}"`;
  return `"${next}" may not come ${where}: ${WHY[after]}`;
}
