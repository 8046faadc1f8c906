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

export interface StoredMetrics {
  counters: CounterRow[];
  formats: SourceFormatRow[];
}

/** Everything /api/metrics derives from the store: the counters and the per-format ingest totals. */
export async function readStoredMetrics(driver: SqlDriver): Promise<StoredMetrics> {
  const counters = await driver.query<{ name: string; labels: string; value: string | number }>(`SELECT name, labels, value FROM metric_counters ORDER BY name, labels`);
  const formats = await driver.query<{ format: string; events: string | number; max_ts: string | number }>(
    `SELECT format, sum(events) AS events, max(max_ts) AS max_ts FROM ingest_sources GROUP BY format ORDER BY format`,
  );
  return {
    counters: counters.map((r) => ({ name: r.name, labels: JSON.parse(r.labels) as Record<string, string>, value: Number(r.value) })),
    formats: formats.map((r) => ({ format: r.format, events: Number(r.events), maxTs: Number(r.max_ts) })),
  };
}
