import type { SqlDriver } from "../store/driver.ts";
import { GAP_BUCKETS_SECONDS } from "./config.ts";

/**
 * Moves settled verdicts into the duplicate counters, in one statement so a crash can neither lose nor repeat a
 * count: the pending rows are taken, each verdict still present is marked counted (once, ever), and its
 * duplicates, leaks and gap bucket are added. Runs at each scrape; a verdict settles when the worker has not
 * rewritten it for `settleMs`.
 */
export async function countSettledVerdicts(driver: SqlDriver, settleMs: number): Promise<number> {
  const rows = await driver.query<{ counted: string | number }>(
    `WITH due AS (
       DELETE FROM metric_verdicts_pending WHERE seen_at <= now() - make_interval(secs => $1::float8 / 1000) RETURNING id
     ), counted AS (
       INSERT INTO metric_verdicts_counted (id)
         SELECT v.id FROM due JOIN verdicts v ON v.id = due.id ORDER BY v.id
       ON CONFLICT (id) DO NOTHING RETURNING id
     ), fresh AS (
       SELECT v.* FROM counted JOIN verdicts v ON v.id = counted.id
     ), tallies AS (
       SELECT 'duplicates' AS n, jsonb_build_object('group', coalesce(group_name, ''), 'topic', coalesce(topic, ''), 'cause', cause, 'outcome', outcome)::text AS l, count(*) AS v
         FROM fresh GROUP BY 1, 2
       UNION ALL
       SELECT 'leaks', jsonb_build_object('group', coalesce(group_name, ''), 'topic', coalesce(topic, ''), 'defect', coalesce(defect, ''))::text, count(*)
         FROM fresh WHERE outcome = 'leaked' GROUP BY 1, 2
       UNION ALL
       SELECT 'gap_bucket', jsonb_build_object('cause', cause, 'le', coalesce(
                (SELECT min(b) FROM unnest($2::float8[]) AS b WHERE b * 1000 >= abs(gap_ms))::text, '+Inf'))::text, count(*)
         FROM fresh GROUP BY 1, 2
       UNION ALL
       SELECT 'gap_ms_sum', jsonb_build_object('cause', cause)::text, sum(abs(gap_ms))
         FROM fresh GROUP BY 1, 2
     ), upserted AS (
       INSERT INTO metric_counters AS c (name, labels, value)
         SELECT n, l, v FROM tallies ORDER BY n, l
       ON CONFLICT (name, labels) DO UPDATE SET value = c.value + EXCLUDED.value
     )
     SELECT count(*) AS counted FROM counted`,
    [settleMs, [...GAP_BUCKETS_SECONDS]],
  );
  return Number(rows[0]?.counted ?? 0);
}
