import { formatTime } from "@/lib/format/time.ts";

/** Tick and tooltip text for epoch-ms axes, in UTC like every time the UI shows. */
export function timeTick(spanMs: number): (ts: number) => string {
  const date = spanMs > 24 * 3_600_000 ? "short" : "none";
  return (ts) => formatTime(ts, { precision: "min", date });
}

export function timeLabel(ts: number): string {
  return formatTime(ts, { precision: "min", zone: true });
}

/** Shared look of axes and grids: theme colors through CSS variables, so dark mode needs nothing else. */
export const AXIS = { stroke: "var(--border)", tick: { fill: "var(--muted)", fontSize: 12 } } as const;
export const TOOLTIP_STYLE = { contentStyle: { background: "var(--bg)", border: "1px solid var(--border)", color: "var(--fg)" }, labelStyle: { color: "var(--fg)" } } as const;
