import type { TsPrecision } from "../events/model.ts";

/**
 * The one way dupscope writes an instant: the pages' tables, tooltips and axes, the diagnosis sentences and the
 * CLI. ISO order with a space ("2026-11-30 12:00:01.204"), shown at a UTC offset (UTC unless asked) and cut, never
 * rounded, to a precision: a broker log stamped to the second must not look like it had milliseconds, and
 * 12:00:59.700 shown to the minute is 12:00, not 12:01.
 */

export interface TimeFormat {
  /** Offset of the time shown, in minutes east of UTC (480 for GMT+8). Default 0: UTC. */
  utcOffsetMinutes?: number;
  /** Down to the millisecond (default), the second (the source's own precision, or a table's) or the minute. */
  precision?: TsPrecision | "min";
  /** The date in front: the full date (default), month and day only (an axis within a year), or none. */
  date?: "full" | "short" | "none";
  /** Say the offset after the time: " UTC", " UTC+8", " UTC-3:30". Default false (a column or sentence says it). */
  zone?: boolean;
}

/** The offset as a reader writes it: "UTC", "UTC+8", "UTC+5:30", "UTC-3". */
export function formatUtcOffset(minutes: number): string {
  if (minutes === 0) return "UTC";
  const abs = Math.abs(minutes);
  const m = abs % 60;
  return `UTC${minutes < 0 ? "-" : "+"}${Math.floor(abs / 60)}${m === 0 ? "" : `:${String(m).padStart(2, "0")}`}`;
}

export function formatTime(ts: number, o: TimeFormat = {}): string {
  const offset = o.utcOffsetMinutes ?? 0;
  // toISOString cuts to the millisecond and the slices cut further, so nothing rounds up.
  const iso = new Date(Math.floor(ts) + offset * 60_000).toISOString();
  const date = o.date === "none" ? "" : o.date === "short" ? `${iso.slice(5, 10)} ` : `${iso.slice(0, 10)} `;
  const precision = o.precision ?? "ms";
  const time = iso.slice(11, precision === "min" ? 16 : precision === "s" ? 19 : 23);
  return `${date}${time}${o.zone ? ` ${formatUtcOffset(offset)}` : ""}`;
}
