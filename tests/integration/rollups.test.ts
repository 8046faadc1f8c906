import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadDemoDay } from "../../lib/demo/load.ts";
import { CAUSES } from "../../lib/diagnosis/vocabulary.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { parseFilters, type Filters } from "../../lib/queries/filters.ts";
import { dedupFunnel, duplicatesByCause, EPISODE_MS, filterChoices, gapHistogram, outcomesOverTime, OWNERSHIP_ACTIONS, topByRate, totals } from "../../lib/queries/overview.ts";
import { groupSummaries } from "../../lib/queries/groups.ts";
import { fromRollups } from "../../lib/queries/sql.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The overview and the groups list answer ranges of an hour and longer from the rollups the triggers keep, shorter ones from the
 * verdicts. Both must tell the same story: every widget is computed both ways over the same whole-minute range and
 * compared, after the worker wrote the verdicts and again after it rewrote all of them.
 */

const NOW = Date.UTC(2026, 11, 1, 9, 30);
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The same range charted by the minute (rollups) and by 30 s (verdicts). */
function bothWays(sp: Record<string, string>): { rollups: Filters; verdicts: Filters } {
  const base = parseFilters({ range: "custom", from: String(NOW - 7 * HOUR), to: String(NOW - 1), ...sp }, NOW);
  const rollups = { ...base, bucketMs: MINUTE };
  const verdicts = { ...base, bucketMs: 30_000 };
  assert.ok(fromRollups(rollups) && !fromRollups(verdicts));
  return { rollups, verdicts };
}

/** A 30 s series summed into minutes, to compare with the per-minute one. */
function perMinute<T extends { t: number }>(points: T[], keys: readonly (keyof T)[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const p of points) {
    const minute = Math.floor(p.t / MINUTE) * MINUTE;
    const sums = out.get(minute) ?? keys.map(() => 0);
    keys.forEach((k, i) => (sums[i]! += Number(p[k])));
    out.set(minute, sums);
  }
  for (const [minute, sums] of out) if (sums.every((n) => n === 0)) out.delete(minute);
  return out;
}


