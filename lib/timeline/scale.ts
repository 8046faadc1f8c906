/**
 * Timeline geometry, apart from any drawing: times map to [0, 1] across the track (like Jaeger's viewed-bounds
 * function), with a margin so the first and last marks are not cut by the edge, and ticks fall on round offsets
 * from the first event, which is what an engineer reads ("the retry came 10 s later").
 *
 * A key's events come in bursts: a consumption and its dedup lines within milliseconds, the redelivery seconds,
 * minutes or hours later. `focusScale` cuts the long empty stretches out (a break of fixed width, labelled with
 * the time it skips), so each burst keeps room enough to tell its marks apart.
 */

export interface Tick {
  /** Offset from the timeline's start, in ms. */
  offsetMs: number;
  position: number;
  /** Where a burst after a break begins (focusScale), rather than a round offset. */
  burst?: boolean;
}

export interface Break {
  position: number;
  /** Empty time the break stands for. */
  skippedMs: number;
}

export interface TimeScale {
  /** The first and last time shown (the data's bounds, not the margins). */
  start: number;
  end: number;
  position(ts: number): number;
  ticks(maxTicks?: number): Tick[];
  breaks: Break[];
}

/** Round tick steps in ms: 1-2-5 up to a second, then clock-like steps. */
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
  7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** The smallest round step that keeps the ticks over `spanMs` at or under `maxTicks`. */
export function tickStep(spanMs: number, maxTicks: number): number {
  const wanted = spanMs / Math.max(1, maxTicks);
  return STEPS.find((s) => s >= wanted) ?? Math.ceil(wanted / 86_400_000) * 86_400_000;
}

/**
 * Span shown at least, so a single instant sits in the middle of some room. Small: a story of concurrent
 * consumption or a lost ACK lasts a few hundred ms, and its marks must not crowd into a corner of a second.
 */
const MIN_SPAN_MS = 100;
const MARGIN = 0.03;

function roundTicks(start: number, from: number, to: number, step: number, position: (ts: number) => number): Tick[] {
  const ticks: Tick[] = [];
  for (let offset = Math.ceil((from - start) / step) * step; start + offset <= to; offset += step) {
    if (offset >= 0) ticks.push({ offsetMs: offset, position: position(start + offset) });
  }
  return ticks;
}

export function timeScale(start: number, end: number, marginRatio = MARGIN): TimeScale {
  const span = Math.max(end - start, 0);
  const shown = Math.max(span, MIN_SPAN_MS);
  const viewStart = start - (shown - span) / 2 - shown * marginRatio;
  const viewSpan = shown * (1 + 2 * marginRatio);
  const position = (ts: number) => Math.min(1, Math.max(0, (ts - viewStart) / viewSpan));
  return {
    start,
    end,
    position,
    ticks: (maxTicks = 6) => roundTicks(start, start, viewStart + viewSpan, tickStep(shown, maxTicks), position),
    breaks: [],
  };
}

/** Empty stretches longer than this share of the whole span (and than MIN_BREAK_MS) are cut out. */
const BREAK_SHARE = 0.25;
const MIN_BREAK_MS = 2000;
/** Track width of one break. */
const BREAK_WIDTH = 0.05;
/** A burst gets at least this share of the widest burst's room, so a lone mark is not squeezed to nothing. */
const MIN_BURST_SHARE = 0.3;

interface Burst {
  from: number;
  to: number;
  /** Time shown for the burst, centred on it. */
  shownFrom: number;
  shownTo: number;
  x0: number;
  x1: number;
}

export function focusScale(times: readonly number[]): TimeScale {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  if (sorted.length === 0) return timeScale(0, 0);
  const start = sorted[0]!;
  const end = sorted.at(-1)!;
  const threshold = Math.max(MIN_BREAK_MS, (end - start) * BREAK_SHARE);
  const groups: { from: number; to: number }[] = [];
  for (const t of sorted) {
    const last = groups.at(-1);
    if (last && t - last.to <= threshold) last.to = t;
    else groups.push({ from: t, to: t });
  }
  if (groups.length === 1) return timeScale(start, end);

  const widest = Math.max(...groups.map((g) => g.to - g.from), MIN_SPAN_MS);
  const weights = groups.map((g) => Math.max(g.to - g.from, widest * MIN_BURST_SHARE));
  const usable = 1 - 2 * MARGIN - (groups.length - 1) * BREAK_WIDTH;
  const total = weights.reduce((s, w) => s + w, 0);
  let x = MARGIN;
  const bursts: Burst[] = groups.map((g, i) => {
    const w = weights[i]!;
    const centre = (g.from + g.to) / 2;
    const burst = { ...g, shownFrom: centre - w / 2, shownTo: centre + w / 2, x0: x, x1: x + (usable * w) / total };
    x = burst.x1 + BREAK_WIDTH;
    return burst;
  });
  const first = bursts[0]!;
  const last = bursts.at(-1)!;
  const position = (ts: number): number => {
    if (ts <= first.shownFrom) return Math.max(0, first.x0 - ((first.shownFrom - ts) / (first.shownTo - first.shownFrom)) * (first.x1 - first.x0));
    for (const [i, b] of bursts.entries()) {
      if (ts <= b.shownTo) return b.x0 + ((ts - b.shownFrom) / (b.shownTo - b.shownFrom)) * (b.x1 - b.x0);
      const next = bursts[i + 1];
      // Inside a break: spread evenly over its width, so the function stays monotonic.
      if (next && ts < next.shownFrom) return b.x1 + ((ts - b.shownTo) / (next.shownFrom - b.shownTo)) * (next.x0 - b.x1);
    }
    return Math.min(1, last.x1 + ((ts - last.shownTo) / (last.shownTo - last.shownFrom)) * (last.x1 - last.x0));
  };
  return {
    start,
    end,
    position,
    ticks(maxTicks = 6) {
      // Round offsets across the first burst; each later burst is labelled once, where it begins.
      const room = Math.max(1, Math.round((maxTicks * (first.x1 - first.x0)) / usable));
      return [
        ...roundTicks(start, first.shownFrom, first.shownTo, tickStep(first.shownTo - first.shownFrom, room), position),
        ...bursts.slice(1).map((b) => ({ offsetMs: b.from - start, position: position(b.from), burst: true })),
      ];
    },
    breaks: bursts.slice(1).map((b, i) => ({ position: (bursts[i]!.x1 + b.x0) / 2, skippedMs: b.from - bursts[i]!.to })),
  };
}
