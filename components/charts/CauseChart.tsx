"use client";

import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { CausePoint } from "@/lib/views/overview.ts";
import { AXIS, timeLabel, timeTick, TOOLTIP_STYLE } from "./time-axis.ts";
import { REBALANCE_LINE } from "./palette.ts";

export interface Series {
  key: string;
  label: string;
  color: string;
}

/** Duplicates per interval stacked by cause, with the rebalance episodes of the same interval as a line over them. */
export function CauseChart({ points, series, rebalanceLabel, from, to }: { points: CausePoint[]; series: Series[]; rebalanceLabel: string; from: number; to: number }) {
  return (
    <ResponsiveContainer width="100%" height={280}>
      <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: -8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <XAxis dataKey="t" type="number" scale="time" domain={[from, to]} tickFormatter={timeTick(to - from)} {...AXIS} />
        <YAxis yAxisId="dup" allowDecimals={false} {...AXIS} />
        <YAxis yAxisId="reb" orientation="right" allowDecimals={false} {...AXIS} />
        <Tooltip labelFormatter={(t) => timeLabel(Number(t))} {...TOOLTIP_STYLE} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s) => (
          <Area key={s.key} yAxisId="dup" type="stepAfter" dataKey={s.key} name={s.label} stackId="causes" stroke={s.color} fill={s.color} fillOpacity={0.75} isAnimationActive={false} />
        ))}
        <Line yAxisId="reb" type="stepAfter" dataKey="rebalances" name={rebalanceLabel} stroke={REBALANCE_LINE} strokeWidth={1.5} strokeDasharray="4 3" dot={false} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
