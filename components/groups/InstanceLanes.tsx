import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { InstanceSpan, MembershipChange } from "@/lib/groups/membership.ts";
import type { RebalanceEpisode } from "@/lib/groups/rebalance-history.ts";
import { timeScale } from "@/lib/timeline/scale.ts";
import { LaneAxis } from "./LaneAxis.tsx";
import { DRAWN_LANES, LaneFold, type LaneFoldAll } from "./LaneFold.tsx";

const SYMBOLS: Record<MembershipChange, string> = { joined: "⊕", left: "⊖", vanished: "⚡" };
const KIND: Record<MembershipChange, string> = { joined: "joined", left: "left", vanished: "vanished" };

/** Lanes drawn before the fold: a week of deploys and restarts gives hundreds of processes, the latest matter most. */
const OPEN_INSTANCES = 10;

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;
const utc = (ts: number) => formatTime(ts, { precision: "s", zone: true });

/** A group's processes as bars over the chosen range, with membership changes marked and a row of rebalances. */
export function InstanceLanes({
  spans,
  episodes,
  episodeHref,
  from,
  to,
  t,
  all,
}: {
  spans: InstanceSpan[];
  episodes: RebalanceEpisode[];
  /** Where an episode's mark leads: the entry in the rebalance history, on whichever page of it lists the episode. */
  episodeHref: (start: number) => string;
  from: number;
  to: number;
  t: Dictionary;
  all: LaneFoldAll;
}) {
  const scale = timeScale(from, to, 0.01);
  // The latest first: the open ones, then those the fold draws, then the rest; each in the spans' order.
  const byLast = [...spans].sort((a, b) => b.last - a.last);
  const rank = new Map(byLast.map((s, i) => [s, i < OPEN_INSTANCES ? 0 : i < DRAWN_LANES ? 1 : 2]));
  const ordered = [0, 1, 2].flatMap((tier) => spans.filter((s) => rank.get(s) === tier));
  return (
    <div className="timeline groups-lanes" data-testid="instances">
      <div className="tl-inner">
        <LaneFold
          open={OPEN_INSTANCES}
          summary={t.groups.moreInstances}
          all={{ ...all, text: t.groups.allInstances }}
          lanes={ordered.map((s) => (
            <div key={s.instance} className="tl-lane" data-instance={s.instance}>
              <div className="tl-label mono">{s.instance}</div>
              <div className="tl-track">
                <span className="tl-span" style={{ left: pct(scale.position(s.first)), width: pct(Math.max(scale.position(s.last) - scale.position(s.first), 0.004)) }} title={`${s.instance}: ${utc(s.first)} – ${utc(s.last)}`} />
                {s.changes.map((c) => {
                  const text = `${t.groups.instanceStates[c.change]} · ${utc(c.ts)}`;
                  return (
                    <span key={c.eventId} className={`tl-mark k-${KIND[c.change]}`} style={{ left: pct(scale.position(c.ts)) }} title={text} role="img" aria-label={text} tabIndex={0}>
                      <span aria-hidden="true">{SYMBOLS[c.change]}</span>
                    </span>
                  );
                })}
              </div>
            </div>
          ))}
        />
        <div className="tl-lane" data-lane="rebalances">
          <div className="tl-label muted">{t.groups.rebalances}</div>
          <div className="tl-track">
            {episodes.map((e) => {
              const text = `${t.groups.rebalances} · ${utc(e.start)} · ${t.groups.episodeMoves(e.moves.length, e.lines)}`;
              return (
                <a key={e.start} href={episodeHref(e.start)} className="tl-mark k-rebalance" style={{ left: pct(scale.position(e.start)) }} title={text} aria-label={text}>
                  <span aria-hidden="true">⇄</span>
                </a>
              );
            })}
          </div>
        </div>
        <LaneAxis scale={scale} from={from} to={to} />
      </div>
      <ul className="tl-legend" aria-label={t.timeline.legend}>
        {(Object.keys(SYMBOLS) as MembershipChange[]).map((c) => (
          <li key={c}>
            <span className={`k-${KIND[c]}`} aria-hidden="true">
              {SYMBOLS[c]}
            </span>{" "}
            {t.groups.instanceStates[c]}
          </li>
        ))}
        <li>
          <span className="k-rebalance" aria-hidden="true">
            ⇄
          </span>{" "}
          {t.groups.rebalances}
        </li>
      </ul>
    </div>
  );
}
