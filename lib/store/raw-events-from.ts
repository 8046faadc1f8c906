import type { SqlSession } from "./driver.ts";

/**
 * The retention job drops whole partitions of events, and records from when raw events are kept since
 * (RAW_FROM_SETTING): the first line of a group's member or holding interval is still stored when it is not older.
 * One read per statement, where a probe of the events per interval cost 9 ms for a group with 450 open intervals.
 */
export const RAW_FROM_SETTING = "raw_events_from";

/** Whether the interval aliased `m` (since_ts, since_event) began with a line still stored. */
export const sinceRawSql = (m: string) =>
  `(${m}.since_event IS NOT NULL AND ${m}.since_ts >= COALESCE((SELECT value::bigint FROM dupscope_settings WHERE name = '${RAW_FROM_SETTING}'), ${m}.since_ts))`;

/** Records from when raw events are kept (the start of the oldest partition left), for sinceRawSql. */
export async function recordRawEventsFrom(session: SqlSession, from: number): Promise<void> {
  await session.run(`INSERT INTO dupscope_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [RAW_FROM_SETTING, String(from)]);
}
