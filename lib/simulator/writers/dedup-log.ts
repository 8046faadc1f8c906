import type { DedupRecord } from "../records.ts";

/** Dedup log v1 (docs/dedup-log.md): one JSON object per line, `ts` in epoch ms as logstash's encoder writes it. */
export function formatDedupRecord(record: DedupRecord): string {
  return JSON.stringify({
    ts: record.ts,
    bizKey: record.bizKey,
    msgId: record.msgId,
    group: record.group,
    topic: record.topic,
    instance: record.instance,
    layer: record.layer,
    decision: record.decision,
    retryTimes: record.retryTimes,
    queueId: record.queueId,
    queueOffset: record.queueOffset,
    ...(record.dedupKey === undefined ? {} : { dedupKey: record.dedupKey }),
    ...(record.ttlMs === undefined ? {} : { ttlMs: record.ttlMs }),
    ...(record.error === undefined ? {} : { error: record.error }),
  });
}
