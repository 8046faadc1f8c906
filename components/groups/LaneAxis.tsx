import { formatTime } from "@/lib/format/time.ts";
import type { TimeScale } from "@/lib/timeline/scale.ts";

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;

/** The time axis under a group page's lanes: five ticks over the range, dated when it spans more than a day. */
export function LaneAxis({ scale, from, to }: { scale: TimeScale; from: number; to: number }) {
  const tick = (ts: number) => formatTime(ts, { precision: "min", date: to - from > 86_400_000 ? "short" : "none" });
  return (
    <div className="tl-axis" aria-hidden="true">
      <div className="tl-label" />
      <div className="tl-track">
        {[0, 0.25, 0.5, 0.75, 1].map((f) => {
          const ts = from + f * (to - from);
          return (
            <span key={f} className="tl-tick" style={{ left: pct(scale.position(ts)) }}>
              {tick(ts)}
            </span>
          );
        })}
      </div>
    </div>
  );
}
