import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { runRetentionOnce } from "../../lib/retention/job.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { foldJournal } from "../../lib/store/ingest-journal.ts";
import { applyMigrations, loadMigrations } from "../../lib/store/migrations.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { DAY_MS, dayOf, eventPartitions } from "../../lib/store/partitions.ts";
import { acceptedTs, retentionFromEnv, type Retention } from "../../lib/store/retention-config.ts";
import { bucketFor, type Filters } from "../../lib/queries/filters.ts";
import { keptResolution } from "../../lib/views/filters.ts";
import { keyReport } from "../../lib/views/key-report.ts";
import { kpis } from "../../lib/views/overview.ts";
import { storeHealth } from "../../lib/views/health.ts";
import { orderStory, validated as events } from "../helpers/events.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * Retention on both stores (issue 16): raw events live in day partitions that the job drops whole, verdicts and
 * what hangs off them are deleted later, and ingest refuses what is already expired. Times are relative to now,
 * as the job's are: these tests hold whatever day they run on.
 */

const NOW = Date.now();
const TODAY = dayOf(NOW) * DAY_MS;
const WEEK: Retention = { eventsMs: 7 * DAY_MS, verdictsMs: 90 * DAY_MS };
/** Accepts anything of the last 30 days: to put old events in place before a retention run. */
const MONTH = acceptedTs({ eventsMs: 30 * DAY_MS, verdictsMs: 90 * DAY_MS }, NOW);


/** The order story of tests/helpers/events.ts, moved to start at `at`, under its own key. */
function storyAt(at: number, bizKey: string): NormalizedEvent[] {
  const story = orderStory(bizKey);
  const shift = at - Number(story[0]!.ts);
  return events(story.map((e) => ({ ...e, ts: Number(e.ts) + shift, msgId: `${bizKey}-MSG` })));
}

function lifecycle(id: string, ts: number) {
  return { id, kind: "instance_lifecycle", ts, broker: "rocketmq", group: "pay-consumer", instance: "10.0.0.5@4121", detail: { action: "start" }, source: "test:retention" };
}

const count = async (store: Store, sql: string, params: unknown[] = []) => Number((await store.driver.query<{ n: string }>(sql, params))[0]!.n);

