import { timeTicks } from "@/components/charts/time-axis.ts";
import type { TimeScale } from "@/lib/timeline/scale.ts";

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;

/**
 * Width of the narrowest track the lanes are drawn on (.tl-inner's min-width less the label column, in px at the
 * default font size): the ticks are chosen for it, so their labels keep apart at any wider one too.
 */
const NARROWEST_TRACK_PX = (40 - 13) * 16;

/**
 * The time axis under a group page's lanes: round times that never repeat a label, and no tick whose centred
 * label would run past either end of the track (the lanes' box clips it).
 */
export function LaneAxis({ scale, from, to }: { scale: TimeScale; from: number; to: number }) {
  const { ticks, format } = timeTicks(from, to, NARROWEST_TRACK_PX);
  return (
    <div className="tl-axis" aria-hidden="true">
      <div className="tl-label" />
      <div className="tl-track">
        {ticks.map((ts) => (
          <span key={ts} className="tl-tick" style={{ left: pct(scale.position(ts)) }}>
            {format(ts)}
          </span>
        ))}
      </div>
    </div>
  );
}
