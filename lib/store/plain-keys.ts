import { fromStored, isOneDelivery, mergePlain, storedPlain, type PlainSummary, type StoredPlain } from "../diagnosis/plain.ts";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS, mergeWindows, type ContextWindow } from "../diagnosis/scope.ts";
import { rawEventsFrom } from "../queries/retention.ts";
import type { SqlSession } from "./driver.ts";

/**
 * Writes the rows of keys delivered once (lib/diagnosis/plain.ts) in the fold, instead of queueing them for a worker
 * to read their events back and diagnose them to the same empty result: nearly every key, and most of what a
 * worker's step cost (docs/performance-log.md#keys-delivered-once). A key is settled here only when the journal's
 * summary is all there is to it:
 * - no queue row: a worker may be diagnosing it, or will, from all its events;
 * - a stored row only if it was settled here too (key_diagnoses.plain), its events all still kept, and the summaries
 *   together still one delivery; a row a worker wrote has no summary, and its key goes back to a worker;
 * - no keyless line stored before names its msgId (such a line is one of the key's own events) or lists it in
 *   detail.keys within its context's time (selectKeyEvents reads that line as one of its events too). A line stored
 *   later queues the key in its own fold, and a worker then diagnoses it whole.
 * The row is written only if it is still as read (a fold or worker that wrote it meanwhile wins; the key is queued).
 * Returns the keys settled; the caller queues the others.
 */
export async function settlePlainKeys(session: SqlSession, candidates: ReadonlyMap<string, PlainSummary>): Promise<Set<string>> {
  if (candidates.size === 0) return new Set();
  const keys = [...candidates.keys()].sort();
  const blocked = new Set<string>();
  const stored = new Map<string, { plain: StoredPlain | null; groups: string[]; topics: string[]; first: number; last: number }>();
  const rows = await session.query<{ biz_key: string; queued: boolean; plain: StoredPlain | string | null; groups: string[] | null; topics: string[] | null; first_ts: string | null; last_ts: string | null }>(
    `SELECT biz_key, true AS queued, NULL::jsonb AS plain, NULL::text[] AS groups, NULL::text[] AS topics, NULL::bigint AS first_ts, NULL::bigint AS last_ts
       FROM diagnosis_queue WHERE biz_key = ANY($1::text[])
     UNION ALL
     SELECT biz_key, false, plain, groups, topics, first_ts, last_ts FROM key_diagnoses WHERE biz_key = ANY($1::text[])`,
    [keys],
  );
  for (const r of rows) {
    if (r.queued) blocked.add(r.biz_key);
    else {
      const plain = typeof r.plain === "string" ? (JSON.parse(r.plain) as StoredPlain) : r.plain;
      stored.set(r.biz_key, { plain, groups: r.groups ?? [], topics: r.topics ?? [], first: Number(r.first_ts), last: Number(r.last_ts) });
    }
  }
  const keptFrom = [...stored.values()].some((s) => s.plain !== null) ? await rawEventsFrom(session) : null;
  const settle = new Map<string, { summary: PlainSummary; was: StoredPlain | null }>();
  for (const key of keys) {
    if (blocked.has(key)) continue;
    const fresh = candidates.get(key)!;
    const row = stored.get(key);
    if (row === undefined) {
      if (isOneDelivery(fresh)) settle.set(key, { summary: fresh, was: null });
      continue;
    }
    if (row.plain === null || keptFrom === null || row.first < keptFrom) continue;
    const merged = mergePlain(fromStored(row, row.plain), fresh);
    if (merged !== null && isOneDelivery(merged)) settle.set(key, { summary: merged, was: row.plain });
  }
  for (const key of await keysNamedByLines(session, settle)) settle.delete(key);
  if (settle.size === 0) return new Set();

  const values = (entries: [string, { summary: PlainSummary; was: StoredPlain | null }][]) =>
    JSON.stringify(entries.map(([k, { summary: s, was }]) => ({ k, g: s.groups, t: s.topics, f: s.first, l: s.last, p: storedPlain(s), w: was })));
  const fresh = [...settle].filter(([, s]) => s.was === null);
  const merged = [...settle].filter(([, s]) => s.was !== null);
  const settled = new Set<string>();
  // In key order, as the workers' saves write theirs.
  if (fresh.length > 0) {
    const inserted = await session.query<{ biz_key: string }>(
      `INSERT INTO key_diagnoses (biz_key, groups, topics, first_ts, last_ts, duplicates, leaked, lost, normal_retries, diagnosis, diagnosed_at, plain)
         SELECT k, g, t, f, l, 0, 0, 0, 0, NULL, now(), p FROM jsonb_to_recordset($1::jsonb) AS u(k text, g text[], t text[], f bigint, l bigint, p jsonb) ORDER BY k
       ON CONFLICT (biz_key) DO NOTHING RETURNING biz_key`,
      [values(fresh)],
    );
    for (const r of inserted) settled.add(r.biz_key);
  }
  if (merged.length > 0) {
    const updated = await session.query<{ biz_key: string }>(
      `UPDATE key_diagnoses d SET groups = u.g, topics = u.t, first_ts = u.f, last_ts = u.l, plain = u.p, diagnosed_at = now()
         FROM (SELECT * FROM jsonb_to_recordset($1::jsonb) AS u(k text, g text[], t text[], f bigint, l bigint, p jsonb, w jsonb) ORDER BY k) u
        WHERE d.biz_key = u.k AND d.plain = u.w
       RETURNING d.biz_key`,
      [values(merged)],
    );
    for (const r of updated) settled.add(r.biz_key);
  }
  return settled;
}

