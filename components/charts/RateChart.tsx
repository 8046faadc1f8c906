"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS, TOOLTIP_STYLE } from "./time-axis.ts";

export interface RateBar {
  name: string;
  /** The measure ranked by: duplicates, or the duplicate rate in percent. */
  value: number;
  /** "41 duplicates · 12.5%". */
  text: string;
}

/** Groups or topics as ranked, first on top: the bar is the measure ranked by, the label gives both. */
export function RateChart({ bars, unit, valueLabel }: { bars: RateBar[]; unit: string; valueLabel: string }) {
  return (
    <ResponsiveContainer width="100%" height={Math.max(120, bars.length * 30 + 30)}>
      <BarChart data={bars} layout="vertical" margin={{ top: 4, right: 170, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" unit={unit} allowDecimals={unit !== ""} domain={[0, (max: number) => Math.max(1, Math.ceil(max))]} {...AXIS} />
        <YAxis type="category" dataKey="name" width={130} {...AXIS} />
        <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--row-alt)" }} formatter={(_v, _n, item) => [(item.payload as RateBar).text, valueLabel]} />
        <Bar dataKey="value" name={valueLabel} fill="#4e79a7" isAnimationActive={false}>
          <LabelList dataKey="text" position="right" fill="var(--fg)" fontSize={12} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
