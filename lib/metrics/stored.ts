import type { SqlDriver } from "../store/driver.ts";

export interface CounterRow {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface SourceFormatRow {
  format: string;
  events: number;
  maxTs: number;
}

/** What waits for the diagnosis workers (lib/diagnosis-queue/queue.ts). */
export interface DiagnosisBacklog {
  /** Queued keys a worker may take now, claimed or not. */
  ready: number;
  /** Queued keys waiting for a rebalance or lifecycle line's marks to settle. */
  settling: number;
  /** Keys named by ingest-journal batches not yet folded into the queue (a key may also be queued). */
  unfolded: number;
  /** Since when the longest-waiting ready key or unfolded batch has waited (ms since epoch); null when none waits. */
  oldestSince: number | null;
}

export interface StoredMetrics {
  counters: CounterRow[];
  formats: SourceFormatRow[];
  diagnosis: DiagnosisBacklog;
}

/** Everything /api/metrics derives from the store: the counters, the per-format ingest totals and the diagnosis backlog. */
export async function readStoredMetrics(driver: SqlDriver): Promise<StoredMetrics> {
  const counters = await driver.query<{ name: string; labels: string; value: string | number }>(`SELECT name, labels, value FROM metric_counters ORDER BY name, labels`);
  const formats = await driver.query<{ format: string; events: string | number; max_ts: string | number }>(
    `SELECT format, sum(events) AS events, max(max_ts) AS max_ts FROM ingest_sources GROUP BY format ORDER BY format`,
  );
  // The oldest waits come from the queue's enqueued_at index and the journal's primary key; the counts walk the two
  // tables, which the workers keep to what they have not yet done.
  const [backlog] = await driver.query<{ ready: string | number; settling: string | number; unfolded: string | number; oldest: string | number | null }>(
    `SELECT (SELECT count(*) FROM diagnosis_queue WHERE enqueued_at <= now()) AS ready,
            (SELECT count(*) FROM diagnosis_queue WHERE enqueued_at > now()) AS settling,
            (SELECT coalesce(sum(cardinality(keys)), 0) FROM ingest_journal) AS unfolded,
            floor(extract(epoch FROM least(
              (SELECT min(enqueued_at) FROM diagnosis_queue WHERE enqueued_at <= now()),
              (SELECT written_at FROM ingest_journal ORDER BY id LIMIT 1))) * 1000) AS oldest`,
  );
  return {
    counters: counters.map((r) => ({ name: r.name, labels: JSON.parse(r.labels) as Record<string, string>, value: Number(r.value) })),
    formats: formats.map((r) => ({ format: r.format, events: Number(r.events), maxTs: Number(r.max_ts) })),
    diagnosis: {
      ready: Number(backlog!.ready),
      settling: Number(backlog!.settling),
      unfolded: Number(backlog!.unfolded),
      oldestSince: backlog!.oldest === null ? null : Number(backlog!.oldest),
    },
  };
}
