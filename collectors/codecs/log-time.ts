/**
 * Timestamps of log lines that carry no zone: `2026-11-30 12:00:01.204` (logback, 5.x), `2026-11-30 12:00:01,204`
 * (4.x, log4j) or `2026-11-30 12:00:01` (broker.log, seconds). Returns epoch ms and the precision the text had.
 */

export interface LogTime {
  ts: number;
  precision: "ms" | "s";
}

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?/;

export function parseUtcOffset(offset: string): number {
  if (offset === "Z" || offset === "z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset);
  if (!m) throw new Error(`UTC offset must look like +08:00 or Z, got "${offset}"`);
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return (m[1] === "-" ? -minutes : minutes) * 60_000;
}

/** Parses the timestamp at the start of `text`; undefined when there is none or it names an impossible date. */
export function parseLogTime(text: string, utcOffset: string): LogTime | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = frac === undefined ? 0 : Math.floor(Number(frac.padEnd(3, "0").slice(0, 3)));
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(local);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return undefined;
  }
  return { ts: local - parseUtcOffset(utcOffset), precision: frac === undefined ? "s" : "ms" };
}
