"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS, TOOLTIP_STYLE } from "./time-axis.ts";

export interface RateBar {
  name: string;
  pct: number;
  /** "12.5% (45 of 360 keys)". */
  text: string;
}

/** Groups or topics by duplicate rate, highest first. */
export function RateChart({ bars, valueLabel }: { bars: RateBar[]; valueLabel: string }) {
  return (
    <ResponsiveContainer width="100%" height={Math.max(120, bars.length * 30 + 30)}>
      <BarChart data={bars} layout="vertical" margin={{ top: 4, right: 170, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" unit="%" domain={[0, (max: number) => Math.max(1, Math.ceil(max))]} {...AXIS} />
        <YAxis type="category" dataKey="name" width={130} {...AXIS} />
        <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--row-alt)" }} formatter={(_v, _n, item) => [(item.payload as RateBar).text, valueLabel]} />
        <Bar dataKey="pct" name={valueLabel} fill="#4e79a7" isAnimationActive={false}>
          <LabelList dataKey="text" position="right" fill="var(--fg)" fontSize={12} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
