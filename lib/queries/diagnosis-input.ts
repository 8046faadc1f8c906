import type { NormalizedEvent } from "../events/model.ts";
import type { DiagnosisInput } from "../diagnosis/types.ts";
import { BatchContext } from "../diagnosis/batch-context.ts";
import { mayPairDeliveries } from "../diagnosis/diagnose.ts";
import { holdingsFor, queuesOf, type HoldingInterval } from "../diagnosis/holdings.ts";
import { membersFor, membersSpan } from "../diagnosis/members.ts";
import { CONTEXT_KINDS, contextScope, mergeWindows, msgIdsOf, type ContextScope, type ContextWindow } from "../diagnosis/scope.ts";
import type { PreparedStatement, SqlDriver } from "../store/driver.ts";
import { readHoldings } from "../store/group-holdings.ts";
import { readMembers, type StoredInterval } from "../store/group-members.ts";
import { byTime, EVENT_SELECT, eventFromSql, type EventRowSql } from "../store/event-rows.ts";

/** Context rows read per merged window at most; a rebalance storm beyond this is cut, and the input says so. */
export const CONTEXT_ROW_LIMIT = 20_000;

export interface StoredDiagnosisInput extends DiagnosisInput {
  contextTruncated: boolean;
}

/**
 * A lookup pays a round trip per statement, and on a busy server that costs more than the indexed reads, so each
 * step below is one statement. Each is prepared: none can name the partitions it needs when it is planned, and
 * planning one for every partition cost more than running it (lib/store/driver.ts).
 *
 * A generic plan lasts as long as its connection, and nothing makes it again while a new partition fills: whatever it
 * chose for a partition that was empty when it was made, it keeps. So every read here is one index probe per value
 * (LATERAL; `OFFSET 0` keeps the planner from flattening it into a join it may hash), for which an index scan is the
 * cheapest path at any size. With `biz_key = ANY($1)` the planner chose a sequential scan of the young partition,
 * which then compared each of its rows with every key of the step: under bench:soak a 1,000-key step took seconds
 * once the current partition held a few hundred thousand rows (tests/integration/diagnosis-input.test.ts).
 *
 * First the keys' own events, each key's from the time $2 gives it on (the earliest bigint for a key read whole), with
 * the keyless events that name one of their msgIds. The bound is a parameter of each probe, so PostgreSQL leaves out
 * the partitions before it as the probe runs, not only the rows. The msgIds' keyless events are read at any time: with
 * the bound beside `msg_id = …`, a generic plan chose the keyless events' (group, ts) index for a range from the bound,
 * every keyless line since then in the partition, and such events are few (each probe reads a small partial index).
 */
const KEY_EVENTS: PreparedStatement = {
  name: "dupscope_key_events",
  text: `WITH own AS (
    SELECT e.* FROM unnest($1::text[], $2::bigint[]) AS k(key, from_ts)
      CROSS JOIN LATERAL (SELECT ${EVENT_SELECT} FROM events WHERE biz_key = k.key AND ts >= k.from_ts OFFSET 0) e)
  SELECT * FROM own
  UNION ALL
  SELECT e.* FROM (SELECT DISTINCT msg_id FROM own WHERE msg_id IS NOT NULL) m
    CROSS JOIN LATERAL (SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND msg_id = m.msg_id OFFSET 0) e`,
};

/** The earliest bigint: a key without a bound is read from any time. */
const ANY_TIME = "-9223372036854775808";

/**
 * Then every merged window's keyless context: one range of events_keyless_group_ts_idx per window (LATERAL), in
 * time order and cut one row past the limit, so a window that was cut is recognised. A null group stands for the
 * keyless events without one; it gets its own branch because `IS NOT DISTINCT FROM` cannot use an index. Lines
 * about another message's consumption (scope.ts, otherMessageKeys) stay in the database unless they name one of the
 * batch's keys ($5): contextOf applies the rule per key.
 */
