import type { NormalizedEvent } from "../events/model.ts";
import type { Event as EventRow } from "../generated/prisma/client.ts";
import type { Store } from "./open.ts";

export interface InsertResult {
  accepted: number;
  duplicates: number;
}

/** Rows per INSERT; bounded so one statement's arrays stay a few MB even with large `detail` values. */
const BATCH_ROWS = 2000;

/**
 * Inserts events, skipping any whose id is already stored. Goes around the ORM: one `INSERT … SELECT FROM
 * unnest(…) ON CONFLICT DO NOTHING` per batch sends 18 arrays instead of 18 parameters per row and lets the
 * database report exactly which rows were new, so re-ingest is idempotent and counted.
 */
export async function insertEvents(store: Store, events: NormalizedEvent[]): Promise<InsertResult> {
  let accepted = 0;
  for (let start = 0; start < events.length; start += BATCH_ROWS) {
    const batch = events.slice(start, start + BATCH_ROWS);
    const column = <T>(pick: (e: NormalizedEvent) => T) => batch.map(pick);
    const rows = await store.driver.query<{ id: string }>(
      `INSERT INTO events (id, kind, ts, ts_precision, biz_key, msg_id, offset_msg_id, broker, topic, group_name, queue,
                           queue_offset, instance, retry_times, redelivered, success, detail, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                            $9::text[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::int[], $15::boolean[],
                            $16::boolean[], $17::jsonb[], $18::text[])
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [
        column((e) => e.id),
        column((e) => e.kind),
        column((e) => String(e.ts)),
        column((e) => e.tsPrecision),
        column((e) => e.bizKey),
        column((e) => e.msgId),
        column((e) => e.offsetMsgId),
        column((e) => e.broker),
        column((e) => e.topic),
        column((e) => e.group),
        column((e) => e.queue),
        column((e) => (e.queueOffset === null ? null : String(e.queueOffset))),
        column((e) => e.instance),
        column((e) => e.retryTimes),
        column((e) => e.redelivered),
        column((e) => e.success),
        column((e) => JSON.stringify(e.detail)),
        column((e) => e.source),
      ],
    );
    accepted += rows.length;
  }
  return { accepted, duplicates: events.length - accepted };
}

export interface StoredEvent extends NormalizedEvent {
  ingestedAt: string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    kind: row.kind as NormalizedEvent["kind"],
    ts: Number(row.ts),
    tsPrecision: row.tsPrecision as NormalizedEvent["tsPrecision"],
    bizKey: row.bizKey,
    msgId: row.msgId,
    offsetMsgId: row.offsetMsgId,
    broker: row.broker as NormalizedEvent["broker"],
    topic: row.topic,
    group: row.group,
    queue: row.queue,
    queueOffset: row.queueOffset === null ? null : Number(row.queueOffset),
    instance: row.instance,
    retryTimes: row.retryTimes,
    redelivered: row.redelivered,
    success: row.success,
    detail: row.detail as NormalizedEvent["detail"],
    source: row.source,
    ingestedAt: row.ingestedAt.toISOString(),
  };
}

/** A key's events in time order; ties keep arrival order so a start stays before its end. */
export async function eventsForKey(store: Store, bizKey: string): Promise<StoredEvent[]> {
  const rows = await store.prisma.event.findMany({
    where: { bizKey },
    orderBy: [{ ts: "asc" }, { ingestedAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toStoredEvent);
}
