"use client";

import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, YAxis } from "recharts";
import type { CausePoint } from "@/lib/views/overview.ts";
import { ChartTooltip, TimeXAxis } from "./ChartParts.tsx";
import { AXIS, timeLabel } from "./time-axis.ts";
import { REBALANCE_LINE } from "./palette.ts";

export interface Series {
  key: string;
  label: string;
  color: string;
}

const HEIGHT = 280;

/** Duplicates per interval stacked by cause, with the rebalance episodes of the same interval as a line over them. */
export function CauseChart({ points, series, rebalanceLabel, moreText, from, to }: { points: CausePoint[]; series: Series[]; rebalanceLabel: string; moreText: string; from: number; to: number }) {
  return (
    <ResponsiveContainer width="100%" height={HEIGHT}>
      <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: -8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <TimeXAxis from={from} to={to} roomPx={8} />
        <YAxis yAxisId="dup" allowDecimals={false} {...AXIS} />
        <YAxis yAxisId="reb" orientation="right" allowDecimals={false} {...AXIS} />
        <Tooltip content={(p) => <ChartTooltip {...p} heightPx={HEIGHT} moreText={moreText} labelText={(t) => timeLabel(Number(t))} />} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s) => (
          <Area key={s.key} yAxisId="dup" type="stepAfter" dataKey={s.key} name={s.label} stackId="causes" stroke={s.color} fill={s.color} fillOpacity={0.75} isAnimationActive={false} />
        ))}
        <Line yAxisId="reb" type="stepAfter" dataKey="rebalances" name={rebalanceLabel} stroke={REBALANCE_LINE} strokeWidth={1.5} strokeDasharray="4 3" dot={false} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