const NOT_CONTEXT_KINDS = `e.kind <> ALL(ARRAY[${[...CONTEXT_KINDS].map((k) => `'${k}'`).join(", ")}])`;
const windowContext = (groupMatch: string) => `CROSS JOIN LATERAL (
    SELECT ${EVENT_SELECT} FROM events e
    WHERE e.biz_key IS NULL AND ${groupMatch} AND e.ts BETWEEN w.from_ts AND w.to_ts
      AND NOT COALESCE(${NOT_CONTEXT_KINDS} AND jsonb_typeof(e.detail->'keys') = 'array' AND jsonb_array_length(e.detail->'keys') > 0
                        AND NOT (e.detail->'keys') ?| $5::text[], false)
    ORDER BY e.ts LIMIT ${CONTEXT_ROW_LIMIT + 1}) c`;
const CONTEXT: PreparedStatement = {
  name: "dupscope_key_context",
  text: `SELECT w.n::int AS window_no, c.*
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS w(group_name, from_ts, to_ts, n)
    ${windowContext("e.group_name = w.group_name")}
    WHERE w.group_name IS NOT NULL
  UNION ALL
  SELECT w.n::int AS window_no, c.*
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS w(group_name, from_ts, to_ts, n)
    ${windowContext("e.group_name IS NULL AND ltrim(e.instance) LIKE ANY($4::text[])")}
    WHERE w.group_name IS NULL`,
};

/**
 * Keyless events without a group belong to a key's context only from its hosts (scope.ts). A host is always a
 * prefix of the instance it was derived from (lib/events/instance.ts), so `LIKE host%` keeps every row that can
 * match and drops the other producers' lines in SQL; contextOf then applies the exact rule per key.
 */
