import { foldHoldings, type HoldingChange, type HoldingClosedBy, type HoldingInterval, type QueueProbe } from "../diagnosis/holdings.ts";
import type { MemberChange } from "../diagnosis/members.ts";
import type { PreparedStatement, SqlDriver, SqlSession } from "./driver.ts";
import { sinceRawSql } from "./raw-events-from.ts";
import { spanOfRow, type IntervalSpanRow } from "./interval-rows.ts";

/**
 * The store's side of who held which queue (lib/diagnosis/holdings.ts): the lines' changes are kept in
 * group_holding_changes, which outlives the raw events, and each group's intervals in group_holdings are what
 * foldHoldings makes of all of them with the group's member changes. They are written where the members are
 * (lib/store/group-members.ts, refoldGroup), under the same lock, whenever either kind of change of the group is new.
 */

interface ChangeRow {
  group_name: string;
  event_id: string;
  ts: string | number;
  coarse: boolean;
  change: HoldingChange["change"];
  holder: string;
  topic: string | null;
  queue: string | null;
  queues: string[] | null;
}

const changeOfRow = (r: ChangeRow): HoldingChange => ({
  eventId: r.event_id,
  ts: Number(r.ts),
  coarse: r.coarse,
  group: r.group_name,
  change: r.change,
  holder: r.holder,
  topic: r.topic,
  queue: r.queue,
  queues: r.queues,
});

/** Stores these changes (one already stored is left as it is); returns the groups with new ones, for the caller to fold. */
export async function insertHoldingChanges(session: SqlSession, changes: readonly HoldingChange[]): Promise<string[]> {
  if (changes.length === 0) return [];
  const col = <T>(pick: (c: HoldingChange) => T) => changes.map(pick);
  // A set's queues travel as one JSON text per change: unnest cannot take an array of arrays of uneven length.
  const inserted = await session.query<{ group_name: string }>(
    `INSERT INTO group_holding_changes (group_name, event_id, ts, coarse, change, holder, topic, queue, queues)
       SELECT g, e, t, c, ch, h, tp, q, CASE WHEN qs IS NULL THEN NULL ELSE ARRAY(SELECT json_array_elements_text(qs::json)) END
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         AS u(g, e, t, c, ch, h, tp, q, qs) ORDER BY 1, 2
     ON CONFLICT (group_name, event_id) DO NOTHING RETURNING group_name`,
    [
      col((c) => c.group),
      col((c) => c.eventId),
      col((c) => String(c.ts)),
      col((c) => c.coarse),
      col((c) => c.change),
      col((c) => c.holder),
      col((c) => c.topic),
      col((c) => c.queue),
      col((c) => (c.queues === null ? null : JSON.stringify(c.queues))),
    ],
  );
  return [...new Set(inserted.map((r) => r.group_name))];
}

/** A group's stored holding changes; `forUpdate` locks them for the retention's rewrite. */
export async function holdingChangesOf(session: SqlSession, group: string, forUpdate = false): Promise<HoldingChange[]> {
  const rows = await session.query<ChangeRow>(`SELECT * FROM group_holding_changes WHERE group_name = $1${forUpdate ? " FOR UPDATE" : ""}`, [group]);
  return rows.map(changeOfRow);
}

/** Rewrites a group's holdings from all of its holding changes and its members' changes; the caller holds the group's lock. */
export async function rewriteHoldings(session: SqlSession, group: string, members: readonly MemberChange[]): Promise<void> {
  const intervals = foldHoldings(await holdingChangesOf(session, group), members);
  await session.run(`DELETE FROM group_holdings WHERE group_name = $1`, [group]);
  if (intervals.length === 0) return;
  const col = <T>(pick: (i: HoldingInterval) => T) => intervals.map(pick);
  await session.run(
    `INSERT INTO group_holdings (group_name, n, topic, queue, holder, since_ts, since_event, since_coarse, until_ts, until_event, closed_by)
       SELECT $1, n::int - 1, topic, queue, holder, since_ts, since_event, since_coarse, until_ts, until_event, closed_by
       FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::boolean[], $8::bigint[], $9::text[], $10::text[])
         WITH ORDINALITY AS u(topic, queue, holder, since_ts, since_event, since_coarse, until_ts, until_event, closed_by, n)`,
    [
      group,
      col((i) => i.topic),
      col((i) => i.queue),
      col((i) => i.holder),
      col((i) => (i.since === null ? null : String(i.since))),
      col((i) => i.sinceEvent),
      col((i) => i.sinceCoarse),
      col((i) => (i.until === null ? null : String(i.until))),
      col((i) => i.untilEvent),
      col((i) => i.closedBy),
    ],
  );
}

interface IntervalRow extends IntervalSpanRow<HoldingClosedBy> {
  group_name: string;
  topic: string;
  queue: string;
  holder: string;
}

const intervalOfRow = (r: IntervalRow): HoldingInterval => ({
  group: r.group_name,
  topic: r.topic,
  queue: r.queue,
  holder: r.holder,
  ...spanOfRow(r),
});

/**
 * For each (group, topic, queue, from, to): the queue's holdings that overlap [from, to], the open ones and those
 * that ended after `from` each one index range, once however many probes of the batch's keys overlap it (LATERAL, as MEMBERS in lib/store/group-members.ts, so a generic plan
 * stays an index scan). A queue has one holder at a time, so each probe reads a handful of rows.
 */
export const HOLDINGS: PreparedStatement = {
  name: "dupscope_key_holdings",
  text: `SELECT DISTINCT ON (m.group_name, m.n) m.*, ${sinceRawSql("m")} AS since_raw
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS q(group_name, topic, queue, from_ts, to_ts)
    CROSS JOIN LATERAL (
      (SELECT * FROM group_holdings y WHERE y.group_name = q.group_name AND y.topic = q.topic AND y.queue = q.queue AND y.until_ts IS NULL
         AND (y.since_ts IS NULL OR y.since_ts <= q.to_ts) OFFSET 0)
      UNION ALL
      (SELECT * FROM group_holdings y WHERE y.group_name = q.group_name AND y.topic = q.topic AND y.queue = q.queue AND y.until_ts >= q.from_ts
         AND (y.since_ts IS NULL OR y.since_ts <= q.to_ts) OFFSET 0)) m`,
};

export async function readHoldings(driver: SqlDriver, probes: readonly (QueueProbe & { from: number; to: number })[]): Promise<HoldingInterval[]> {
  if (probes.length === 0) return [];
  const rows = await driver.prepared<IntervalRow>(HOLDINGS, [
    probes.map((p) => p.group),
    probes.map((p) => p.topic),
    probes.map((p) => p.queue),
    probes.map((p) => String(p.from)),
    probes.map((p) => String(p.to)),
  ]);
  return rows.map(intervalOfRow);
}
