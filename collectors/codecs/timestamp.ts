import { MAX_TS, MIN_TS } from "../../lib/events/model.ts";
import { parseUtcOffset } from "./log-time.ts";

/**
 * Finds the timestamp a logging layout put somewhere in a line's prefix, in any of the forms seen in the field:
 *
 *   2026-11-30 20:00:01,204 · 2026-11-30T20:00:01.204+08:00 · [2026-11-30 20:00:01,204] · 2026-11-30 20:00:01
 *   2026-11-30 20:00:01:204 (`HH:mm:ss:SSS` patterns)
 *   2026/11/30 20:00:01.204 (Go's log, glog-like layouts)
 *   30-Nov-2026::20:00:01 (RabbitMQ 3.6/3.7 lager reports)
 *   2026-Nov-30 20:00:01.401570 (the RocketMQ C++ client's boost-log layout)
 *   26/11/30 20:00:01 · 26-11-30 20:00:01.204 (two-digit years: Spark's log4j template, `%d{yy-MM-dd …}` patterns)
 *   Nov 30 20:00:01 (syslog, no year) · 20:00:01.204 (time-only layouts: the date comes from the caller)
 *
 * Zones written on the line win over the caller's default. A date-less stamp takes its date from `date`
 * (`--date`, the file's mtime); without one it is reported as needing it. A two-digit-year date may be year first
 * (`yy-MM-dd`, `yy/MM/dd`) or last (`dd-MM-yy`, `dd/MM/yy`, `MM/dd/yy`): layouts of each order are in use, and
 * `22/02/28` is a real date either way. Of the readings that are real dates, the one nearest `date` wins, preferring
 * those not after it (a file is modified after its lines are written; a request arrives after them); without a
 * `date`, year first.
 */

export interface FoundTime {
  ts: number;
  precision: "ms" | "s";
  /** Where it was found in the text, and how long the stamp is. */
  index: number;
  length: number;
  /** The stamp as printed. */
  text: string;
  zoned: boolean;
  /** Where the date came from when the line had none: the caller's date, or the year the caller's date gives. */
  dateFrom?: "context";
  /**
   * A line with no time at all took one: the last time an earlier line of the same input printed, or the input's own
   * time (the file's modification time) when no line before it had one.
   */
  timeFrom?: "previous_line" | "input";
}

export type TimeLookup = { ok: true; time: FoundTime } | { ok: false; reason: string; text: string } | undefined;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MON = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const ZONE = "(Z|[+-]\\d{2}(?::?\\d{2})?(?![\\d:]))?";
/**
 * Fractions of a second: `.204`, `,204`, and `:204` (log4j2 and loguru patterns written `HH:mm:ss:SSS`), the last
 * only as three digits that no digit or colon follows. Two groups: the first form's digits, then the colon form's.
 */
const FRAC = "(?:[.,](\\d{1,9})|:(\\d{3})(?![\\d:]))?";

interface CalendarDate {
  y: number;
  mo: number;
  d: number;
}

interface Form {
  pattern: RegExp;
  read(m: RegExpExecArray): {
    y?: number;
    mo: number;
    d?: number;
    /** Dates a two-digit-year stamp may name, in order of preference when nothing else decides. */
    readings?: CalendarDate[];
    h: number;
    mi: number;
    s: number;
    frac?: string;
    zone?: string;
  };
  hasDate: boolean;
}

const month = (name: string) => MONTHS.indexOf(name.toLowerCase()) + 1;

