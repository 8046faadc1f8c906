"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { OutcomePoint } from "@/lib/views/overview.ts";
import type { Series } from "./CauseChart.tsx";
import { AXIS, timeLabel, timeTick, TOOLTIP_STYLE } from "./time-axis.ts";

/** Caught, leaked and unknown duplicates per interval, stacked. */
export function OutcomeChart({ points, series, from, to }: { points: OutcomePoint[]; series: Series[]; from: number; to: number }) {
  return (
    <ResponsiveContainer width="100%" height={220}>
      <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: -8 }} barCategoryGap={1}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={[from, to]} padding={{ left: 4, right: 4 }} tickFormatter={timeTick(to - from)} {...AXIS} />
        <YAxis allowDecimals={false} {...AXIS} />
        <Tooltip labelFormatter={(t) => timeLabel(Number(t))} {...TOOLTIP_STYLE} cursor={{ fill: "var(--row-alt)" }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.label} stackId="outcome" fill={s.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
