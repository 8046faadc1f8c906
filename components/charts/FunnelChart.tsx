"use client";

import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis } from "recharts";
import { CategoryYAxis, ChartTooltip } from "./ChartParts.tsx";
import { estimateWidth } from "./labels.ts";
import { AXIS } from "./time-axis.ts";

export interface FunnelRow {
  label: string;
  /** The count the bar is drawn to, and the one its note words. */
  value: number;
  /** "12 caught", or the count. */
  note: string;
  color: string;
}

/** The dedup layers in the order they check: duplicates checked, what each layer caught, what leaked. */
export function FunnelChart({ rows, moreText }: { rows: FunnelRow[]; moreText: string }) {
  const height = Math.max(160, rows.length * 36);
  const noteRoom = Math.ceil(Math.max(0, ...rows.map((r) => estimateWidth(AXIS.tick.fontSize)(r.note)))) + 16;
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: noteRoom, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" allowDecimals={false} {...AXIS} />
        <CategoryYAxis dataKey="label" labels={rows.map((r) => r.label)} />
        <Tooltip content={(p) => <ChartTooltip {...p} heightPx={height} moreText={moreText} valueText={(_v, item) => (item as FunnelRow).note} />} cursor={{ fill: "var(--row-alt)" }} />
        <Bar dataKey="value" isAnimationActive={false}>
          {rows.map((r) => (
            <Cell key={r.label} fill={r.color} />
          ))}
          <LabelList dataKey="note" position="right" fill="var(--fg)" fontSize={12} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
