import type { NormalizedEvent } from "../events/model.ts";

/** The columns of `events` as raw SQL returns them; BIGINTs arrive as strings from pg and as numbers from PGlite. */
export interface EventRowSql {
  id: string;
  kind: string;
  ts: string | number | bigint;
  ts_precision: string;
  biz_key: string | null;
  msg_id: string | null;
  offset_msg_id: string | null;
  broker: string;
  topic: string | null;
  group_name: string | null;
  queue: string | null;
  queue_offset: string | number | bigint | null;
  instance: string | null;
  retry_times: number | null;
  redelivered: boolean | null;
  success: boolean | null;
  detail: unknown;
  source: string;
}

export const EVENT_SELECT = `id, kind, ts, ts_precision, biz_key, msg_id, offset_msg_id, broker, topic, group_name, queue, queue_offset,
  instance, retry_times, redelivered, success, detail, source`;

export function eventFromSql(row: EventRowSql): NormalizedEvent {
  return {
    id: row.id,
    kind: row.kind as NormalizedEvent["kind"],
    ts: Number(row.ts),
    tsPrecision: row.ts_precision as NormalizedEvent["tsPrecision"],
    bizKey: row.biz_key,
    msgId: row.msg_id,
    offsetMsgId: row.offset_msg_id,
    broker: row.broker as NormalizedEvent["broker"],
    topic: row.topic,
    group: row.group_name,
    queue: row.queue,
    queueOffset: row.queue_offset === null ? null : Number(row.queue_offset),
    instance: row.instance,
    retryTimes: row.retry_times,
    redelivered: row.redelivered,
    success: row.success,
    detail: (typeof row.detail === "string" ? JSON.parse(row.detail) : row.detail) as NormalizedEvent["detail"],
    source: row.source,
  };
}

export function byTime(a: NormalizedEvent, b: NormalizedEvent): number {
  return a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