for (const backend of backends) {
  describe(`overview rollups on ${backend.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    /** Each filter alone, and all three at once on the most common combination. */
    let filters: Record<string, string>[];

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      store = await openStore(created.config);
      await loadDemoDay({ now: NOW, hours: 6, runs: 2, scale: 0.5, sink: driverSink(store.driver) });
      await drainQueue(store.driver);
      const [common] = await store.driver.query<{ group_name: string; topic: string; cause: string }>(
        `SELECT group_name, topic, cause FROM verdicts WHERE group_name IS NOT NULL AND topic IS NOT NULL GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 2, 3 LIMIT 1`,
      );
      filters = [{}, { group: "cg_order_paid" }, { topic: "order_paid" }, { cause: "rebalance" }, { group: common!.group_name, topic: common!.topic, cause: common!.cause }];
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    async function assertSameStory(label: string): Promise<void> {
      for (const sp of filters) {
        const what = `${label}, filters ${JSON.stringify(sp)}`;
        const { rollups, verdicts } = bothWays(sp);
        assert.deepEqual(await totals(store.driver, rollups), await totals(store.driver, verdicts), `totals: ${what}`);
        assert.deepEqual(await dedupFunnel(store.driver, rollups), await dedupFunnel(store.driver, verdicts), `funnel: ${what}`);
        assert.deepEqual(await gapHistogram(store.driver, rollups), await gapHistogram(store.driver, verdicts), `gap bins: ${what}`);
        assert.deepEqual(await groupSummaries(store.driver, rollups), await groupSummaries(store.driver, verdicts), `groups page: ${what}`);
        for (const by of ["group", "topic"] as const) {
          assert.deepEqual(await topByRate(store.driver, rollups, by, 50), await topByRate(store.driver, verdicts, by, 50), `top ${by}s: ${what}`);
        }
        const causeKeys = [...CAUSES, "rebalances"] as const;
        assert.deepEqual(
          perMinute(await duplicatesByCause(store.driver, rollups), causeKeys),
          perMinute(await duplicatesByCause(store.driver, verdicts), causeKeys),
          `duplicates by cause: ${what}`,
        );
        const outcomeKeys = ["caught", "leaked", "unknown"] as const;
        assert.deepEqual(
          perMinute(await outcomesOverTime(store.driver, rollups), outcomeKeys),
          perMinute(await outcomesOverTime(store.driver, verdicts), outcomeKeys),
          `outcomes: ${what}`,
        );
      }
    }

    it("every widget reads the same from the rollups as from the verdicts", async () => {
      const t = await totals(store.driver, bothWays({}).rollups);
      assert.ok(t.duplicates > 100 && t.keysWithDuplicates > 50 && t.keys > t.keysWithDuplicates, JSON.stringify(t));
      const filtered = await totals(store.driver, bothWays(filters.at(-1)!).rollups);
      assert.ok(filtered.duplicates > 10, "the narrowest filter still has duplicates to compare");
      await assertSameStory("after the first diagnosis");
    });

    it("rebalance episodes: the trigger's slots are the events' ownership changes", async () => {
      const [row] = await store.driver.query<{ raw: unknown; rolled: unknown; lines: unknown; rolled_lines: unknown }>(
        `SELECT (SELECT count(DISTINCT (group_name, ts / ${EPISODE_MS})) FROM events WHERE kind = 'rebalance' AND detail->>'action' = ANY($1::text[])) AS raw,
                (SELECT count(*) FROM (SELECT DISTINCT group_name, slot FROM rebalance_rollups) s) AS rolled,
                (SELECT count(*) FROM events WHERE kind = 'rebalance' AND detail->>'action' = ANY($1::text[])) AS lines,
                (SELECT sum(lines) FROM rebalance_rollups) AS rolled_lines`,
        [OWNERSHIP_ACTIONS],
      );
      assert.ok(Number(row!.raw) > 5, JSON.stringify(row));
      assert.equal(Number(row!.rolled), Number(row!.raw));
      assert.equal(Number(row!.rolled_lines), Number(row!.lines));
    });

    it("stay true when the worker rewrites every key's verdicts and diagnosis", async () => {
      const [before] = await store.driver.query<{ rows: unknown }>(`SELECT count(*) AS rows FROM duplicate_rollups WHERE duplicates <> 0`);
      await store.driver.run(`INSERT INTO diagnosis_queue (biz_key) SELECT biz_key FROM key_diagnoses ON CONFLICT DO NOTHING`);
      assert.ok((await drainQueue(store.driver)) > 100);
      const [afterwards] = await store.driver.query<{ rows: unknown }>(`SELECT count(*) AS rows FROM duplicate_rollups WHERE duplicates <> 0`);
      assert.equal(Number(afterwards!.rows), Number(before!.rows));
      const [sums] = await store.driver.query<{ rolled: unknown; stored: unknown; keys: unknown; diagnosed: unknown }>(
        `SELECT (SELECT sum(duplicates) FROM duplicate_rollups WHERE scope = 3) AS rolled, (SELECT count(*) FROM verdicts) AS stored,
                (SELECT sum(keys) FROM key_rollups WHERE scope = 3) AS keys, (SELECT count(*) FROM key_diagnoses) AS diagnosed`,
      );
      assert.equal(Number(sums!.rolled), Number(sums!.stored));
      assert.equal(Number(sums!.keys), Number(sums!.diagnosed));
      await assertSameStory("after every key was diagnosed again");
    });

    it("move a rewritten key only when what they count it by changed", async () => {
      // Per minute of the last event and group, and in all: what key_rollups must hold, counted from key_diagnoses.
      const truth = () =>
        store.driver.query<{ minute: string; g: string; keys: string; lost: string }>(
          `SELECT (last_ts / 60000) * 60000 AS minute, g, count(*)::text AS keys, sum(lost)::text AS lost
             FROM key_diagnoses, unnest(CASE WHEN cardinality(groups) = 0 THEN ARRAY['']::text[] ELSE groups END) AS g
            GROUP BY 1, 2 ORDER BY 1, 2`,
        );
      const rolled = () =>
        store.driver.query<{ minute: string; g: string; keys: string; lost: string }>(
          `SELECT minute, group_name AS g, sum(keys)::text AS keys, sum(lost)::text AS lost FROM key_rollups WHERE scope = 1
            GROUP BY 1, 2 HAVING sum(keys) <> 0 ORDER BY 1, 2`,
        );
      const [moved, regrouped] = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses ORDER BY biz_key LIMIT 2`);
      await store.driver.run(`UPDATE key_diagnoses SET last_ts = last_ts + 120000, lost = lost + 1 WHERE biz_key = $1`, [moved!.biz_key]);
      await store.driver.run(`UPDATE key_diagnoses SET groups = array_append(groups, 'cg_rollup_test') WHERE biz_key = $1`, [regrouped!.biz_key]);
      // Every other key rewritten with what the rollups count it by unchanged, as a worker's second pass does.
      await store.driver.run(`UPDATE key_diagnoses SET diagnosed_at = now(), normal_retries = normal_retries WHERE biz_key <> ALL($1::text[])`, [[moved!.biz_key, regrouped!.biz_key]]);
      assert.deepEqual(await rolled(), await truth());
      await assertSameStory("after keys moved minute, lost a message and joined a group");
    });

    it("count a key of several groups and topics once in each of its pairs, groups, topics and the total", async () => {
      // What key_rollups must hold in every scope, counted from key_diagnoses the way the rollups were defined first:
      // every scope for every (group, topic) pair, repeats removed per key.
      const truth = () =>
        store.driver.query<{ minute: string; scope: number; g: string; t: string; keys: string; lost: string }>(
          `SELECT (k.last_ts / 60000) * 60000 AS minute, s.scope, s.g, s.t, count(*)::text AS keys, sum(k.lost)::text AS lost
             FROM key_diagnoses k CROSS JOIN LATERAL (
               SELECT DISTINCT v.scope, v.g, v.t
                 FROM unnest(CASE WHEN cardinality(k.groups) = 0 THEN ARRAY['']::text[] ELSE k.groups END) AS g(name),
                      unnest(CASE WHEN cardinality(k.topics) = 0 THEN ARRAY['']::text[] ELSE k.topics END) AS t(name),
                      LATERAL (VALUES (0::smallint, g.name, t.name), (1::smallint, g.name, ''), (2::smallint, '', t.name), (3::smallint, '', '')) AS v(scope, g, t)) s
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
        );
      const rolled = () =>
        store.driver.query<{ minute: string; scope: number; g: string; t: string; keys: string; lost: string }>(
          `SELECT minute, scope, group_name AS g, topic AS t, sum(keys)::text AS keys, sum(lost)::text AS lost FROM key_rollups
            GROUP BY 1, 2, 3, 4 HAVING sum(keys) <> 0 ORDER BY 1, 2, 3, 4`,
        );
      const keys = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses ORDER BY biz_key DESC LIMIT 3`);
      const [wide, topicless, groupless] = keys.map((k) => k.biz_key);
      await store.driver.run(`UPDATE key_diagnoses SET groups = ARRAY['cg_wide_a', 'cg_wide_b'], topics = ARRAY['T_wide_a', 'T_wide_b'], lost = 2 WHERE biz_key = $1`, [wide]);
      await store.driver.run(`UPDATE key_diagnoses SET groups = ARRAY['cg_wide_a', 'cg_wide_c'], topics = '{}' WHERE biz_key = $1`, [topicless]);
      await store.driver.run(`UPDATE key_diagnoses SET groups = '{}', topics = ARRAY['T_wide_a', 'T_wide_b'] WHERE biz_key = $1`, [groupless]);
      const expected = await truth();
      assert.ok(expected.some((r) => r.scope === 0 && r.g === "cg_wide_b" && r.t === "T_wide_a" && r.lost === "2"), JSON.stringify(expected.filter((r) => r.g.startsWith("cg_wide"))));
      assert.deepEqual(await rolled(), expected);
      // And back: each key leaves every row it was counted in.
      await store.driver.run(`UPDATE key_diagnoses SET groups = ARRAY['cg_wide_d'], topics = ARRAY['T_wide_c'], lost = 0 WHERE biz_key = ANY($1::text[])`, [[wide, topicless, groupless]]);
      assert.deepEqual(await rolled(), await truth());
      assert.ok(!(await rolled()).some((r) => r.g === "cg_wide_a" || r.t === "T_wide_a"));
    });

    it("a deleted key leaves the rollups", async () => {
      const [key] = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM verdicts ORDER BY biz_key LIMIT 1`);
      const before = await totals(store.driver, bothWays({}).rollups);
      const [own] = await store.driver.query<{ n: unknown }>(`SELECT count(*) AS n FROM verdicts WHERE biz_key = $1`, [key!.biz_key]);
      await store.driver.run(`DELETE FROM verdicts WHERE biz_key = $1`, [key!.biz_key]);
      await store.driver.run(`DELETE FROM key_diagnoses WHERE biz_key = $1`, [key!.biz_key]);
      const afterwards = await totals(store.driver, bothWays({}).rollups);
      assert.equal(afterwards.duplicates, before.duplicates - Number(own!.n));
      assert.equal(afterwards.keys, before.keys - 1);
      assert.equal(afterwards.keysWithDuplicates, before.keysWithDuplicates - 1);
      await assertSameStory("after a key was deleted");
    });

    it("a key deleted by the retention job leaves the rows of its expired minutes alone, and a later key's rows not", async () => {
      const [old] = await store.driver.query<{ biz_key: string; last_ts: string }>(
        `SELECT biz_key, last_ts::text FROM key_diagnoses k WHERE EXISTS (SELECT 1 FROM verdicts v WHERE v.biz_key = k.biz_key) ORDER BY last_ts LIMIT 1`,
      );
      // The job's cutoff: the old key's minutes are all before it (a verdict's second delivery is never after the key's last event).
      const cutoff = Math.floor(Number(old!.last_ts) / MINUTE) * MINUTE + MINUTE;
      const [later] = await store.driver.query<{ biz_key: string }>(
        `SELECT biz_key FROM key_diagnoses k WHERE last_ts >= $1 AND EXISTS (SELECT 1 FROM verdicts v WHERE v.biz_key = k.biz_key)
            AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.biz_key = k.biz_key AND v.second_ts < $1) ORDER BY biz_key LIMIT 1`,
        [cutoff],
      );
      const before = await totals(store.driver, bothWays({}).rollups);
      const [own] = await store.driver.query<{ n: unknown }>(`SELECT count(*) AS n FROM verdicts WHERE biz_key = $1`, [later!.biz_key]);
      const keys = [old!.biz_key, later!.biz_key];
      await store.driver.transaction(async (tx) => {
        await tx.query(`SELECT set_config('dupscope.rollups_expire_before', $1, true)`, [String(cutoff)]);
        await tx.run(`DELETE FROM verdicts WHERE biz_key = ANY($1::text[])`, [keys]);
        await tx.run(`DELETE FROM key_diagnoses WHERE biz_key = ANY($1::text[])`, [keys]);
      });
      const afterwards = await totals(store.driver, bothWays({}).rollups);
      assert.equal(afterwards.keys, before.keys - 1, "only the later key left the rollups");
      assert.equal(afterwards.duplicates, before.duplicates - Number(own!.n));
      assert.equal(afterwards.keysWithDuplicates, before.keysWithDuplicates - 1);
      // The setting lasted the transaction only: the next delete rolls as any other.
      const [next] = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses WHERE last_ts >= $1 ORDER BY biz_key LIMIT 1`, [cutoff]);
      await store.driver.run(`DELETE FROM key_diagnoses WHERE biz_key = $1`, [next!.biz_key]);
      assert.equal((await totals(store.driver, bothWays({}).rollups)).keys, afterwards.keys - 1);
    });

    it("the filter menus list the groups and topics with keys in the range", async () => {
      const choices = await filterChoices(store.driver, bothWays({}).rollups);
      assert.ok(choices.groups.includes("cg_order_paid") && choices.groups.includes("cg_ledger"), JSON.stringify(choices));
      assert.ok(choices.topics.includes("order_paid"));
      assert.ok(!choices.groups.includes("") && !choices.topics.includes(""));
      const empty = await filterChoices(store.driver, parseFilters({ range: "custom", from: String(NOW - 30 * HOUR), to: String(NOW - 29 * HOUR) }, NOW));
      assert.deepEqual(empty, { groups: [], topics: [] });
    });
  });
}
