export interface TooltipEntry {
  name: string;
  value: number;
  color: string;
}

/** Height of the tooltip's box, header and rows, in px (ChartTooltip draws them so). */
export const TOOLTIP_PX = { padding: 16, header: 22, row: 20 } as const;

/**
 * What a chart's tooltip lists: the series with a value at that point, largest first (ties in the order given), as
 * many as fit `heightPx`; the rest are counted in a last line ("+3 more") so the box is never taller than the chart.
 */
export function tooltipRows(entries: readonly TooltipEntry[], heightPx: number): { rows: TooltipEntry[]; more: number } {
  const shown = entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => Number.isFinite(e.value) && e.value !== 0)
    .sort((a, b) => b.e.value - a.e.value || a.i - b.i)
    .map(({ e }) => e);
  const fit = Math.max(1, Math.floor((heightPx - TOOLTIP_PX.padding - TOOLTIP_PX.header) / TOOLTIP_PX.row));
  if (shown.length <= fit) return { rows: shown, more: 0 };
  return { rows: shown.slice(0, fit - 1), more: shown.length - (fit - 1) };
}
