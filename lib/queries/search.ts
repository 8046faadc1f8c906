import type { SqlDriver } from "../store/driver.ts";

export type SearchHit = { bizKey: string; via: "bizKey" | "msgId" | "offsetMsgId" };

/** RocketMQ offsetMsgId: broker address and commit-log offset, 32 hex digits. */
const OFFSET_MSG_ID = /^[0-9A-Fa-f]{32}$/;

/**
 * What the search box was given: a business key (events_biz_key_ts_idx), else a msgId (events_keyed_msg_id_idx),
 * else an offsetMsgId (events_offset_msg_id_idx, partial: only trace records carry one), tried only for input
 * shaped like one.
 */
export async function resolveSearch(driver: SqlDriver, q: string): Promise<SearchHit | null> {
  const [own] = await driver.query(`SELECT 1 FROM events WHERE biz_key = $1 LIMIT 1`, [q]);
  if (own) return { bizKey: q, via: "bizKey" };
  const [byMsgId] = await driver.query<{ biz_key: string }>(`SELECT biz_key FROM events WHERE msg_id = $1 AND biz_key IS NOT NULL LIMIT 1`, [q]);
  if (byMsgId) return { bizKey: byMsgId.biz_key, via: "msgId" };
  if (!OFFSET_MSG_ID.test(q)) return null;
  const [byOffset] = await driver.query<{ biz_key: string }>(`SELECT biz_key FROM events WHERE offset_msg_id = $1 AND biz_key IS NOT NULL LIMIT 1`, [q.toUpperCase()]);
  return byOffset ? { bizKey: byOffset.biz_key, via: "offsetMsgId" } : null;
}

/**
 * Business keys that start with `prefix`, in key order, at most `limit`: what a partial key (an order number's
 * first digits) may have meant. A range of key_diagnoses_pkey (every key the worker has seen, one row each) rather
 * than `LIKE`, which would read `%` and `_` in a key as wildcards and, in a database whose collation is not "C",
 * scan the whole index; `starts_with` keeps the range to true prefixes whatever the collation orders between them.
 */
export async function keysStartingWith(driver: SqlDriver, prefix: string, limit: number): Promise<string[]> {
  if (prefix === "") return [];
  const rows = await driver.query<{ biz_key: string }>(
    `SELECT biz_key FROM key_diagnoses WHERE biz_key >= $1 AND biz_key < $1 || chr(1114111) AND starts_with(biz_key, $1) ORDER BY biz_key LIMIT ${Math.floor(limit)}`,
    [prefix],
  );
  return rows.map((r) => r.biz_key);
}
