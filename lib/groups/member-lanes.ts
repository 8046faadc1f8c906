import { overlaps, type ClosedBy, type MemberInterval } from "../diagnosis/members.ts";

/**
 * A group's members over time as the pages draw them (lib/diagnosis/members.ts keeps the intervals): one lane per
 * member (a clientId, or the instance its lines name), one bar per connection, and the member marked when two of its
 * connections through one broker from two addresses overlapped — two processes with one clientId.
 */

export interface MemberConnection {
  via: string;
  remote: string | null;
  /** null: connected before anything ingested says. */
  since: number | null;
  until: number | null;
  closedBy: ClosedBy | null;
  model: string | null;
  /** Overlaps another connection of the member through the same broker from another address. */
  collides: boolean;
  /** The connect line is gone with the raw events' retention; only the interval remains. */
  expired: boolean;
}

export interface MemberLane {
  member: string;
  instance: string | null;
  model: string | null;
  collision: boolean;
  connections: MemberConnection[];
}

/** Connections of one member that overlap, through one broker, from two addresses. */
function collisions(list: readonly MemberInterval[]): Set<MemberInterval> {
  const found = new Set<MemberInterval>();
  for (const [i, a] of list.entries()) {
    for (const b of list.slice(i + 1)) {
      if (a.via === "" || a.via !== b.via || a.remote === null || b.remote === null || a.remote === b.remote) continue;
      const start = Math.max(a.since ?? -Infinity, b.since ?? -Infinity);
      const end = Math.min(a.until ?? Infinity, b.until ?? Infinity);
      if (start <= end) {
        found.add(a);
        found.add(b);
      }
    }
  }
  return found;
}

/** The lanes of the intervals overlapping [from, to], members with a collision first, then by their first connection. */
export function memberLanes(intervals: readonly MemberInterval[], from: number, to: number): MemberLane[] {
  const byMember = new Map<string, MemberInterval[]>();
  for (const i of intervals) {
    if (!overlaps(i, from, to)) continue;
    const list = byMember.get(i.member);
    if (list) list.push(i);
    else byMember.set(i.member, [i]);
  }
  const lanes = [...byMember].map(([member, list]): MemberLane => {
    const colliding = collisions(list);
    const sorted = [...list].sort((a, b) => (a.since ?? -Infinity) - (b.since ?? -Infinity));
    return {
      member,
      instance: sorted.find((i) => i.instance !== null)?.instance ?? null,
      model: [...sorted].reverse().find((i) => i.model !== null)?.model ?? null,
      collision: colliding.size > 0,
      connections: sorted.map((i) => ({
        via: i.via,
        remote: i.remote,
        since: i.since,
        until: i.until,
        closedBy: i.closedBy,
        model: i.model,
        collides: colliding.has(i),
        expired: i.sinceRaw === false,
      })),
    };
  });
  const first = (l: MemberLane) => l.connections[0]?.since ?? -Infinity;
  return lanes.sort((a, b) => Number(b.collision) - Number(a.collision) || first(a) - first(b) || (a.member < b.member ? -1 : 1));
}

/** Who was in the group at `at`: its members with a connection open then (within `slackMs`). */
export function membersAt(intervals: readonly MemberInterval[], group: string, at: number, slackMs = 0): MemberLane[] {
  return memberLanes(
    intervals.filter((i) => i.group === group),
    at - slackMs,
    at + slackMs,
  );
}
