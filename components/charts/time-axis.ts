import { formatTime } from "@/lib/format/time.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Tick steps an engineer reads at a glance, each a whole number of the label's smallest unit and (below a day)
 * dividing the day, so ticks fall on the same clock times whatever the range's edges.
 */
const STEPS = [
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR,
  DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY, 91 * DAY, 364 * DAY,
];

/** Axis text size (AXIS below) and the average advance of a digit or colon in it, with a gap between labels. */
const FONT_PX = 12;
const CHAR_PX = 7.2;
const LABEL_GAP_PX = 14;

type Format = (ts: number) => string;

const dateOnly = (full: boolean): Format => (ts) => new Date(ts).toISOString().slice(full ? 0 : 5, 10);

/**
 * Label formats for a step, shortest first: a format must show the step's unit (seconds for a 30 s step, no time
 * at all for whole days), and the longer ones add the date for when the shorter repeat a label. Times alone name
 * a midnight by its date instead, as a clock on the wall would not: a 24-hour range's "00:00" between "21:00" and
 * "03:00" left the reader to guess which day the hours after it belong to.
 */
function formats(step: number): Format[] {
  if (step >= DAY) return [dateOnly(false), dateOnly(true)];
  const precision = step < MINUTE ? "s" : "min";
  const time: Format = (ts) => (ts % DAY === 0 ? dateOnly(false)(ts) : formatTime(ts, { precision, date: "none" }));
  return [time, ...(["short", "full"] as const).map((date) => (ts: number) => formatTime(ts, { precision, date }))];
}

export interface TimeTicks {
  ticks: number[];
  format: Format;
}

function ticksOf(from: number, to: number, step: number): number[] {
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** The first format that tells every tick apart; the last (full date) always does, ticks being whole units apart. */
function distinctFormat(ticks: readonly number[], step: number): { format: Format; widest: number } {
  const candidates = formats(step);
  for (const format of candidates) {
    const labels = ticks.map(format);
    if (new Set(labels).size === labels.length) return { format, widest: Math.max(0, ...labels.map((l) => l.length)) };
  }
  const format = candidates.at(-1)!;
  return { format, widest: Math.max(0, ...ticks.map((t) => format(t).length)) };
}

/** Width a time label takes on the axis, with its share of the gap to the next. */
export function timeLabelPx(text: string): number {
  return text.length * CHAR_PX + LABEL_GAP_PX;
}

/**
 * Ticks for an epoch-ms axis of `widthPx` from `from` to `to`: the smallest round step whose labels fit side by
 * side, labelled in the shortest format that never shows two ticks the same ("12:11 12:11" is what a 30 s step
 * printed to the minute gives). `roomPx` is the space the chart leaves beyond each end of the axis: a tick whose
 * centred label would stick out further is left off, so no label is cut by the chart's edge.
 */
export function timeTicks(from: number, to: number, widthPx: number, roomPx = 0): TimeTicks {
  const span = Math.max(0, to - from);
  const width = Math.max(1, widthPx);
  const px = (t: number) => (span === 0 ? width / 2 : ((t - from) / span) * width);
  const last = STEPS.at(-1)!;
  // Past the longest step, whole multiples of it, up to one that leaves a single tick in the range.
  const steps = [...STEPS, ...Array.from({ length: Math.ceil(span / last) }, (_, i) => (i + 2) * last)];
  const fits = (step: number) => {
    // A label is never narrower than "00:00"; steps closer than that are not worth formatting.
    if (span > 0 && (step / span) * width < timeLabelPx("00:00")) return null;
    const all = ticksOf(from, to, step);
    const { widest } = distinctFormat(all, step);
    return all.length < 2 || (step / span) * width >= timeLabelPx("0".repeat(widest)) ? all : null;
  };
  let step = steps.at(-1)!;
  let all = ticksOf(from, to, step);
  for (const s of steps) {
    const ticks = fits(s);
    if (ticks) {
      [step, all] = [s, ticks];
      break;
    }
  }
  const half = (distinctFormat(all, step).widest * CHAR_PX) / 2;
  const ticks = all.filter((t) => px(t) - half >= -roomPx && px(t) + half <= width + roomPx);
  // Chosen again for the ticks kept: a day's two midnights need dates, its inner hours alone do not.
  return { ticks, format: distinctFormat(ticks, step).format };
}

export function timeLabel(ts: number): string {
  return formatTime(ts, { precision: "min", zone: true });
}

/** Shared look of axes and grids: theme colors through CSS variables, so dark mode needs nothing else. */
export const AXIS = { stroke: "var(--border)", tick: { fill: "var(--muted)", fontSize: FONT_PX } } as const;
