/**
 * Simulated time. The model runs on one true clock (epoch ms); every host writes its records through its own
 * skewed clock, and RocketMQ's patterns print GMT+8 whatever the host's zone.
 */

/** 2026-11-30 20:00:00 GMT+8, the date of the collectors' fixtures. */
export const SIM_EPOCH = Date.UTC(2026, 10, 30, 12, 0, 0);

const GMT8_MS = 8 * 3_600_000;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** `2026-11-30 20:00:01.204` (client 5.x pattern) or `2026-11-30 20:00:01` (broker pattern, whole seconds). */
export function gmt8(ts: number, precision: "ms" | "s"): string {
  const d = new Date(ts + GMT8_MS);
  const seconds = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return precision === "s" ? seconds : `${seconds}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** Epoch ms of the first day of ts's month in GMT+8: the origin of the time field in a RocketMQ UNIQ_KEY. */
export function monthStartGmt8(ts: number): number {
  const d = new Date(ts + GMT8_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - GMT8_MS;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** The first tick of a periodic task (ticks at phase + k·period) strictly after t. */
export function nextTick(phase: number, period: number, t: number): number {
  return phase + (Math.floor((t - phase) / period) + 1) * period;
}

/** The last tick of a periodic task at or before t. */
export function lastTick(phase: number, period: number, t: number): number {
  return phase + Math.floor((t - phase) / period) * period;
}