// Each pattern refuses a digit right before it, so a stamp is never read from the middle of a number.
const FORMS: Form[] = [
  {
    pattern: new RegExp(`(?<![\\d.])(\\d{4})-(\\d{2})-(\\d{2})[ T](\\d{2}):(\\d{2}):(\\d{2})${FRAC}${ZONE}`, "g"),
    read: (m) => ({ y: +m[1]!, mo: +m[2]!, d: +m[3]!, h: +m[4]!, mi: +m[5]!, s: +m[6]!, frac: m[7] ?? m[8], zone: m[9] }),
    hasDate: true,
  },
  {
    pattern: new RegExp(`(?<![\\d.])(\\d{4})/(\\d{2})/(\\d{2})[ T-](\\d{2}):(\\d{2}):(\\d{2})${FRAC}${ZONE}`, "g"),
    read: (m) => ({ y: +m[1]!, mo: +m[2]!, d: +m[3]!, h: +m[4]!, mi: +m[5]!, s: +m[6]!, frac: m[7] ?? m[8], zone: m[9] }),
    hasDate: true,
  },
  {
    pattern: new RegExp(`(?<![\\d.:/-])(\\d{2})([-/])(\\d{2})\\2(\\d{2})[ T](\\d{2}):(\\d{2}):(\\d{2})${FRAC}${ZONE}`, "g"),
    read: (m) => ({ mo: 0, readings: twoDigitYearReadings(+m[1]!, +m[3]!, +m[4]!, m[2]!), h: +m[5]!, mi: +m[6]!, s: +m[7]!, frac: m[8] ?? m[9], zone: m[10] }),
    hasDate: true,
  },
  {
    pattern: new RegExp(`(?<!\\d)(\\d{1,2})-${MON}-(\\d{4})::(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?`, "gi"),
    read: (m) => ({ y: +m[3]!, mo: month(m[2]!), d: +m[1]!, h: +m[4]!, mi: +m[5]!, s: +m[6]!, frac: m[7] }),
    hasDate: true,
  },
  {
    pattern: new RegExp(`(?<!\\d)(\\d{4})-${MON}-(\\d{1,2})[ T](\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?`, "gi"),
    read: (m) => ({ y: +m[1]!, mo: month(m[2]!), d: +m[3]!, h: +m[4]!, mi: +m[5]!, s: +m[6]!, frac: m[7] }),
    hasDate: true,
  },
  {
    // dd/MMM/yyyy:HH:mm:ss and dd-MMM-yyyy HH:mm:ss (log4j's DATE layout, Apache-style exports)
    pattern: new RegExp(`(?<!\\d)(\\d{1,2})[-/ ]${MON}[-/ ](\\d{4})[: ](\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?`, "gi"),
    read: (m) => ({ y: +m[3]!, mo: month(m[2]!), d: +m[1]!, h: +m[4]!, mi: +m[5]!, s: +m[6]!, frac: m[7] }),
    hasDate: true,
  },
  {
    // syslog (RFC 3164), journalctl's short format: no year
    pattern: new RegExp(`(?<![\\w])${MON} {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?`, "gi"),
    read: (m) => ({ mo: month(m[1]!), d: +m[2]!, h: +m[3]!, mi: +m[4]!, s: +m[5]!, frac: m[6] }),
    hasDate: false,
  },
  {
    pattern: /(?<![\d.:/-])(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{3,9})|:(\d{3}))(?![\d:])/g,
    read: (m) => ({ mo: 0, h: +m[1]!, mi: +m[2]!, s: +m[3]!, frac: m[4] ?? m[5] }),
    hasDate: false,
  },
  {
    pattern: /(?<![\d.:/-])(\d{2}):(\d{2}):(\d{2})(?![\d:.,])/g,
    read: (m) => ({ mo: 0, h: +m[1]!, mi: +m[2]!, s: +m[3]! }),
    hasDate: false,
  },
];

/** Year first, then day first; a slash also reads month first (the US order). */
function twoDigitYearReadings(a: number, b: number, c: number, separator: string): CalendarDate[] {
  const readings = [
    { y: 2000 + a, mo: b, d: c },
    { y: 2000 + c, mo: b, d: a },
  ];
  if (separator === "/") readings.push({ y: 2000 + c, mo: a, d: b });
  return readings;
}

const dayOf = (date: CalendarDate) => Date.UTC(date.y, date.mo - 1, date.d);

function isRealDate(date: CalendarDate): boolean {
  const check = new Date(dayOf(date));
  return check.getUTCMonth() === date.mo - 1 && check.getUTCDate() === date.d;
}

/** The reading nearest the caller's date, preferring those not after it; without a date, the first real one. */
function pickReading(readings: CalendarDate[], context: CalendarDate | undefined): CalendarDate | undefined {
  const real = readings.filter(isRealDate);
  if (context === undefined || real.length <= 1) return real[0];
  const ref = dayOf(context);
  const notAfter = real.filter((r) => dayOf(r) <= ref);
  const pool = notAfter.length > 0 ? notAfter : real;
  return pool.reduce((best, r) => (Math.abs(dayOf(r) - ref) < Math.abs(dayOf(best) - ref) ? r : best));
}

