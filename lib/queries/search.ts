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
