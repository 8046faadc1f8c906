"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, YAxis } from "recharts";
import type { OutcomePoint } from "@/lib/views/overview.ts";
import type { Series } from "./CauseChart.tsx";
import { ChartTooltip, TimeXAxis } from "./ChartParts.tsx";
import { AXIS, timeLabel } from "./time-axis.ts";

const HEIGHT = 220;

/** Caught, leaked and unknown duplicates per interval, stacked. */
export function OutcomeChart({ points, series, moreText, from, to }: { points: OutcomePoint[]; series: Series[]; moreText: string; from: number; to: number }) {
  return (
    <ResponsiveContainer width="100%" height={HEIGHT}>
      <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: -8 }} barCategoryGap={1}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
        <TimeXAxis from={from} to={to} roomPx={8} padding={{ left: 4, right: 4 }} />
        <YAxis allowDecimals={false} {...AXIS} />
        <Tooltip content={(p) => <ChartTooltip {...p} heightPx={HEIGHT} moreText={moreText} labelText={(t) => timeLabel(Number(t))} />} cursor={{ fill: "var(--row-alt)" }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.label} stackId="outcome" fill={s.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
