import { estimateWidth } from "@/components/charts/labels.ts";

/**
 * Where a key timeline's axis labels go, apart from any drawing. The track is drawn at any width from its narrowest
 * (`.tl-inner`'s min-width less the label column: 27rem) up, so labels are placed for the narrowest and keep apart
 * at every wider one. Each later burst's label ("+4 h 45 min") starts right of the break before it: centred on its
 * tick, it ran under the break's "≈" and lost its "+"; where a burst is too narrow for its label, the label takes a
 * second row rather than run into the next break. A round tick of the first burst whose label would touch one
 * already placed or a break's "≈" is left out, and the first and last labels are aligned inward so neither runs
 * past the track's ends (the first sat under the first mark and over the lane labels' column).
 */

export interface AxisTick {
  text: string;
  position: number;
  /** The tick where a burst after a break begins. */
  burst?: boolean;
}

export interface PlacedLabel extends AxisTick {
  anchor: "start" | "middle" | "end";
  /** 0: beside the breaks' signs; 1: the row under it, for burst labels the first has no room for. */
  row: 0 | 1;
}

export const NARROWEST_TRACK_PX = (40 - 13) * 16;
/** The tick labels' size (.tl-tick, 0.72rem), the break sign's half width with its padding, and room around them. */
const LABEL_PX = 11.52;
const BREAK_HALF_PX = 7;
const LABEL_GAP_PX = 8;
const BREAK_GAP_PX = 2;

const measure = estimateWidth(LABEL_PX);

type Span = [number, number];

export function labelBox(label: Pick<PlacedLabel, "text" | "position" | "anchor">, trackPx = NARROWEST_TRACK_PX): Span {
  const x = label.position * trackPx;
  const w = measure(label.text);
  return label.anchor === "start" ? [x, x + w] : label.anchor === "end" ? [x - w, x] : [x - w / 2, x + w / 2];
}

export function placeAxisLabels(ticks: readonly AxisTick[], breaks: readonly number[], trackPx = NARROWEST_TRACK_PX): PlacedLabel[] {
  const signs: Span[] = breaks.map((b) => [b * trackPx - BREAK_HALF_PX, b * trackPx + BREAK_HALF_PX]);
  const rows: [Span[], Span[]] = [[], []];
  const apart = ([l, r]: Span, others: Span[], gap: number) => others.every(([a, b]) => r + gap <= a || l >= b + gap);
  const inside = ([l, r]: Span) => l >= 0 && r <= trackPx;
  const placed: PlacedLabel[] = [];
  const place = (tick: AxisTick, anchor: PlacedLabel["anchor"], row: 0 | 1) => {
    rows[row].push(labelBox({ ...tick, anchor }, trackPx));
    placed.push({ ...tick, anchor, row });
  };
  // Bursts first: each is the only label of its stretch, the round ticks of the first one are many. A burst's label
  // may run past the narrowest track's end (the page scrolls there); a round tick's has room to move inward.
  for (const tick of ticks.filter((t) => t.burst)) {
    const box = labelBox({ ...tick, anchor: "start" }, trackPx);
    place(tick, "start", apart(box, signs, BREAK_GAP_PX) && apart(box, rows[0], LABEL_GAP_PX) ? 0 : 1);
  }
  for (const tick of ticks.filter((t) => !t.burst)) {
    const anchor = (["middle", "start", "end"] as const).find((a) => {
      const box = labelBox({ ...tick, anchor: a }, trackPx);
      return inside(box) && apart(box, signs, BREAK_GAP_PX) && apart(box, rows[0], LABEL_GAP_PX);
    });
    if (anchor !== undefined) place(tick, anchor, 0);
  }
  return placed.sort((a, b) => a.position - b.position);
}
