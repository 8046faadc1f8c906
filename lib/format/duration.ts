import type { Locale } from "../i18n/locale.ts";

/**
 * The one way dupscope writes a duration: gaps, TTLs, windows and tick offsets on the pages, the diagnosis
 * sentences, alert conditions and the CLI. Takes milliseconds (convert seconds at the call site).
 *
 * Digits are cut, never rounded: a printed duration never exceeds the measured one, so it never climbs into a unit
 * it has not reached and never reads as long as a limit it stayed under (59.7 s is "59 s", not "60 s" or "1 min";
 * 999.6 ms is "999 ms", not "1 s"; 59 min 59.9 s is "59 min 59 s", not "1 h").
 *
 *   under 10 ms       ms to a tenth        0.4 ms, 7.2 ms
 *   under 1 s         whole ms             390 ms, 999 ms
 *   under 10 s        s to a tenth         1 s, 1.2 s, 9.9 s
 *   under 1 min       whole s              12 s, 59 s
 *   under 1 h         min and s            1 min, 1 min 30 s, 59 min 59 s
 *   under 1 d         h and min            1 h, 1 h 1 min
 *   from 1 d on       d and h              1 d, 1 d 2 h, 7 d
 *
 * A trailing ".0" and a zero smaller unit are left out ("1 s", "15 min"). A negative duration reads the same with
 * "−" in front; zero is "0 ms"; null (and NaN or an infinity) is "?". zh-CN writes the same numbers with
 * 毫秒, 秒, 分钟, 小时 and 天. (Durations are first rounded to the microsecond, far below what is shown.)
 */

const UNITS: Record<Locale, { ms: string; s: string; min: string; h: string; d: string }> = {
  en: { ms: "ms", s: "s", min: "min", h: "h", d: "d" },
  "zh-CN": { ms: "毫秒", s: "秒", min: "分钟", h: "小时", d: "天" },
};

// In microseconds: the duration is first rounded to the µs, which only takes away binary noise (2.3 s × 1000 is
// 2299.9999999999995 ms), and every cut after that is exact integer arithmetic.
const MS = 1000;
const SECOND = 1000 * MS;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `tenths` tenths as "12.3", or "12" when the tenth is zero. */
const tenthsText = (tenths: number) => (tenths % 10 === 0 ? String(tenths / 10) : `${Math.floor(tenths / 10)}.${tenths % 10}`);

export function formatDuration(ms: number | null, locale: Locale = "en"): string {
  if (ms === null || !Number.isFinite(ms)) return "?";
  const u = UNITS[locale];
  const sign = ms < 0 ? "−" : "";
  const us = Math.round(Math.abs(ms) * 1000);
  const cut = (unit: number) => Math.floor(us / unit);
  const one = (n: string | number, unit: string) => `${sign}${n} ${unit}`;
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => (small === 0 ? one(big, bigUnit) : `${one(big, bigUnit)} ${small} ${smallUnit}`);
  if (us < 10 * MS) return one(tenthsText(cut(MS / 10)), u.ms);
  if (us < SECOND) return one(cut(MS), u.ms);
  if (us < 10 * SECOND) return one(tenthsText(cut(SECOND / 10)), u.s);
  if (us < MINUTE) return one(cut(SECOND), u.s);
  if (us < HOUR) {
    const s = cut(SECOND);
    return two(Math.floor(s / 60), u.min, s % 60, u.s);
  }
  if (us < DAY) {
    const min = cut(MINUTE);
    return two(Math.floor(min / 60), u.h, min % 60, u.min);
  }
  const h = cut(HOUR);
  return two(Math.floor(h / 24), u.d, h % 24, u.h);
}
