import type { Locale } from "../diagnosis/messages.ts";

/**
 * A duration as the UI writes it (gaps, tick offsets, TTLs): ms under a second, one decimal under ten seconds,
 * then whole units. The same steps as the diagnosis sentences in lib/diagnosis/messages.ts, so a gap reads the
 * same on the timeline as in the verdict next to it.
 */

const UNITS: Record<Locale, { ms: string; s: string; min: string; h: string; d: string }> = {
  en: { ms: "ms", s: "s", min: "min", h: "h", d: "d" },
  "zh-CN": { ms: "毫秒", s: "秒", min: "分", h: "小时", d: "天" },
};

export function formatDuration(ms: number, locale: Locale = "en"): string {
  const u = UNITS[locale];
  const sign = ms < 0 ? "−" : "";
  const abs = Math.abs(ms);
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) => (small === 0 ? `${sign}${big} ${bigUnit}` : `${sign}${big} ${bigUnit} ${small} ${smallUnit}`);
  // Each step rounds first and moves up a unit when rounding reaches it: 59.7 s reads "1 min", not "60 s".
  if (Math.round(abs) < 1000) return `${sign}${Math.round(abs)} ${u.ms}`;
  if (abs < 9950) return `${sign}${(abs / 1000).toFixed(1).replace(/\.0$/, "")} ${u.s}`;
  const s = Math.round(abs / 1000);
  if (s < 60) return `${sign}${s} ${u.s}`;
  if (s < 3600) return pair(Math.floor(s / 60), u.min, s % 60, u.s);
  const min = Math.round(abs / 60_000);
  if (min < 1440) return pair(Math.floor(min / 60), u.h, min % 60, u.min);
  const h = Math.round(abs / 3_600_000);
  return pair(Math.floor(h / 24), u.d, h % 24, u.h);
}
