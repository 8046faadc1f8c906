"use client";

import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS, TOOLTIP_STYLE } from "./time-axis.ts";

export interface FunnelRow {
  label: string;
  reached: number;
  /** "12 caught here", or empty. */
  note: string;
  color: string;
}

/** The dedup layers as a funnel: one bar per stage, shrinking by what each layer caught. */
export function FunnelChart({ rows, valueLabel }: { rows: FunnelRow[]; valueLabel: string }) {
  return (
    <ResponsiveContainer width="100%" height={Math.max(160, rows.length * 36)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 130, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" allowDecimals={false} {...AXIS} />
        <YAxis type="category" dataKey="label" width={130} {...AXIS} />
        <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--row-alt)" }} />
        <Bar dataKey="reached" name={valueLabel} isAnimationActive={false}>
          {rows.map((r) => (
            <Cell key={r.label} fill={r.color} />
          ))}
          <LabelList dataKey="note" position="right" fill="var(--fg)" fontSize={12} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