const hostPrefix = (host: string) => `${host.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

interface GroupWindow extends ContextWindow {
  group: string | null;
}

/** Merges the keys' context windows per group, so a batch of keys reads one index range per busy stretch of a group. */
function mergedWindows(scopes: ContextScope[]): GroupWindow[] {
  const byGroup = new Map<string | null, ContextWindow[]>();
  for (const scope of scopes) {
    // Keyless events without a group (producer resends, lifecycle lines) are looked up by time and host.
    for (const group of [...scope.groups, null]) {
      const list = byGroup.get(group) ?? [];
      list.push(...scope.windows);
      byGroup.set(group, list);
    }
  }
  return [...byGroup].flatMap(([group, windows]) => mergeWindows(windows).map((w) => ({ group, ...w })));
}

function pushTo<K>(map: Map<K, NormalizedEvent[]>, key: K, event: NormalizedEvent): void {
  const list = map.get(key);
  if (list) list.push(event);
  else map.set(key, [event]);
}

async function loadContext(driver: SqlDriver, windows: GroupWindow[], hosts: string[], bizKeys: string[]): Promise<{ context: NormalizedEvent[]; truncated: boolean }> {
  if (windows.length === 0) return { context: [], truncated: false };
  const rows = await driver.prepared<EventRowSql & { window_no: number }>(CONTEXT, [
    windows.map((w) => w.group),
    windows.map((w) => w.from),
    windows.map((w) => w.to),
    hosts.map(hostPrefix),
    bizKeys,
  ]);
  const byWindow = new Map<number, NormalizedEvent[]>();
  for (const row of rows) pushTo(byWindow, row.window_no, eventFromSql(row));
  const context: NormalizedEvent[] = [];
  let truncated = false;
  for (const events of byWindow.values()) {
    if (events.length > CONTEXT_ROW_LIMIT) {
      truncated = true;
      // The same rows as ORDER BY ts LIMIT would keep.
      events.sort(byTime);
      events.length = CONTEXT_ROW_LIMIT;
    }
    context.push(...events);
  }
  return { context: context.sort(byTime), truncated };
}

/**
 * Reads what diagnosis needs for these keys, selected as lib/diagnosis/scope.ts defines: each key's events plus
 * keyless events naming its msgIds, and the keyless context around them. Keys without events are left out.
 * `eventsFrom` bounds some keys: their own events are read from that time on, which the caller knows to hold all of
 * them (lib/diagnosis-queue/queue.ts, eventsBounds); other keys are read whole.
 */
export async function loadDiagnosisInputs(driver: SqlDriver, bizKeys: string[], eventsFrom?: ReadonlyMap<string, number>): Promise<StoredDiagnosisInput[]> {
  if (bizKeys.length === 0) return [];
  const eventsByKey = new Map<string, NormalizedEvent[]>();
  const keylessByMsgId = new Map<string, NormalizedEvent[]>();
  const from = bizKeys.map((k) => {
    const ts = eventsFrom?.get(k);
    return ts === undefined ? ANY_TIME : String(ts);
  });
  for (const row of await driver.prepared<EventRowSql>(KEY_EVENTS, [bizKeys, from])) {
    const e = eventFromSql(row);
    if (e.bizKey !== null) pushTo(eventsByKey, e.bizKey, e);
    else pushTo(keylessByMsgId, e.msgId!, e);
  }
  const keyEvents = new Map<string, NormalizedEvent[]>();
  const scopes = new Map<string, ContextScope>();
  for (const [key, events] of eventsByKey) {
    const extra = msgIdsOf(events).flatMap((id) => keylessByMsgId.get(id) ?? []);
    const all = [...events, ...extra].sort(byTime);
    keyEvents.set(key, all);
    scopes.set(key, contextScope(all)!);
  }

  const hosts = [...new Set([...scopes.values()].flatMap((scope) => scope.hosts))];
  // The groups' state is asked about by pairs of deliveries only: most keys have none and read none of it.
  const paired = new Set([...keyEvents].filter(([key, events]) => mayPairDeliveries(key, events)).map(([key]) => key));
  const pairedScopes = [...scopes].filter(([key]) => paired.has(key));
  // One probe per group and key span: a batch's keys of a group mostly share it.
  const probes = new Map<string, { group: string; from: number; to: number }>();
  // And one per queue the key was delivered from and span: who held it (lib/diagnosis/holdings.ts).
  const queueProbes = new Map<string, { group: string; topic: string; queue: string; from: number; to: number }>();
  for (const [key, scope] of pairedScopes) {
    const events = keyEvents.get(key)!;
    const span = membersSpan(events);
    for (const group of scope.groups) probes.set(`${group}\u0000${span.from}\u0000${span.to}`, { group, ...span });
    for (const q of queuesOf(events)) queueProbes.set(`${q.group}\u0000${q.topic}\u0000${q.queue}\u0000${span.from}\u0000${span.to}`, { ...q, ...span });
  }
  const [{ context, truncated }, members, holdings] = await Promise.all([
    loadContext(driver, mergedWindows([...scopes.values()]), hosts, [...scopes.keys()]),
    readMembers(driver, [...probes.values()], [...new Set(pairedScopes.flatMap(([, scope]) => scope.hosts))], [...new Set(pairedScopes.flatMap(([, scope]) => scope.processes))]),
    readHoldings(driver, [...queueProbes.values()]),
  ]);
  const holdingsByGroup = new Map<string, HoldingInterval[]>();
  for (const h of holdings) {
    const list = holdingsByGroup.get(h.group);
    if (list) list.push(h);
    else holdingsByGroup.set(h.group, [h]);
  }
  const byGroup = new Map<string, StoredInterval[]>();
  const seen = new Set<string>();
  for (const m of members) {
    const id = `${m.group}\u0000${m.sinceEvent}\u0000${m.untilEvent}\u0000${m.member}\u0000${m.via}\u0000${m.remote}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const list = byGroup.get(m.group);
    if (list) list.push(m);
    else byGroup.set(m.group, [m]);
  }
  const batch = new BatchContext(context);
  return bizKeys.flatMap((bizKey) => {
    const events = keyEvents.get(bizKey);
    if (!events) return [];
    const scope = scopes.get(bizKey)!;
    if (!paired.has(bizKey)) return [{ bizKey, events, context: batch.of(events, scope), contextTruncated: truncated }];
    const candidates = scope.groups.flatMap((g) => byGroup.get(g) ?? []);
    const span = membersSpan(events);
    const queues = queuesOf(events);
    const held = holdingsFor([...new Set(queues.map((q) => q.group))].flatMap((g) => holdingsByGroup.get(g) ?? []), queues, span);
    return [{ bizKey, events, context: batch.of(events, scope), members: membersFor(candidates, scope.groups, span, scope), holdings: held, contextTruncated: truncated }];
  });
}
