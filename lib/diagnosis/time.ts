import type { TsPrecision } from "../events/model.ts";

/**
 * Clock tolerance. Events from different hosts are stamped by different clocks (±skew), and a broker log line
 * stamped `20:00:01` happened anywhere in `[20:00:01.000, 20:00:02.000)`. A placement test therefore widens the
 * window by the skew and the event's own precision, and reports when it needed either, so the evidence can say
 * that the conclusion rests on a coarse or skewed timestamp.
 */

export interface Stamped {
  ts: number;
  tsPrecision: TsPrecision;
}

export interface Placement {
  inside: boolean;
  /** The event has second precision: the order against millisecond events is only known to the second. */
  coarse: boolean;
  /** Inside only thanks to the clock-skew allowance. */
  tolerant: boolean;
}

/** How much later than its stamp a seconds-precision event may have happened. */
export const SECOND_SLACK_MS = 999;

function precisionSlackMs(precision: TsPrecision): number {
  return precision === "s" ? SECOND_SLACK_MS : 0;
}

/** Is `e` within [from, to], allowing `skewMs` either way and the event's own precision? */
export function placeWithin(e: Stamped, from: number, to: number, skewMs: number): Placement {
  const earliest = e.ts;
  const latest = e.ts + precisionSlackMs(e.tsPrecision);
  const strict = latest >= from && earliest <= to;
  const inside = latest >= from - skewMs && earliest <= to + skewMs;
  return { inside, coarse: inside && e.tsPrecision === "s", tolerant: inside && !strict };
}