/**
 * Of these keys, those a stored keyless line names: by msgId, or in detail.keys within the time of the key's
 * context. The context's lines are of the key's groups, or without a group from its hosts; every line without a
 * group is read here, which can only leave a key to the worker that needed none.
 */
async function keysNamedByLines(session: SqlSession, settle: ReadonlyMap<string, { summary: PlainSummary }>): Promise<Set<string>> {
  if (settle.size === 0) return new Set();
  const byGroup = new Map<string | null, ContextWindow[]>();
  const msgIds = new Map<string, string[]>();
  for (const [key, { summary }] of settle) {
    const window = { from: summary.first - CONTEXT_BEFORE_MS, to: summary.last + CONTEXT_AFTER_MS };
    for (const group of [...summary.groups, null]) {
      const list = byGroup.get(group) ?? [];
      list.push(window);
      byGroup.set(group, list);
    }
    msgIds.set(summary.msgId, [...(msgIds.get(summary.msgId) ?? []), key]);
  }
  const windows = [...byGroup].flatMap(([group, list]) => mergeWindows(list).map((w) => ({ group, ...w })));
  // A LATERAL range per window, as the worker reads context (lib/queries/diagnosis-input.ts); only lines with a
  // detail.keys list come back, and of them only the keys they list.
  const named = await session.query<{ how: "key" | "msg"; v: string }>(
    `SELECT DISTINCT 'key' AS how, x.k AS v FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS w(group_name, from_ts, to_ts)
       CROSS JOIN LATERAL (
         SELECT e.detail FROM events e
          WHERE e.biz_key IS NULL AND e.group_name = w.group_name AND e.ts BETWEEN w.from_ts AND w.to_ts AND jsonb_typeof(e.detail->'keys') = 'array'
         UNION ALL
         SELECT e.detail FROM events e
          WHERE w.group_name IS NULL AND e.biz_key IS NULL AND e.group_name IS NULL AND e.ts BETWEEN w.from_ts AND w.to_ts
            AND jsonb_typeof(e.detail->'keys') = 'array'
         OFFSET 0) l
       CROSS JOIN LATERAL jsonb_array_elements_text(l.detail->'keys') AS x(k)
     UNION
     SELECT 'msg', msg_id FROM events WHERE biz_key IS NULL AND msg_id = ANY($4::text[])`,
    [windows.map((w) => w.group), windows.map((w) => w.from), windows.map((w) => w.to), [...msgIds.keys()]],
  );
  const out = new Set<string>();
  for (const { how, v } of named) {
    if (how === "msg") for (const key of msgIds.get(v) ?? []) out.add(key);
    else if (settle.has(v)) out.add(v);
  }
  return out;
}
