"use client";

import { useMemo } from "react";
import { useChartWidth, usePlotArea, XAxis, YAxis } from "recharts";
import { categoryAxisWidth, elide, estimateWidth, type Measure } from "./labels.ts";
import { AXIS, timeTicks } from "./time-axis.ts";
import { TOOLTIP_PX, tooltipRows } from "./tooltip-rows.ts";

const FONT_PX = AXIS.tick.fontSize;
let canvas: CanvasRenderingContext2D | null | undefined;

/** Width of axis text in the page's own font (a canvas measures it); the estimate where there is no page. */
export function measureAxisText(text: string): number {
  if (typeof document === "undefined") return estimateWidth(FONT_PX)(text);
  if (canvas === undefined) {
    canvas = document.createElement("canvas").getContext("2d");
    if (canvas) canvas.font = `${FONT_PX}px ${getComputedStyle(document.body).fontFamily}`;
  }
  return canvas ? canvas.measureText(text).width : estimateWidth(FONT_PX)(text);
}

/**
 * An epoch-ms x axis over [from, to] whose ticks come from the plot's width (timeTicks): round steps, never two
 * labels alike, none cut by the edge. `roomPx` is what the chart leaves beyond the plot on each side.
 */
export function TimeXAxis({ from, to, roomPx, padding }: { from: number; to: number; roomPx: number; padding?: { left: number; right: number } }) {
  const plot = usePlotArea();
  const inset = (padding?.left ?? 0) + (padding?.right ?? 0);
  const { ticks, format } = timeTicks(from, to, Math.max(1, (plot?.width ?? 0) - inset), roomPx);
  return <XAxis dataKey="t" type="number" scale="time" domain={[from, to]} padding={padding} ticks={ticks} interval={0} tickFormatter={format} {...AXIS} />;
}

function CategoryTick({ x, y, payload, width, measure }: { x?: number; y?: number; payload?: { value: string }; width: number; measure: Measure }) {
  const full = String(payload?.value ?? "");
  const shown = elide(full, width - 10, measure);
  return (
    <g transform={`translate(${x ?? 0},${y ?? 0})`} data-full-label={full}>
      {shown !== full ? <title>{full}</title> : null}
      <text x={-4} dy="0.355em" textAnchor="end" fill={AXIS.tick.fill} fontSize={FONT_PX} className="recharts-cartesian-axis-tick-value">
        {shown}
      </text>
    </g>
  );
}

/**
 * A category y axis as wide as its longest label, up to `share` of the chart; a label past that is elided and keeps
 * its full text as the tick's title.
 */
export function CategoryYAxis({ dataKey, labels, share = 0.4 }: { dataKey: string; labels: readonly string[]; share?: number }) {
  const chartWidth = useChartWidth() ?? 0;
  const width = categoryAxisWidth(labels, Math.max(60, chartWidth * share), measureAxisText);
  const tick = useMemo(() => (props: object) => <CategoryTick {...props} width={width} measure={measureAxisText} />, [width]);
  return <YAxis type="category" dataKey={dataKey} width={width} tick={tick} interval={0} stroke={AXIS.stroke} />;
}

/**
 * The one tooltip of every chart: the series with a value at that point, largest first, never taller than the chart
 * (`heightPx`); `moreText` words the rest ("+{n} more").
 */
export function ChartTooltip({
  active,
  payload,
  label,
  heightPx,
  moreText,
  labelText,
  valueText,
}: {
  active?: boolean;
  payload?: readonly { name?: unknown; value?: unknown; color?: string; payload?: unknown }[];
  label?: unknown;
  heightPx: number;
  moreText: string;
  labelText?: (label: unknown) => string;
  valueText?: (value: number, item: unknown) => string;
}) {
  if (!active || !payload || payload.length === 0) return null;
  const entries = payload.map((p) => ({ name: String(p.name ?? ""), value: Number(p.value), color: String(p.color ?? "var(--fg)"), item: p.payload as unknown }));
  const { rows, more } = tooltipRows(entries, heightPx);
  const items = new Map(entries.map((e) => [e.name, e.item]));
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip" style={{ maxHeight: heightPx, padding: TOOLTIP_PX.padding / 2 }}>
      <div className="chart-tooltip-label" style={{ height: TOOLTIP_PX.header }}>
        {labelText ? labelText(label) : String(label ?? "")}
      </div>
      <ul>
        {rows.map((r) => (
          <li key={r.name} style={{ height: TOOLTIP_PX.row }}>
            <span className="swatch" style={{ background: r.color }} aria-hidden="true" />
            {r.name}: <strong>{valueText ? valueText(r.value, items.get(r.name)) : r.value.toLocaleString()}</strong>
          </li>
        ))}
        {more > 0 ? <li style={{ height: TOOLTIP_PX.row }} className="muted">{moreText.replace("{n}", String(more))}</li> : null}
      </ul>
    </div>
  );
}
