import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";

export interface IngestResults {
  duplicates: number;
  /** Every refused record, including the out-of-window ones. */
  rejected: number;
  /** Refused for their time: older than the raw-event retention, or more than a day ahead. */
  outOfWindow?: number;
}

/**
 * Counts what only the server's ingest routes know: records that were already stored and records it refused.
 * Accepted events are counted when the diagnosis workers fold the ingest journal, for every writer. A failure here
 * must not fail the ingest whose events are already stored, so it is logged and dropped.
 */
export async function recordIngestResults(driver: SqlDriver, format: string, results: IngestResults): Promise<void> {
  const outOfWindow = results.outOfWindow ?? 0;
  const rows = [
    { result: "duplicate", value: results.duplicates },
    { result: "rejected", value: results.rejected - outOfWindow },
    { result: "out_of_window", value: outOfWindow },
  ].filter((r) => r.value > 0);
  if (rows.length === 0) return;
  try {
    await driver.run(
      `INSERT INTO metric_counters AS c (name, labels, value)
         SELECT 'ingest_events', jsonb_build_object('format', $1::text, 'result', r)::text, v FROM unnest($2::text[], $3::bigint[]) AS u(r, v) ORDER BY 2
       ON CONFLICT (name, labels) DO UPDATE SET value = c.value + EXCLUDED.value`,
      [format, rows.map((r) => r.result), rows.map((r) => String(r.value))],
    );
  } catch (error) {
    logger.warn({ err: error, format }, "could not count ingest results");
  }
}