interface Candidate {
  form: Form;
  m: RegExpExecArray;
}

function earliest(text: string, forms: Form[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const form of forms) {
    form.pattern.lastIndex = 0;
    const m = form.pattern.exec(text);
    if (m && (best === undefined || m.index < best.m.index)) best = { form, m };
  }
  return best;
}

/** Calendar date of the caller's `date` (`2026-11-30`), or undefined. */
function contextDate(date: string | undefined): { y: number; mo: number; d: number } | undefined {
  const m = date === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  return m ? { y: +m[1]!, mo: +m[2]!, d: +m[3]! } : undefined;
}

function fractionMs(frac: string | undefined): number {
  return frac === undefined ? 0 : Number(frac.padEnd(3, "0").slice(0, 3));
}

/**
 * The first timestamp in `text` (a line's prefix): a stamp with a date is preferred to a date-less one anywhere
 * before it only when no dated stamp exists.
 */
export function findTimestamp(text: string, options: { utcOffset: string; date?: string }): TimeLookup {
  const dated = earliest(text, FORMS.filter((f) => f.hasDate));
  const found = dated ?? earliest(text, FORMS.filter((f) => !f.hasDate));
  if (!found) return undefined;
  const stamp = found.m[0];
  const f = found.form.read(found.m);
  let { y, mo, d } = f;
  let dateFrom: "context" | undefined;
  if (f.readings !== undefined) {
    const picked = pickReading(f.readings, contextDate(options.date));
    if (picked === undefined) return { ok: false, text: stamp, reason: `impossible timestamp "${stamp}"` };
    ({ y, mo, d } = picked);
  } else if (!found.form.hasDate) {
    const ctxDate = contextDate(options.date);
    if (!ctxDate) return { ok: false, text: stamp, reason: `the line's time "${stamp}" has no date: give one with --date (or ?date=)` };
    dateFrom = "context";
    y = ctxDate.y;
    if (mo === 0) ({ mo, d } = ctxDate);
  }
  let offsetMs: number;
  try {
    offsetMs = parseUtcOffset(f.zone ?? options.utcOffset);
  } catch (error) {
    return { ok: false, text: stamp, reason: (error as Error).message };
  }
  if (!isRealDate({ y: y!, mo, d: d! }) || f.h > 23 || f.mi > 59 || f.s > 59) {
    return { ok: false, text: stamp, reason: `impossible timestamp "${stamp}"` };
  }
  const ts = Date.UTC(y!, mo - 1, d!, f.h, f.mi, f.s, fractionMs(f.frac)) - offsetMs;
  if (ts < MIN_TS || ts >= MAX_TS) return { ok: false, text: stamp, reason: `timestamp "${stamp}" is outside 2000-01-01..2100-01-01` };
  return {
    ok: true,
    time: {
      ts,
      precision: f.frac === undefined ? "s" : "ms",
      index: found.m.index,
      length: stamp.length,
      text: stamp,
      zoned: f.zone !== undefined,
      ...(dateFrom ? { dateFrom } : {}),
    },
  };
}

/** Epoch seconds or milliseconds (JSON encoders, librdkafka's `%7|1622554781.123|`) to a FoundTime. */
export function epochTime(value: number, text: string): TimeLookup {
  const ms = value > 1e11 ? value : value * 1000;
  if (!Number.isFinite(ms) || ms < MIN_TS || ms >= MAX_TS) return { ok: false, text, reason: `timestamp "${text}" is outside 2000-01-01..2100-01-01` };
  const precision = Number.isInteger(value) && value < 1e11 ? "s" : "ms";
  return { ok: true, time: { ts: Math.floor(ms), precision, index: 0, length: text.length, text, zoned: true } };
}

/** The time of a line that prints none: the last time a line before it printed, else the input's own time. */
export function borrowedTime(last: FoundTime | undefined, inputTime: number | undefined): FoundTime | undefined {
  if (last) return { ...last, index: -1, length: 0, timeFrom: "previous_line" };
  if (inputTime !== undefined) return { ts: inputTime, precision: "s", index: -1, length: 0, text: "", zoned: true, timeFrom: "input" };
  return undefined;
}