for (const backend of backends) {
  describe(`retention on ${backend.name}`, () => {
    const current = useFreshStore(backend);

    it("stores each day's events in that day's partition, and drops exactly the days older than the retention", async () => {
      const days = [-10, -8, -7, -2, 0].map((d) => TODAY + d * DAY_MS + 3_600_000);
      const stored = await insertEvents(current().driver, events(days.map((ts, i) => lifecycle(`day-${i}`, ts))), MONTH);
      assert.equal(stored.accepted, 5);
      const made = (await eventPartitions(current().driver)).map((p) => p.from);
      assert.deepEqual(made, days.map((ts) => dayOf(ts) * DAY_MS));

      // One day less than a week before now, 7 days ago 01:00 is still kept: its day ends after now - 7 days.
      const report = await runRetentionOnce(current().driver, WEEK, NOW);
      const name = (ts: number) => `events_p${new Date(ts).toISOString().slice(0, 10).replaceAll("-", "")}`;
      assert.deepEqual(report.droppedPartitions, [name(days[0]!), name(days[1]!)]);
      assert.deepEqual(report.waitingPartitions, []);
      const left = (await eventPartitions(current().driver)).map((p) => p.name);
      assert.deepEqual(left, [name(days[2]!), name(days[3]!), name(TODAY), name(TODAY + DAY_MS), name(TODAY + 2 * DAY_MS)], "kept days and two made ahead");
      assert.deepEqual(
        (await current().driver.query<{ id: string }>(`SELECT id FROM events WHERE source = 'test:retention' ORDER BY ts`)).map((r) => r.id),
        ["day-2", "day-3", "day-4"],
      );

      const again = await runRetentionOnce(current().driver, WEEK, NOW);
      assert.deepEqual(again.droppedPartitions, [], "a second run finds nothing to drop");
    });

    it("refuses an event older than the retention, also one whose partition is gone, and one more than a day ahead", async () => {
      const window = acceptedTs(WEEK, NOW);
      const expired = lifecycle("day-0", TODAY - 10 * DAY_MS + 3_600_000);
      const ahead = lifecycle("ahead", NOW + 2 * DAY_MS);
      const fresh = lifecycle("fresh", NOW - 60_000);
      const before = (await eventPartitions(current().driver)).length;
      const result = await insertEvents(current().driver, events([expired, ahead, fresh]), window);
      assert.equal(result.accepted, 1);
      assert.equal(result.outOfWindow, 2);
      assert.deepEqual(result.rejected.map((r) => r.index), [0, 1]);
      assert.match(result.rejected[0]!.reason, /^expired: its time \S+ is older than the raw-event retention \(before \S+; DUPSCOPE_RETENTION_EVENTS\)$/);
      assert.match(result.rejected[1]!.reason, /more than a day ahead of this server's clock/);
      assert.equal((await eventPartitions(current().driver)).length, before, "no partition made for a refused event");
      assert.equal(await count(current(), `SELECT count(*) AS n FROM events WHERE id IN ('day-0', 'ahead')`), 0);
    });

    it("stores a record once however often it is sent, also in a batch across midnight and after a day was dropped", async () => {
      const midnight = TODAY - DAY_MS;
      const batch = events([lifecycle("before-midnight", midnight - 1), lifecycle("at-midnight", midnight), lifecycle("after-midnight", midnight + 1)]);
      const first = await insertEvents(current().driver, batch, MONTH);
      assert.deepEqual([first.accepted, first.duplicates], [3, 0]);
      const second = await insertEvents(current().driver, [...batch, ...batch], MONTH);
      assert.deepEqual([second.accepted, second.duplicates, second.rejected.length], [0, 6, 0]);
      const alone = await insertEvents(current().driver, [batch[2]!], MONTH);
      assert.deepEqual([alone.accepted, alone.duplicates], [0, 1]);
      const rows = await current().driver.query<{ id: string; part: string }>(
        `SELECT id, tableoid::regclass::text AS part FROM events WHERE id LIKE '%midnight' ORDER BY ts`,
      );
      assert.deepEqual(
        rows.map((r) => [r.id, r.part.replaceAll('"', "")]),
        [
          ["before-midnight", `events_p${new Date(midnight - 1).toISOString().slice(0, 10).replaceAll("-", "")}`],
          ["at-midnight", `events_p${new Date(midnight).toISOString().slice(0, 10).replaceAll("-", "")}`],
          ["after-midnight", `events_p${new Date(midnight).toISOString().slice(0, 10).replaceAll("-", "")}`],
        ],
      );
    });

    it("stores a record that borrows its time once, though sent again with another time in another day", async () => {
      const borrowed = (ts: number, timeFrom: string) => ({ ...lifecycle("no-time-of-its-own", ts), detail: { action: "start", timeFrom } });
      const first = await insertEvents(current().driver, events([borrowed(TODAY - 3 * DAY_MS, "input")]), MONTH);
      assert.deepEqual([first.accepted, first.duplicates], [1, 0]);
      const again = await insertEvents(current().driver, events([borrowed(TODAY + 60_000, "previous_line"), lifecycle("has-its-time", TODAY + 60_000)]), MONTH);
      assert.deepEqual([again.accepted, again.duplicates], [1, 1], "the id is found in the other day's partition");
      assert.equal(await count(current(), `SELECT count(*) AS n FROM events WHERE id = 'no-time-of-its-own'`), 1);
    });

    it("keeps a key's verdict after its raw events expire, and the key page says so", async () => {
      const key = "ORDER-RET-0001";
      await insertEvents(current().driver, storyAt(TODAY - 9 * DAY_MS + 3_600_000, key), MONTH);
      await drainQueue(current().driver);
      const live = await keyReport(current().driver, key);
      assert.equal(live?.expired, undefined);
      assert.equal(live?.duplicates.length, 1);

      await runRetentionOnce(current().driver, WEEK, NOW);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM events WHERE biz_key = $1`, [key]), 0);
      const kept = await keyReport(current().driver, key);
      assert.ok(kept?.expired, "the report says its raw events expired");
      assert.equal(kept.events.length, 0);
      assert.deepEqual(
        kept.duplicates.map((v) => [v.cause, v.outcome, v.summary]),
        live!.duplicates.map((v) => [v.cause, v.outcome, v.summary]),
        "the stored verdict, worded as before",
      );
      assert.equal(await count(current(), `SELECT count(*) AS n FROM verdicts WHERE biz_key = $1`, [key]), 1);
    });

    it("shows the stored verdict of a key whose first days expired while its later events remain", async () => {
      const key = "ORDER-RET-0003";
      // Eight days ago: apart from the other keys' stories, so that no rebalance mark of its own queues them again.
      const old = storyAt(TODAY - 8 * DAY_MS + 3_600_000, key);
      // A replay of its publish a week later, in a partition the retention keeps.
      const late = { ...old[0]!, id: `${old[0]!.id}-replayed`, ts: TODAY - DAY_MS };
      await insertEvents(current().driver, [...old, late], MONTH);
      await drainQueue(current().driver);
      assert.equal((await keyReport(current().driver, key))?.expired, undefined);

      await runRetentionOnce(current().driver, WEEK, NOW);
      const kept = await keyReport(current().driver, key);
      assert.ok(kept?.expired, "the report says its first events expired");
      assert.deepEqual(kept.events.map((e) => e.id), [late.id]);
      assert.equal(kept.duplicates.length, 1, "the verdict diagnosed while every event was there");
    });

    it("does not re-diagnose a partly expired key from what remains, nor forget one with nothing left", async () => {
      const key = "ORDER-RET-0004";
      const old = storyAt(TODAY - 8 * DAY_MS + 5 * 3_600_000, key);
      await insertEvents(current().driver, old, MONTH);
      await drainQueue(current().driver);
      const before = await keyReport(current().driver, key);
      assert.equal(before?.duplicates.length, 1);
      await runRetentionOnce(current().driver, WEEK, NOW);

      // A replay of its publish arrives after its first days expired: the worker is asked about the key again.
      const late = { ...old[0]!, id: `${old[0]!.id}-late`, ts: TODAY - DAY_MS };
      await insertEvents(current().driver, [late], MONTH);
      await drainQueue(current().driver);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM verdicts WHERE biz_key = $1`, [key]), 1, "the verdict made from every event");
      const after = await keyReport(current().driver, key);
      assert.ok(after?.expired);
      assert.deepEqual(after.events.map((e) => e.id), [late.id]);
      assert.deepEqual(after.duplicates.map((v) => v.summary), before!.duplicates.map((v) => v.summary));

      // ORDER-RET-0001 has no event left at all; queued again, it keeps its verdict.
      await current().driver.run(`INSERT INTO diagnosis_queue (biz_key) VALUES ('ORDER-RET-0001')`);
      await drainQueue(current().driver);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM verdicts WHERE biz_key = 'ORDER-RET-0001'`), 1);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM diagnosis_queue`), 0, "nothing left claimed or queued");
    });

    it("deletes verdicts, key diagnoses and rollups older than their own retention, and shows its runs on /api/health", async () => {
      const key = "ORDER-RET-0002";
      await insertEvents(current().driver, storyAt(TODAY - 3 * DAY_MS, key), MONTH);
      await drainQueue(current().driver);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM verdicts WHERE biz_key = $1`, [key]), 1);
      const rollups = `SELECT count(*) AS n FROM duplicate_rollups WHERE minute < $1`;
      assert.ok((await count(current(), rollups, [NOW - 2 * DAY_MS])) > 0);

      // Rows of later minutes, of keys that stay: the run must leave them as they are.
      const kept = () =>
        current().driver.query(
          `SELECT 'k' AS t, minute::text, scope, group_name, topic, keys AS n, lost AS m FROM key_rollups WHERE minute >= $1
           UNION ALL SELECT 'd', minute::text, scope, group_name, topic || cause || outcome || layer || gap_bin, duplicates, key_firsts FROM duplicate_rollups WHERE minute >= $1
           ORDER BY 1, 2, 3, 4, 5`,
          [NOW - 2 * DAY_MS],
        );
      const keptBefore = await kept();
      // Verdicts a /metrics scrape never counted: one noted before the verdicts' retention goes, a newer one stays.
      await current().driver.run(
        `INSERT INTO metric_verdicts_pending (id, seen_at) VALUES ('pending-expired', $1), ('pending-kept', $2)`,
        [new Date(NOW - 2 * DAY_MS - 60_000), new Date(NOW - 2 * DAY_MS + 60_000)],
      );

      const report = await runRetentionOnce(current().driver, { eventsMs: DAY_MS, verdictsMs: 2 * DAY_MS }, NOW);
      assert.deepEqual(await kept(), keptBefore);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM key_rollups WHERE keys < 0 OR lost < 0`), 0);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM duplicate_rollups WHERE duplicates < 0 OR key_firsts < 0`), 0);
      assert.equal(
        await count(current(), `SELECT coalesce(sum(keys), 0) AS n FROM key_rollups WHERE scope = 3`),
        await count(current(), `SELECT count(*) AS n FROM key_diagnoses`),
        "the rollups count every key still stored, and no other",
      );
      assert.equal(await count(current(), `SELECT count(*) AS n FROM verdicts WHERE biz_key IN ($1, 'ORDER-RET-0001')`, [key]), 0);
      assert.equal(await count(current(), `SELECT count(*) AS n FROM key_diagnoses WHERE biz_key IN ($1, 'ORDER-RET-0001')`, [key]), 0);
      assert.equal(await count(current(), rollups, [NOW - 2 * DAY_MS]), 0, "no rollup row outlives its verdicts");
      assert.ok(report.deleted.verdicts! >= 2 && report.deleted.keyDiagnoses! >= 2);
      assert.deepEqual(
        (await current().driver.query<{ id: string }>(`SELECT id FROM metric_verdicts_pending WHERE id LIKE 'pending-%' ORDER BY id`)).map((r) => r.id),
        ["pending-kept"],
      );
      assert.ok(report.deleted.pendingVerdicts! >= 1);

      const health = await storeHealth(current());
      assert.equal(health.status, "ok");
      assert.ok("retention" in health && health.retention);
      assert.equal(health.retention.eventsMs, retentionFromEnv().eventsMs, "the configured retention");
      assert.equal(health.retention.lastRun?.ranAt, new Date(NOW).toISOString());
      assert.deepEqual(health.retention.lastRun?.droppedPartitions, report.droppedPartitions);
      assert.equal(health.retention.lastError, null);
      assert.equal(health.retention.partitions.newest, new Date(TODAY + 2 * DAY_MS).toISOString().slice(0, 10));
    });

    it("forgets a key whose diagnosis found nothing with its raw events, keeps its count in the overview, and keeps the keys with a finding", async () => {
      // Delivered once: the story's publish and first consumption, without the second.
      const once = (at: number, key: string) => storyAt(at, key).slice(0, 4);
      const old = TODAY - 9 * DAY_MS + 7 * 3_600_000;
      await insertEvents(current().driver, [...once(old, "ORDER-RET-ONCE-OLD"), ...once(TODAY - DAY_MS, "ORDER-RET-ONCE-NEW"), ...storyAt(old + 60_000, "ORDER-RET-0005")], MONTH);
      await drainQueue(current().driver);
      const stored = () => current().driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses WHERE biz_key LIKE 'ORDER-RET-ONCE-%' OR biz_key = 'ORDER-RET-0005' ORDER BY 1`);
      assert.deepEqual((await stored()).map((r) => r.biz_key), ["ORDER-RET-0005", "ORDER-RET-ONCE-NEW", "ORDER-RET-ONCE-OLD"]);
      const minute = Math.floor(old / 60_000) * 60_000;
      const keysOfMinute = () => count(current(), `SELECT coalesce(sum(keys), 0) AS n FROM key_rollups WHERE scope = 3 AND minute = $1`, [minute]);
      assert.equal(await keysOfMinute(), 1);
      const quarter: Filters = { range: "custom", from: minute - 5 * 60_000, to: minute + 10 * 60_000, bucketMs: bucketFor(15 * 60_000), group: null, topic: null, cause: null };
      assert.equal((await kpis(current().driver, quarter)).keys, 2, "10 s bars, from the key rows");

      const report = await runRetentionOnce(current().driver, WEEK, NOW);
      assert.ok(report.deleted.keysWithoutFindings! >= 1);
      assert.deepEqual((await stored()).map((r) => r.biz_key), ["ORDER-RET-0005", "ORDER-RET-ONCE-NEW"], "the old key with nothing found is forgotten");
      assert.equal(await keyReport(current().driver, "ORDER-RET-ONCE-OLD"), undefined, "the key page finds nothing");
      assert.ok((await keyReport(current().driver, "ORDER-RET-0005"))?.expired, "the key with a duplicate keeps its verdict");
      assert.equal(await keysOfMinute(), 1, "its count stays in the rollups");
      const charted = await keptResolution(current().driver, quarter);
      assert.equal(charted.bucketMs, 60_000, "before the oldest raw events, bars are whole minutes");
      assert.equal((await kpis(current().driver, charted)).keys, 2, "the forgotten key is still counted");
      const recent: Filters = { ...quarter, from: TODAY - DAY_MS, to: TODAY - DAY_MS + 15 * 60_000 };
      assert.equal((await keptResolution(current().driver, recent)).bucketMs, recent.bucketMs, "a range of kept raw events keeps its bars");
    });
  });

  describe(`upgrading a store on ${backend.name} to day partitions`, () => {
    it("moves the stored events into their days without counting or queueing them again", async () => {
      const created = await backend.create();
      const all = loadMigrations();
      const cut = all.findIndex((m) => m.name.endsWith("_partitioned_events"));
      const store = await openStore(created.config, { migrate: false });
      const driver = store.driver;
      try {
        await applyMigrations(driver, all.slice(0, cut));
        const story = storyAt(TODAY - 2 * DAY_MS, "ORDER-UPGRADE");
        await driver.run(
          `INSERT INTO events (id, kind, ts, ts_precision, biz_key, msg_id, broker, group_name, instance, detail, source)
           SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::text[])`,
          [
            story.map((e) => e.id), story.map((e) => e.kind), story.map((e) => e.ts), story.map((e) => e.tsPrecision), story.map((e) => e.bizKey),
            story.map((e) => e.msgId), story.map((e) => e.broker), story.map((e) => e.group), story.map((e) => e.instance),
            story.map((e) => JSON.stringify(e.detail)), story.map((e) => e.source),
          ],
        );
        const counted = await driver.query(`SELECT source, format, events FROM ingest_sources ORDER BY 1, 2`);
        await driver.run(`DELETE FROM diagnosis_queue`);

        await applyMigrations(driver, all);
        const rows = await driver.query<{ part: string }>(`SELECT DISTINCT tableoid::regclass::text AS part FROM events`);
        assert.deepEqual(rows.map((r) => r.part.replaceAll('"', "")), [`events_p${new Date(TODAY - 2 * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`]);
        assert.equal(Number((await driver.query<{ n: string }>(`SELECT count(*) AS n FROM events`))[0]!.n), story.length);
        assert.deepEqual(await driver.query(`SELECT source, format, events FROM ingest_sources ORDER BY 1, 2`), counted, "not counted twice");
        assert.equal(Number((await driver.query<{ n: string }>(`SELECT count(*) AS n FROM diagnosis_queue`))[0]!.n), 0, "not queued again");
        const more = await insertEvents(driver, storyAt(TODAY - DAY_MS, "ORDER-AFTER"), MONTH);
        assert.equal(more.accepted, story.length);
        assert.equal((await foldJournal(driver)).rows, 1, "new events are journaled");
        assert.equal(Number((await driver.query<{ n: string }>(`SELECT count(*) AS n FROM diagnosis_queue`))[0]!.n), 1, "and queued by the fold");
      } finally {
        await store.close();
        await created.dispose();
      }
    });
  });
}
