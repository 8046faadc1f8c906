/** Tick and tooltip text for epoch-ms axes, in UTC like every time the UI shows. */
export function timeTick(spanMs: number): (ts: number) => string {
  const withDate = spanMs > 24 * 3_600_000;
  return (ts) => {
    const iso = new Date(ts).toISOString();
    return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
  };
}

export function timeLabel(ts: number): string {
  return `${new Date(ts).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Shared look of axes and grids: theme colors through CSS variables, so dark mode needs nothing else. */
export const AXIS = { stroke: "var(--border)", tick: { fill: "var(--muted)", fontSize: 12 } } as const;
export const TOOLTIP_STYLE = { contentStyle: { background: "var(--bg)", border: "1px solid var(--border)", color: "var(--fg)" }, labelStyle: { color: "var(--fg)" } } as const;
