import { foldHoldings, holdingChangeOf } from "../diagnosis/holdings.ts";
import { foldMembers, memberChangeOf, memberHost, ONE_PROCESS_CLIENT_ID_SQL, SEEN_BUCKET_MS, SPANS_VIA, type ClosedBy, type MemberChange, type MemberInterval } from "../diagnosis/members.ts";
import type { PreparedStatement, SqlDriver, SqlSession } from "./driver.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "./event-rows.ts";
import { holdingChangesOf, insertHoldingChanges, rewriteHoldings } from "./group-holdings.ts";
import { sinceRawSql } from "./raw-events-from.ts";
import { spanOfRow, type IntervalSpanRow } from "./interval-rows.ts";

/**
 * The store's side of a group's state over time (lib/diagnosis/members.ts): the membership lines' changes are kept in
 * group_member_changes, which outlives the raw events, and each group's intervals in group_members are what
 * foldMembers makes of all of its changes. A group's fold is redone whenever one of its changes is new, so lines
 * ingested out of order give the intervals they would have given in order.
 */

interface ChangeRow {
  group_name: string;
  event_id: string;
  ts: string | number;
  coarse: boolean;
  change: MemberChange["change"];
  member: string | null;
  instance: string | null;
  via: string;
  remote: string | null;
  model: string | null;
  broker: string;
}

const changeOfRow = (r: ChangeRow): MemberChange => ({
  eventId: r.event_id,
  ts: Number(r.ts),
  coarse: r.coarse,
  group: r.group_name,
  change: r.change,
  member: r.member,
  instance: r.instance,
  via: r.via,
  remote: r.remote,
  model: r.model,
  broker: r.broker,
});

/**
 * Reads the stored lines `ids` name ([id, ts], from the ingest journal), keeps their membership and holding changes
 * (lib/diagnosis/holdings.ts) and folds each group they touch again. Returns the groups whose changes were new.
 */
export async function recordMemberLines(session: SqlSession, ids: readonly (readonly [string, number])[]): Promise<string[]> {
  const groups = await storeGroupLines(session, ids);
  for (const group of groups) await refoldGroup(session, group);
  return groups;
}

/**
 * Stores the membership and holding changes of the lines `ids` names (a change already stored is left as it is),
 * without folding: returns the groups whose changes were new, sorted.
 */
