"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis } from "recharts";
import { CategoryYAxis, ChartTooltip } from "./ChartParts.tsx";
import { estimateWidth } from "./labels.ts";
import { AXIS } from "./time-axis.ts";

export interface RateBar {
  name: string;
  /** The measure ranked by: duplicates, or the duplicate rate in percent. */
  value: number;
  /** "41 duplicates · 12.5%". */
  text: string;
}

/** Groups or topics as ranked, first on top: the bar is the measure ranked by, the label gives both. */
export function RateChart({ bars, unit, valueLabel, moreText }: { bars: RateBar[]; unit: string; valueLabel: string; moreText: string }) {
  const height = Math.max(120, bars.length * 30 + 30);
  const textRoom = Math.ceil(Math.max(0, ...bars.map((b) => estimateWidth(AXIS.tick.fontSize)(b.text)))) + 16;
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={bars} layout="vertical" margin={{ top: 4, right: textRoom, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" unit={unit} allowDecimals={unit !== ""} domain={[0, (max: number) => Math.max(1, Math.ceil(max))]} {...AXIS} />
        <CategoryYAxis dataKey="name" labels={bars.map((b) => b.name)} />
        <Tooltip content={(p) => <ChartTooltip {...p} heightPx={height} moreText={moreText} valueText={(_v, item) => (item as RateBar).text} />} cursor={{ fill: "var(--row-alt)" }} />
        <Bar dataKey="value" name={valueLabel} fill="#4e79a7" isAnimationActive={false}>
          <LabelList dataKey="text" position="right" fill="var(--fg)" fontSize={12} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
