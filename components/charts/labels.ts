/**
 * Fitting text into a chart, apart from any drawing: how wide a label is, and how to cut one too wide for its room
 * while the full text stays on hand (the tick's title). Browsers measure with the page's own font; elsewhere an
 * estimate that errs wide stands in, so an estimated label is never cut by the chart's edge.
 */

export type Measure = (text: string) => number;

/** Ideographs, kana, hangul and fullwidth forms take a full em; Latin letters and digits about 0.6 of one. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;
const NARROW = /[ .,:;'|!il]/;
const BROAD = /[A-Z%@#&mwMW_]/;

export function estimateWidth(fontPx: number): Measure {
  return (text) => {
    let em = 0;
    for (const ch of text) em += WIDE.test(ch) ? 1 : NARROW.test(ch) ? 0.32 : BROAD.test(ch) ? 0.78 : 0.6;
    return em * fontPx;
  };
}

const ELLIPSIS = "…";

/** The text as is when it fits `maxPx`, else its longest start that fits with "…" after it. */
export function elide(text: string, maxPx: number, measure: Measure): string {
  if (measure(text) <= maxPx) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(chars.slice(0, mid).join("") + ELLIPSIS) <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join("") + ELLIPSIS;
}

/**
 * Width of a category axis: room for its widest label and a margin, at most `capPx` (a share of the chart);
 * labels wider than that are elided to fit.
 */
export function categoryAxisWidth(labels: readonly string[], capPx: number, measure: Measure, marginPx = 10): number {
  const widest = Math.max(0, ...labels.map(measure));
  return Math.ceil(Math.min(capPx, widest + marginPx));
}
