"use client";

import { Bar, BarChart, CartesianGrid, Legend, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Series } from "./CauseChart.tsx";
import { ChartTooltip } from "./ChartParts.tsx";
import { AXIS } from "./time-axis.ts";

const HEIGHT = 260;

export interface GapRow {
  label: string;
  band: "ms" | "seconds" | "minutes";
  [cause: string]: number | string;
}

/**
 * The gap histogram: bins 1-3-10 apart (a log scale drawn as evenly spaced categories), stacked by cause, on
 * shaded bands for milliseconds, seconds and minutes.
 */
export function GapChart({ rows, series, bands, moreText }: { rows: GapRow[]; series: Series[]; bands: { band: GapRow["band"]; label: string }[]; moreText: string }) {
  const edges = bands.flatMap((b) => {
    const inBand = rows.filter((r) => r.band === b.band);
    return inBand.length === 0 ? [] : [{ ...b, x1: inBand[0]!.label, x2: inBand.at(-1)!.label }];
  });
  return (
    <ResponsiveContainer width="100%" height={HEIGHT}>
      <BarChart data={rows} margin={{ top: 24, right: 8, bottom: 0, left: -8 }} barCategoryGap={2}>
        {edges.map((e, i) => (
          <ReferenceArea
            key={e.band}
            x1={e.x1}
            x2={e.x2}
            fill={i % 2 === 0 ? "var(--row-alt)" : "var(--bg)"}
            fillOpacity={1}
            label={{ value: e.label, position: "insideTop", fill: "var(--muted)", fontSize: 12, dy: -20 }}
            ifOverflow="visible"
          />
        ))}
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" interval={0} angle={-35} textAnchor="end" height={48} {...AXIS} />
        <YAxis allowDecimals={false} {...AXIS} />
        <Tooltip content={(p) => <ChartTooltip {...p} heightPx={HEIGHT} moreText={moreText} />} cursor={{ fill: "var(--row-alt)" }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.label} stackId="gap" fill={s.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