export async function storeGroupLines(session: SqlSession, ids: readonly (readonly [string, number])[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await session.query<EventRowSql>(
    `SELECT ${EVENT_SELECT} FROM events WHERE (id, ts) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`,
    [ids.map((i) => i[0]), ids.map((i) => String(i[1]))],
  );
  const events = rows.map(eventFromSql);
  const changes = events.flatMap((e) => memberChangeOf(e) ?? []);
  const holdings = events.flatMap((e) => holdingChangeOf(e) ?? []);
  return [...new Set([...(await insertMemberChanges(session, changes)), ...(await insertHoldingChanges(session, holdings))])].sort();
}

async function insertMemberChanges(session: SqlSession, changes: readonly MemberChange[]): Promise<string[]> {
  const [seen, lines] = [changes.filter((c) => c.change === "seen"), changes.filter((c) => c.change !== "seen")];
  return [...(await insertChanges(session, lines, LINE_CONFLICT)), ...(await insertChanges(session, firstSeenPerHour(seen), SEEN_CONFLICT))];
}

/** A line given twice is one change. */
const LINE_CONFLICT = `ON CONFLICT (group_name, event_id) DO NOTHING`;
/**
 * A group, member and process keep their first span of each hour (SEEN_BUCKET_MS): a later batch's span of that hour
 * changes nothing, an earlier one (spans exported late) takes its place.
 */
const SEEN_CONFLICT = `ON CONFLICT (group_name, member, instance, seen_hour) WHERE seen_hour IS NOT NULL
  DO UPDATE SET event_id = EXCLUDED.event_id, ts = EXCLUDED.ts, model = COALESCE(EXCLUDED.model, group_member_changes.model)
  WHERE EXCLUDED.ts < group_member_changes.ts OR (EXCLUDED.model IS NOT NULL AND group_member_changes.model IS NULL)`;

const seenHour = (c: MemberChange) => Math.floor(c.ts / SEEN_BUCKET_MS);

/** One insert may not meet the same row twice: the earliest span of each group, member, process and hour. */
function firstSeenPerHour(seen: readonly MemberChange[]): MemberChange[] {
  const first = new Map<string, MemberChange>();
  for (const c of seen) {
    const id = JSON.stringify([c.group, c.member, c.instance, seenHour(c)]);
    const was = first.get(id);
    if (was === undefined || c.ts < was.ts || (c.ts === was.ts && c.eventId < was.eventId)) first.set(id, was?.model != null && c.model === null ? { ...c, model: was.model } : c);
  }
  return [...first.values()];
}

async function insertChanges(session: SqlSession, changes: readonly MemberChange[], onConflict: string): Promise<string[]> {
  if (changes.length === 0) return [];
  const col = <T>(pick: (c: MemberChange) => T) => changes.map(pick);
  const inserted = await session.query<{ group_name: string }>(
    `INSERT INTO group_member_changes (group_name, event_id, ts, coarse, change, member, instance, via, remote, model, broker, seen_hour)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[],
                            $9::text[], $10::text[], $11::text[], $12::bigint[]) ORDER BY 1, 2
     ${onConflict} RETURNING group_name`,
    [
      col((c) => c.group),
      col((c) => c.eventId),
      col((c) => String(c.ts)),
      col((c) => c.coarse),
      col((c) => c.change),
      col((c) => c.member),
      col((c) => c.instance),
      col((c) => c.via),
      col((c) => c.remote),
      col((c) => c.model),
      col((c) => c.broker),
      col((c) => (c.change === "seen" ? String(seenHour(c)) : null)),
    ],
  );
  return inserted.map((r) => r.group_name);
}

/**
 * Rewrites a group's member intervals and its holdings (which its members' closes end) from all of its stored changes.
 */
export async function refoldGroup(session: SqlSession, group: string): Promise<void> {
  // Two folds of one group at once would each write its intervals; callers take groups in sorted order, so no deadlock.
  await session.query(`SELECT pg_advisory_xact_lock(hashtext('dupscope.group_members'), hashtext($1))`, [group]);
  const changes = (await session.query<ChangeRow>(`SELECT * FROM group_member_changes WHERE group_name = $1`, [group])).map(changeOfRow);
  await rewriteHoldings(session, group, changes);
  const intervals = foldMembers(changes);
  await session.run(`DELETE FROM group_members WHERE group_name = $1`, [group]);
  if (intervals.length === 0) return;
  const col = <T>(pick: (i: MemberInterval) => T) => intervals.map(pick);
  await session.run(
    `INSERT INTO group_members (group_name, n, member, instance, host, via, remote, model, broker, since_ts, since_event, since_coarse, until_ts, until_event, closed_by)
       SELECT $1, n::int - 1, member, instance, host, via, remote, model, broker, since_ts, since_event, since_coarse, until_ts, until_event, closed_by
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::boolean[], $12::bigint[], $13::text[], $14::text[])
         WITH ORDINALITY AS u(member, instance, host, via, remote, model, broker, since_ts, since_event, since_coarse, until_ts, until_event, closed_by, n)`,
    [
      group,
      col((i) => i.member),
      col((i) => i.instance),
      col((i) => memberHost(i)),
      col((i) => i.via),
      col((i) => i.remote),
      col((i) => i.model),
      col((i) => i.broker),
      col((i) => (i.since === null ? null : String(i.since))),
      col((i) => i.sinceEvent),
      col((i) => i.sinceCoarse),
      col((i) => (i.until === null ? null : String(i.until))),
      col((i) => i.untilEvent),
      col((i) => i.closedBy),
    ],
  );
}

export interface StoredInterval extends MemberInterval {
  sinceRaw: boolean;
}

interface IntervalRow extends IntervalSpanRow<ClosedBy> {
  group_name: string;
  member: string;
  instance: string | null;
  via: string;
  remote: string | null;
  model: string | null;
  broker: string;
}

export const intervalOfRow = (r: IntervalRow): StoredInterval => ({
  group: r.group_name,
  member: r.member,
  instance: r.instance,
  via: r.via,
  remote: r.remote,
  model: r.model,
  broker: r.broker,
  ...spanOfRow(r),
});

const SINCE_RAW = sinceRawSql("m");

/**
 * For each (group, from, to): the group's intervals that overlap [from, to] of connections from the hosts $4 names,
 * the newest one begun by `from` that names a message model, however long before, and those begun within (from, to]
 * that name one: what groupModelAt needs to answer at any time of the span. Each part is one
 * index range per probe (LATERAL, as the other key reads in lib/queries/diagnosis-input.ts, for the same reason: a
 * generic plan must stay an index scan): per group and host the open intervals and those that ended after `from`,
 * and per group the model. An OR of the first two read every interval of the group and filtered them. Of those
 * ranges only the connections that concern the key come back (concernsKey: its processes' own, and clientIds
 * processes can share), as $5 names its processes.
 */
/** concernsKey (lib/diagnosis/members.ts) in SQL, over `y`, the key's processes in $5. */
const CONCERNS_KEY = `(CASE WHEN y.via IN ('', '${SPANS_VIA}') THEN y.instance = ANY($5::text[]) ELSE (y.member !~ '${ONE_PROCESS_CLIENT_ID_SQL}' OR split_part(y.member, '#', 1) = ANY($5::text[])) END)`;

export const MEMBERS: PreparedStatement = {
  name: "dupscope_key_members",
  text: `SELECT DISTINCT ON (m.group_name, m.n) m.*, ${SINCE_RAW} AS since_raw
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS g(group_name, from_ts, to_ts)
    CROSS JOIN LATERAL (
      (SELECT x.* FROM unnest($4::text[]) AS h(host) CROSS JOIN LATERAL (
         SELECT * FROM group_members y WHERE y.group_name = g.group_name AND y.host = h.host AND y.until_ts IS NULL
           AND (y.since_ts IS NULL OR y.since_ts <= g.to_ts) AND ${CONCERNS_KEY} OFFSET 0) x)
      UNION ALL
      (SELECT x.* FROM unnest($4::text[]) AS h(host) CROSS JOIN LATERAL (
         SELECT * FROM group_members y WHERE y.group_name = g.group_name AND y.host = h.host AND y.until_ts >= g.from_ts
           AND (y.since_ts IS NULL OR y.since_ts <= g.to_ts) AND ${CONCERNS_KEY} OFFSET 0) x)
      UNION ALL
      (SELECT * FROM group_members x WHERE x.group_name = g.group_name AND x.model IS NOT NULL AND x.since_ts <= g.from_ts
         ORDER BY x.since_ts DESC, x.since_event COLLATE "C" DESC LIMIT 1)
      UNION ALL
      (SELECT * FROM group_members x WHERE x.group_name = g.group_name AND x.model IS NOT NULL AND x.since_ts > g.from_ts
         AND x.since_ts <= g.to_ts)) m`,
};

export async function readMembers(
  driver: SqlDriver,
  probes: readonly { group: string; from: number; to: number }[],
  hosts: readonly string[],
  processes: readonly string[],
): Promise<StoredInterval[]> {
  if (probes.length === 0) return [];
  const rows = await driver.prepared<IntervalRow>(MEMBERS, [probes.map((p) => p.group), probes.map((p) => String(p.from)), probes.map((p) => String(p.to)), hosts, processes]);
  return rows.map(intervalOfRow);
}

/** A group's intervals overlapping [from, to], for the group page. */
export async function groupMembersDuring(driver: SqlDriver, group: string, from: number, to: number): Promise<StoredInterval[]> {
  const rows = await driver.query<IntervalRow>(
    `SELECT m.*, ${SINCE_RAW} AS since_raw FROM group_members m
      WHERE m.group_name = $1 AND (m.until_ts IS NULL OR m.until_ts >= $2) AND (m.since_ts IS NULL OR m.since_ts <= $3)
      ORDER BY m.n`,
    [group, String(from), String(to)],
  );
  return rows.map(intervalOfRow);
}

/**
 * The retention of group state: member and holding intervals that ended before `before` go, with the changes that
 * made them; an interval still open, or ended since, keeps its lines however old. A line kept for one interval keeps
 * the line that ended any other interval it began (a set of queues begins several), so that folding again without
 * the deleted lines reopens nothing. Each group with older changes is folded again without them. Returns how many
 * changes of each kind were deleted.
 */
export async function pruneMembers(driver: SqlDriver, before: number): Promise<{ members: number; holdings: number }> {
  const groups = await driver.query<{ group_name: string }>(
    `SELECT group_name FROM group_member_changes WHERE ts < $1 UNION SELECT group_name FROM group_holding_changes WHERE ts < $1 ORDER BY 1`,
    [String(before)],
  );
  const deleted = { members: 0, holdings: 0 };
  for (const { group_name: group } of groups) {
    const n = await driver.transaction(async (tx) => {
      const changes = (await tx.query<ChangeRow>(`SELECT * FROM group_member_changes WHERE group_name = $1 FOR UPDATE`, [group])).map(changeOfRow);
      const holdingChanges = await holdingChangesOf(tx, group, true);
      const memberIntervals = foldMembers(changes);
      const intervals: { since: number | null; sinceEvent: string | null; until: number | null; untilEvent: string | null }[] = [
        ...memberIntervals,
        ...foldHoldings(holdingChanges, changes),
      ];
      const keep = new Set<string>();
      for (const i of intervals) {
        if (i.until !== null && i.until < before) continue;
        if (i.sinceEvent !== null) keep.add(i.sinceEvent);
        if (i.untilEvent !== null) keep.add(i.untilEvent);
      }
      // An interval known from spans is as long as its spans run without a gap (UNSEEN_MS): the hours between its
      // first and last stay, or folding again would end it at the first.
      for (const i of memberIntervals) {
        if (i.via !== SPANS_VIA || (i.until !== null && i.until < before)) continue;
        for (const c of changes) if (c.change === "seen" && c.member === i.member && c.instance === i.instance && c.ts >= i.since! && (i.until === null || c.ts <= i.until)) keep.add(c.eventId);
      }
      for (let grew = true; grew; ) {
        grew = false;
        for (const i of intervals) {
          if (i.sinceEvent === null || i.untilEvent === null || !keep.has(i.sinceEvent) || keep.has(i.untilEvent)) continue;
          keep.add(i.untilEvent);
          grew = true;
        }
      }
      const gone = (list: readonly { ts: number; eventId: string }[]) => list.filter((c) => c.ts < before && !keep.has(c.eventId)).map((c) => c.eventId);
      const goneMembers = gone(changes);
      const goneHoldings = gone(holdingChanges);
      if (goneMembers.length + goneHoldings.length === 0) return { members: 0, holdings: 0 };
      const members = goneMembers.length === 0 ? 0 : await tx.run(`DELETE FROM group_member_changes WHERE group_name = $1 AND event_id = ANY($2::text[])`, [group, goneMembers]);
      const holdings = goneHoldings.length === 0 ? 0 : await tx.run(`DELETE FROM group_holding_changes WHERE group_name = $1 AND event_id = ANY($2::text[])`, [group, goneHoldings]);
      await refoldGroup(tx, group);
      return { members, holdings };
    });
    deleted.members += n.members;
    deleted.holdings += n.holdings;
  }
  return deleted;
}
