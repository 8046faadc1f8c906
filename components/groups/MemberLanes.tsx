import { formatTime } from "@/lib/format/time.ts";
import { SPANS_VIA } from "@/lib/diagnosis/members.ts";
import type { MemberConnection, MemberLane } from "@/lib/groups/member-lanes.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import { timeScale } from "@/lib/timeline/scale.ts";
import { LaneAxis } from "./LaneAxis.tsx";
import { LaneFold, type LaneFoldAll } from "./LaneFold.tsx";

/** Lanes drawn before the fold: members with a collision come first, then the oldest connections. */
const OPEN_MEMBERS = 8;

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;
const utc = (ts: number) => formatTime(ts, { precision: "s", zone: true });

/** Connections of one member that overlap would hide each other: each gets its own row of the lane. */
function stacked(i: number, n: number): { top: string; height: string } | Record<string, never> {
  if (n < 2) return {};
  const rows = Math.min(n, 3);
  return { top: `${0.35 + (i % rows) * (1.3 / rows)}rem`, height: `${1.1 / rows}rem` };
}

function connectionText(c: MemberConnection, t: Dictionary): string {
  const since = c.since === null ? t.groups.memberSince.unknown : `${utc(c.since)}${c.expired ? ` (${t.groups.memberSince.expired})` : ""}`;
  const until = c.until === null ? t.groups.memberUntil.open : `${utc(c.until)} (${t.groups.memberUntil[c.closedBy ?? "close"]})`;
  return t.groups.memberConnection(c.remote, c.via, since, until, c.via === SPANS_VIA);
}

/** A group's members over the chosen range (group_members): one lane per member, one bar per connection. */
export function MemberLanes({ lanes, from, to, t, all }: { lanes: MemberLane[]; from: number; to: number; t: Dictionary; all: LaneFoldAll }) {
  const scale = timeScale(from, to, 0.01);
  return (
    <div className="timeline groups-lanes" data-testid="members">
      <div className="tl-inner">
        <LaneFold
          open={OPEN_MEMBERS}
          summary={t.groups.moreMembers}
          all={{ ...all, text: t.groups.allMembers }}
          lanes={lanes.map((lane) => (
            <div key={lane.member} className={`tl-lane${lane.collision ? " member-collision" : ""}`} data-member={lane.member} data-collision={lane.collision || undefined}>
              <div className="tl-label mono" title={lane.member}>
                {lane.member}
                {lane.model !== null ? <span className="muted"> · {t.groups.memberModel(lane.model)}</span> : null}
                {lane.collision ? (
                  <span className="member-flag" role="img" aria-label={t.groups.memberCollision} title={t.groups.memberCollision}>
                    {" "}⚠ {t.groups.memberCollision}
                  </span>
                ) : null}
              </div>
              <div className="tl-track">
                {lane.connections.map((c, i) => {
                  const start = Math.max(c.since ?? from, from);
                  const end = Math.min(c.until ?? to, to);
                  const text = connectionText(c, t);
                  return (
                    <span
                      key={i}
                      className={`tl-span member-connection${c.collides ? " collides" : ""}${c.until === null ? " open" : ""}`}
                      style={{ left: pct(scale.position(start)), width: pct(Math.max(scale.position(end) - scale.position(start), 0.004)), ...stacked(i, lane.connections.length) }}
                      title={text}
                      role="img"
                      aria-label={text}
                      tabIndex={0}
                    />
                  );
                })}
              </div>
            </div>
          ))}
        />
        <LaneAxis scale={scale} from={from} to={to} />
      </div>
    </div>
  );
}
