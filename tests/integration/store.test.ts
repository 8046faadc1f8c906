import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { JournalBuilder } from "../../lib/store/ingest-journal.ts";
import { ensureEventPartitions, minuteOf } from "../../lib/store/partitions.ts";
import { loadDiagnosisInputs } from "../../lib/queries/diagnosis-input.ts";
import { applyMigrations, checksumOf, loadMigrations, migrationState } from "../../lib/store/migrations.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { openPgWriter } from "../../lib/store/pg-writer.ts";
import { ORDER_KEY, orderStory, T0, validated as normalized } from "../helpers/events.ts";
import { readFileSync } from "node:fs";
import path from "node:path";
import { findFormat } from "../../collectors/registry.ts";
import { parseLines } from "../../collectors/types.ts";
import { drainQueue, processQueueStep, vacuumQueueTables } from "../../lib/diagnosis-queue/queue.ts";

const story = path.join(import.meta.dirname, "..", "fixtures", "rebalance-story");
function storyEvents(file: string, format: string, instance?: string): NormalizedEvent[] {
  const collector = findFormat(format)!;
  const ctx = { source: `${format}:${file}`, ...(instance ? { instance } : {}) };
  return parseLines(readFileSync(path.join(story, file), "utf8"), collector.open(ctx)).events;
}
import { backends } from "../helpers/stores.ts";


for (const backend of backends) {
  describe(`store on ${backend.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let storeUrl = "";

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      if (created.config.mode === "postgres") storeUrl = created.config.url;
      store = await openStore(created.config);
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    it("records each migration in _prisma_migrations with Prisma's checksum, once", async () => {
      const files = loadMigrations();
      const rows = await store.driver.query<{ migration_name: string; checksum: string; finished_at: unknown; applied_steps_count: number }>(
        `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
      );
      assert.deepEqual(rows.map((r) => r.migration_name), files.map((m) => m.name));
      rows.forEach((row, i) => {
        assert.equal(row.checksum, checksumOf(files[i]!.sql));
        assert.notEqual(row.finished_at, null);
        assert.equal(row.applied_steps_count, 1);
      });
      const again = await applyMigrations(store.driver, files);
      assert.deepEqual(again.pending, []);
      const count = await store.driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
      assert.equal(count[0]!.n, files.length);
    });

    it("notices a migration edited after it was applied", async () => {
      const edited = loadMigrations().map((m, i) => (i === 0 ? { ...m, checksum: checksumOf(`${m.sql}\n-- edited`) } : m));
      assert.deepEqual((await migrationState(store.driver, edited)).modified, [edited[0]!.name]);
      await assert.rejects(applyMigrations(store.driver, edited), /were edited afterwards/);
    });

    it("compresses the journal's large columns with lz4 where the server has it, and keeps pglz where it has not", async () => {
      const columns = await store.driver.query<{ attname: string; attcompression: string }>(
        `SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'ingest_journal'::regclass AND attname IN ('batch', 'keys', 'keys_from') ORDER BY attname`,
      );
      // PGlite is built without lz4 (its ALTER … SET COMPRESSION lz4 fails with feature_not_supported); the column then
      // keeps the server's default, which pg_attribute shows as ''.
      const expected = backend.name === "postgres" ? "l" : "";
      assert.deepEqual(columns, ["batch", "keys", "keys_from"].map((attname) => ({ attname, attcompression: expected })));
    });

    it("turns JIT off on its PostgreSQL connections, the store's and a writer's", { skip: backend.name !== "postgres" && "PGlite has no JIT" }, async () => {
      assert.deepEqual(await store.driver.query("SHOW jit"), [{ jit: "off" }]);
      const writer = await openPgWriter(storeUrl);
      try {
        assert.deepEqual(await writer.query("SHOW jit"), [{ jit: "off" }]);
      } finally {
        await writer.close();
      }
    });

    it("creates the lookup indexes the API relies on", async () => {
      const rows = await store.driver.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'events' ORDER BY indexname`);
      assert.deepEqual(rows.map((r) => r.indexname), [
        "events_biz_key_ts_idx",
        "events_borrowed_time_id_idx",
        "events_dedup_hit_group_ts_idx",
        "events_keyed_msg_id_idx",
        "events_keyless_group_ts_idx",
        "events_keyless_msg_id_idx",
        "events_offset_msg_id_idx",
        "events_pkey",
        "events_rebalance_group_ts_idx",
      ]);
      const [pkey] = await store.driver.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'events' AND indexname = 'events_pkey'`);
      assert.match(pkey!.indexdef, /\(ts, id\)$/, "time first, so that inserts in time order land on the index's last pages");
    });

    it("stores each event once, counting re-inserts and in-batch repeats as duplicates", async () => {
      const events = normalized(orderStory());
      assert.deepEqual(await insertEvents(store.driver, events), { accepted: events.length, duplicates: 0, rejected: [], outOfWindow: 0 });
      assert.deepEqual(await insertEvents(store.driver, events), { accepted: 0, duplicates: events.length, rejected: [], outOfWindow: 0 });
      const [first] = normalized(orderStory("ORDER-REPEAT"));
      assert.deepEqual(await insertEvents(store.driver, [first!, first!]), { accepted: 1, duplicates: 1, rejected: [], outOfWindow: 0 });
      const [journal] = await store.driver.query<{ batch: { sources: [string, string, number, number][] } }>(`SELECT batch FROM ingest_journal ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(journal!.batch.sources.map((s) => s[2]), [1], "the journal counts the row stored, not the row sent twice");
    });

    it("journals a key delivered once from the rows it stored as from the events, whichever way they went in", async () => {
      // One delivery: the publish, the consume start, its dedup pass and end. Sent with a repeat, the batch goes through
      // the staging table on PostgreSQL (and INSERT … RETURNING on PGlite): the journal is summed from the rows returned.
      const events = normalized(orderStory("ORDER-ONCE").slice(0, 4));
      const expected = new JournalBuilder();
      for (const e of events) expected.addEvent(e);
      await insertEvents(store.driver, [...events, events[0]!]);
      const [journal] = await store.driver.query<{ keys: string[]; batch: { plain: unknown[] } }>(`SELECT keys, batch FROM ingest_journal ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(journal!.keys, ["ORDER-ONCE"]);
      assert.deepEqual(journal!.batch.plain, expected.finish().plain);
      assert.equal(journal!.batch.plain.length, 1, "the key is summed as delivered once");
    });

    it("settles a key delivered once with its groups, topics and summary as they went in, whatever characters they hold", async () => {
      // Quotes, backslashes, commas, braces and spaces in names must come back as they went in, from a first batch
      // (the fold's insert) and with a later one merged into the row (its update, matched on the stored summary).
      const group = `pay "odd", {consumer}\\ 支付`;
      const topic = `PAY SUCCESS,{x}"\\`;
      const events = normalized(orderStory("ORDER-ODD-CHARS").slice(0, 4).map((e) => ({ ...e, topic, ...(e.group ? { group } : {}) })));
      const expected = new JournalBuilder();
      for (const e of events) expected.addEvent(e);
      const [, groups, topics, first, last, plain] = expected.finish().plain[0]!;
      const row = () =>
        store.driver.query<{ groups: string[]; topics: string[]; first_ts: string; last_ts: string; plain: unknown }>(
          `SELECT groups, topics, first_ts, last_ts, plain FROM key_diagnoses WHERE biz_key = 'ORDER-ODD-CHARS'`,
        );
      await insertEvents(store.driver, events.slice(0, 3));
      await drainQueue(store.driver);
      const [settled] = await row();
      assert.deepEqual([settled!.groups, settled!.topics], [[group], [topic]], "settled from its first batch");
      await insertEvents(store.driver, events.slice(3));
      await drainQueue(store.driver);
      const [merged] = await row();
      assert.deepEqual(
        { ...merged!, first_ts: Number(merged!.first_ts), last_ts: Number(merged!.last_ts) },
        { groups, topics, first_ts: first, last_ts: last, plain },
        "the later batch merged into the row by the fold (a worker's row has no plain summary): the same as one batch of all four",
      );
    });

    it("returns a key's events in time order with every field as it went in", async () => {
      const [input] = await loadDiagnosisInputs(store.driver, [ORDER_KEY]);
      const story = normalized(orderStory());
      assert.deepEqual(input!.events, story.filter((e) => e.bizKey === ORDER_KEY).sort((a, b) => a.ts - b.ts));
      assert.deepEqual(input!.context, story.filter((e) => e.kind === "rebalance"), "the group's rebalance is context");
      assert.deepEqual(await loadDiagnosisInputs(store.driver, ["ORDER-UNKNOWN"]), []);
    });

    it("diagnoses keys as their events arrive and again when context about them arrives later", async () => {
      await insertEvents(store.driver, [...storyEvents("trace.ndjson", "rocketmq-trace"), ...storyEvents("dedup.log", "dedup-log")]);
      await drainQueue(store.driver);
      const before = await store.prisma.verdict.findMany({ where: { bizKey: "ORDER-RB-20261130-0001" } });
      assert.equal(before.length, 1);
      assert.notEqual(before[0]!.cause, "rebalance", "without client logs nothing shows the queue moving");
      await insertEvents(store.driver, [
        ...storyEvents("client-10.0.0.5.log", "rocketmq-client-log", "10.0.0.5@4121"),
        ...storyEvents("client-10.0.0.7.log", "rocketmq-client-log", "10.0.0.7@88"),
      ]);
      assert.ok((await store.prisma.ingestJournal.count()) > 0, "the keyless lines are journaled, to mark the key for re-diagnosis");
      await drainQueue(store.driver);
      const after = await store.prisma.verdict.findMany({ where: { bizKey: "ORDER-RB-20261130-0001" } });
      assert.deepEqual(after.map((v) => [v.cause, v.outcome, v.layer]), [["rebalance", "caught", "redis"]]);
      const key = await store.prisma.keyDiagnosis.findUniqueOrThrow({ where: { bizKey: "ORDER-RB-20261130-0001" } });
      assert.deepEqual([key.groups, key.duplicates, key.leaked], [["pay-consumer"], 1, 0]);
      assert.equal(await store.prisma.diagnosisQueue.count(), 0);
    });

    it("queues again, for a rebalance line, the keys around it with a duplicate and not those delivered once", async () => {
      const once = normalized(orderStory("ORDER-ONCE")).filter((e) => e.kind !== "rebalance" && !(e.kind === "consume_start" && e.instance === "10.0.0.7@88") && e.detail.decision !== "hit");
      await insertEvents(store.driver, [...once, ...normalized(orderStory("ORDER-TWICE")).filter((e) => e.kind !== "rebalance")]);
      await drainQueue(store.driver);
      const line = normalized([{ kind: "rebalance", ts: T0 + 1300, broker: "rocketmq", group: "pay-consumer", queue: "broker-a:3", instance: "10.0.0.7@88", detail: { action: "add" }, source: "test:late-line" }]);
      await insertEvents(store.driver, line);
      // Left to settle, the keys the line queues stay in the queue to be seen.
      const step = await processQueueStep(store.driver, { batch: 1000, markSettleMs: 60_000 });
      assert.equal(step.marksExpanded, 1);
      const requeued = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM diagnosis_queue ORDER BY 1`);
      assert.ok(requeued.some((r) => r.biz_key === "ORDER-TWICE"), "the duplicate's key is queued again");
      assert.ok(!requeued.some((r) => r.biz_key === "ORDER-ONCE"), "the key delivered once is not");
    });

    it("queues a key with a duplicate again only for lines up to its reach, and a key a line names by its KEYS at once", async () => {
      const group = { broker: "rocketmq" as const, group: "pay-consumer", source: "rocketmq-client-log:client-10.0.0.5.log" };
      // Both consumers' client logs and the broker's are there (no missing-data note looks for them), and the first
      // consumer lives on: it logs a line half a minute after the redelivery.
      const moved = { ...group, kind: "rebalance" as const, ts: T0 + 1204, queue: "broker-a:3", instance: "10.0.0.7@88", detail: { action: "add" }, source: "rocketmq-client-log:client-10.0.0.7.log" };
      const connected = { ...group, kind: "instance_lifecycle" as const, ts: T0 + 100, instance: "10.0.0.7@88", detail: { action: "connected" }, source: "rocketmq-broker-log:broker.log" };
      const alive = { ...group, kind: "rebalance" as const, ts: T0 + 30_000, queue: "broker-a:1", instance: "10.0.0.5@4121", detail: { action: "add" } };
      await insertEvents(store.driver, normalized([...orderStory("ORDER-REACH").filter((e) => e.kind !== "rebalance"), moved, connected, alive]));
      await drainQueue(store.driver);
      const [stored] = await store.driver.query<{ reach_ts: string }>(`SELECT reach_ts::text FROM verdicts WHERE biz_key = 'ORDER-REACH'`);
      assert.equal(Number(stored!.reach_ts), T0 + 30_000, "up to the first consumer's first line after the redelivery");
      const queuedFor = async (ts: number, source: string) => {
        await insertEvents(store.driver, normalized([{ ...group, kind: "rebalance", ts, queue: "broker-a:2", instance: "10.0.0.7@88", detail: { action: "add" }, source }]));
        const { marksExpanded } = await processQueueStep(store.driver, { batch: 1000, markSettleMs: 60_000 });
        assert.equal(marksExpanded, 1);
        const queued = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM diagnosis_queue WHERE biz_key = 'ORDER-REACH'`);
        await store.driver.run(`DELETE FROM diagnosis_queue`);
        return queued.length === 1;
      };
      assert.equal(await queuedFor(T0 + 60_000, "rocketmq-client-log:late.log"), false, "a line past the reach changes nothing");
      assert.equal(await queuedFor(T0 + 25_000, "rocketmq-client-log:near.log"), true, "a line within it may");

      // A pass that finds the reach later than stored goes round once more, after the settle wait: another worker may
      // have expanded a line's mark against the old reach meanwhile.
      await store.driver.run(`UPDATE verdicts SET reach_ts = reach_ts - 10000 WHERE biz_key = 'ORDER-REACH'`);
      await store.driver.run(`INSERT INTO diagnosis_queue (biz_key) VALUES ('ORDER-REACH')`);
      const grown = await processQueueStep(store.driver, { batch: 1000, markSettleMs: 60_000 });
      assert.equal(grown.keysDiagnosed, 1);
      const again = await store.driver.query<{ waits: boolean; claimed: boolean }>(
        `SELECT enqueued_at > now() AS waits, claimed_by IS NOT NULL AS claimed FROM diagnosis_queue WHERE biz_key = 'ORDER-REACH'`,
      );
      assert.deepEqual(again, [{ waits: true, claimed: false }]);
      const [restored] = await store.driver.query<{ reach_ts: string }>(`SELECT reach_ts::text FROM verdicts WHERE biz_key = 'ORDER-REACH'`);
      assert.equal(Number(restored!.reach_ts), T0 + 30_000);
      await store.driver.run(`DELETE FROM diagnosis_queue`);

      await insertEvents(store.driver, normalized(orderStory("ORDER-NAMED")).filter((e) => e.kind !== "rebalance" && e.detail.decision !== "hit" && !(e.kind === "consume_start" && e.instance === "10.0.0.7@88")));
      await drainQueue(store.driver);
      // A copy the key's own events never named (a resend's new msgId), failing a quarter of an hour later.
      const named = { ...group, kind: "consume_end" as const, ts: T0 + 900_000, msgId: "7F0000010B2A18B4AAC2841F3D9C0777", instance: "10.0.0.5@4121", success: false, detail: { action: "consume_exception", keys: ["ORDER-NAMED"] } };
      await insertEvents(store.driver, normalized([named]));
      await processQueueStep(store.driver, { batch: 0 });
      const queued = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM diagnosis_queue`);
      assert.deepEqual(queued.map((r) => r.biz_key), ["ORDER-NAMED"], "a key delivered once, named by its KEYS only");
      await drainQueue(store.driver);
    });

    it("queues a key again past its quiet reach only for a line that gives a queue up", async () => {
      // A group of its own, so that only this story's lines are its context. The first consumer logs again 3.3 s after
      // the redelivery: the quiet reach is there; the reach, a rebalance interval and the skew past the redelivery.
      const group = { broker: "rocketmq" as const, group: "quiet-consumer", source: "rocketmq-client-log:client-10.0.0.5.log" };
      const story = orderStory("ORDER-QUIET").filter((e) => e.kind !== "rebalance").map((e) => (e.group === undefined ? e : { ...e, group: group.group }));
      const moved = { ...group, kind: "rebalance" as const, ts: T0 + 1204, queue: "broker-a:3", instance: "10.0.0.7@88", detail: { action: "add" }, source: "rocketmq-client-log:client-10.0.0.7.log" };
      const connected = { ...group, kind: "instance_lifecycle" as const, ts: T0 + 100, instance: "10.0.0.7@88", detail: { action: "connected" }, source: "rocketmq-broker-log:broker.log" };
      const alive = { ...group, kind: "rebalance" as const, ts: T0 + 5000, queue: "broker-a:1", instance: "10.0.0.5@4121", detail: { action: "add" } };
      await insertEvents(store.driver, normalized([...story, moved, connected, alive]));
      await drainQueue(store.driver);
      const [stored] = await store.driver.query<{ reach_ts: string; quiet_reach_ts: string }>(`SELECT reach_ts::text, quiet_reach_ts::text FROM verdicts WHERE biz_key = 'ORDER-QUIET'`);
      assert.deepEqual([Number(stored!.reach_ts), Number(stored!.quiet_reach_ts)], [T0 + 1690 + 20_000 + 3000, T0 + 5000]);
      let n = 0;
      const queuedFor = async (ts: number, action: string, queue = "broker-a:3") => {
        await insertEvents(store.driver, normalized([{ ...group, kind: "rebalance", ts, queue, instance: "10.0.0.7@88", detail: { action }, source: `rocketmq-client-log:quiet-${n++}.log` }]));
        const { marksExpanded } = await processQueueStep(store.driver, { batch: 1000, markSettleMs: 60_000 });
        assert.equal(marksExpanded, 1);
        const queued = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM diagnosis_queue WHERE biz_key = 'ORDER-QUIET'`);
        await store.driver.run(`DELETE FROM diagnosis_queue`);
        return queued.length === 1;
      };
      assert.equal(await queuedFor(T0 + 4000, "add"), true, "a queue added before the quiet reach may change it");
      assert.equal(await queuedFor(T0 + 10_000, "add"), false, "a queue added after it cannot");
      assert.equal(await queuedFor(T0 + 10_000, "remove"), true, "a queue given up before the reach may");
      assert.equal(await queuedFor(T0 + 30_000, "remove"), false, "after the reach nothing can");
      const [mark] = await store.driver.query<{ loud: boolean }>(`SELECT loud FROM diagnosis_marks LIMIT 1`);
      assert.equal(mark, undefined, "every mark was expanded");
    });

    it("keeps a key's verdict rows when a second diagnosis gives the same verdicts, and replaces them when not", async () => {
      await insertEvents(store.driver, normalized(orderStory("ORDER-SAME")).filter((e) => e.kind !== "rebalance"));
      await drainQueue(store.driver);
      const rows = () => store.driver.query<{ id: string; cause: string; version: string }>(`SELECT id, cause, xmin::text AS version FROM verdicts WHERE biz_key = 'ORDER-SAME' ORDER BY id`);
      const keyRow = async () =>
        (await store.driver.query<{ version: string; at: string; lost: number; dj: string }>(
          `SELECT xmin::text AS version, diagnosed_at::text AS at, lost, diagnosis::text AS dj FROM key_diagnoses WHERE biz_key = 'ORDER-SAME'`,
        ))[0]!;
      const before = await rows();
      const keyBefore = await keyRow();
      assert.equal(before.length, 1);
      await store.driver.run(`INSERT INTO diagnosis_queue (biz_key) VALUES ('ORDER-SAME')`);
      await drainQueue(store.driver);
      assert.deepEqual(await rows(), before, "the same verdict is not written again");
      assert.deepEqual(await keyRow(), keyBefore, "nor the key's diagnosis, nor the time it was made");

      // A stored diagnosis that differs from what diagnosis finds, in its counts or its document, is written again.
      for (const tamper of [`lost = lost + 1`, `diagnosis = jsonb_set(diagnosis, '{duplicates,0,confidence}', '0')`]) {
        await store.driver.run(`UPDATE key_diagnoses SET ${tamper} WHERE biz_key = 'ORDER-SAME'`);
        await store.driver.run(`INSERT INTO diagnosis_queue (biz_key) VALUES ('ORDER-SAME')`);
        await drainQueue(store.driver);
        const again = await keyRow();
        assert.deepEqual([again.lost, again.dj], [keyBefore.lost, keyBefore.dj], `written again after ${tamper}`);
        assert.notEqual(again.at, keyBefore.at);
      }

      // A stored verdict that no longer matches what diagnosis finds is replaced, whichever column differs.
      await store.driver.run(`UPDATE verdicts SET confidence = confidence / 2 WHERE biz_key = 'ORDER-SAME'`);
      await store.driver.run(`INSERT INTO diagnosis_queue (biz_key) VALUES ('ORDER-SAME')`);
      await drainQueue(store.driver);
      const after = await rows();
      assert.deepEqual(after.map((r) => [r.id, r.cause]), before.map((r) => [r.id, r.cause]));
      assert.notEqual(after[0]!.version, before[0]!.version, "the row was written again");
      const [{ confidence }] = (await store.driver.query<{ confidence: number }>(`SELECT confidence FROM verdicts WHERE biz_key = 'ORDER-SAME'`)) as [{ confidence: number }];
      const [stored] = await store.driver.query<{ diagnosis: { duplicates: { confidence: number }[] } }>(`SELECT diagnosis FROM key_diagnoses WHERE biz_key = 'ORDER-SAME'`);
      assert.equal(Number(confidence), stored!.diagnosis.duplicates[0]!.confidence);
    });

    it("lets keys a rebalance line queued settle: later lines add nothing, and the key's own new event ends the wait", async () => {
      await insertEvents(store.driver, normalized(orderStory("ORDER-SETTLE")).filter((e) => e.kind !== "rebalance"));
      await drainQueue(store.driver);
      const line = (ts: number, source: string) =>
        normalized([{ kind: "rebalance", ts, broker: "rocketmq", group: "pay-consumer", queue: "broker-a:3", instance: "10.0.0.7@88", detail: { action: "add" }, source }]);
      const settle = { batch: 1000, markSettleMs: 60_000 };
      const queued = () => store.driver.query<{ biz_key: string; waits: boolean }>(`SELECT biz_key, enqueued_at > now() AS waits FROM diagnosis_queue ORDER BY 1`);
      const diagnosedAt = async () => (await store.driver.query<{ at: string }>(`SELECT diagnosed_at::text AS at FROM key_diagnoses WHERE biz_key = 'ORDER-SETTLE'`))[0]!.at;
      const before = await diagnosedAt();

      await insertEvents(store.driver, line(T0 + 1300, "test:settle-1"));
      const first = await processQueueStep(store.driver, settle);
      assert.deepEqual([first.marksExpanded, first.keysDiagnosed], [1, 0], "the key is queued, not claimed yet");
      assert.ok((await queued()).some((r) => r.biz_key === "ORDER-SETTLE" && r.waits));
      const [{ until }] = (await store.driver.query<{ until: string }>(`SELECT enqueued_at::text AS until FROM diagnosis_queue WHERE biz_key = 'ORDER-SETTLE'`)) as [{ until: string }];

      await insertEvents(store.driver, line(T0 + 1400, "test:settle-2"));
      const second = await processQueueStep(store.driver, settle);
      assert.deepEqual([second.marksExpanded, second.keysDiagnosed], [1, 0], "a second line within the wait adds nothing");
      const [{ still }] = (await store.driver.query<{ still: string }>(`SELECT enqueued_at::text AS still FROM diagnosis_queue WHERE biz_key = 'ORDER-SETTLE'`)) as [{ still: string }];
      assert.equal(still, until, "nor does it push the wait further");
      assert.equal(await diagnosedAt(), before);

      const late = normalized([{ kind: "dedup", ts: T0 + 1600, broker: "rocketmq", bizKey: "ORDER-SETTLE", group: "pay-consumer", instance: "10.0.0.7@88", detail: { layer: "db", decision: "hit" }, source: "test:settle-late" }]);
      await insertEvents(store.driver, late);
      const third = await processQueueStep(store.driver, settle);
      assert.ok(third.keysDiagnosed >= 1, "the key's own event is diagnosed at once");
      assert.ok(!(await queued()).some((r) => r.biz_key === "ORDER-SETTLE"));
      assert.notEqual(await diagnosedAt(), before);
    });

    it("vacuums the queue's tables: the dead rows diagnosed keys leave behind are given back", async () => {
      const keys = Array.from({ length: 400 }, (_, i) => `ORDER-VACUUM-${i}`);
      // Keys consumed twice: the fold settles a key delivered once without the queue (lib/store/plain-keys.ts).
      await insertEvents(store.driver, normalized(keys.flatMap((k) => orderStory(k).filter((e) => e.bizKey !== null))));
      await drainQueue(store.driver, 100);
      const size = async () => Number((await store.driver.query<{ bytes: string | number }>(`SELECT pg_relation_size('diagnosis_queue') AS bytes`))[0]!.bytes);
      const before = await size();
      assert.ok(before >= 4 * 8192, `inserted, claimed and deleted rows still take pages: ${before} bytes`);
      await vacuumQueueTables(store.driver);
      // Keys an earlier test left settling keep the first page.
      assert.ok((await size()) <= 8192, `the pages of dead rows are given back: ${await size()} bytes`);
    });

    it("round-trips every column through the Prisma model (schema and migrations agree)", async () => {
      // The ORM knows nothing of partitions: the day's must exist, as the writers make sure (lib/store/partitions.ts).
      await ensureEventPartitions(store.driver, [minuteOf(T0)]);
      const row = await store.prisma.event.create({
        data: {
          id: "drift-check",
          kind: "consume_end",
          ts: BigInt(T0),
          tsPrecision: "s",
          bizKey: "K-drift",
          msgId: "M",
          offsetMsgId: "O",
          broker: "kafka",
          topic: "t",
          group: "g",
          queue: "t-3",
          queueOffset: BigInt(Number.MAX_SAFE_INTEGER),
          instance: "10.0.0.1@1",
          retryTimes: 16,
          redelivered: true,
          success: false,
          detail: { nested: { list: [1, "two", null] } },
          source: "drift",
        },
      });
      const read = await store.prisma.event.findUniqueOrThrow({ where: { ts_id: { ts: row.ts, id: row.id } } });
      assert.equal(read.queueOffset, BigInt(Number.MAX_SAFE_INTEGER));
      assert.deepEqual(read.detail, { nested: { list: [1, "two", null] } });
      assert.ok(read.ingestedAt instanceof Date);
      await store.prisma.event.update({ where: { ts_id: { ts: row.ts, id: row.id } }, data: { success: true } });
      await store.prisma.event.delete({ where: { ts_id: { ts: row.ts, id: row.id } } });
      assert.equal(await store.prisma.event.count({ where: { id: row.id } }), 0);
      const mark = await store.prisma.diagnosisMark.create({ data: { group: "g", fromTs: BigInt(T0), toTs: BigInt(T0 + 1) } });
      assert.equal(typeof mark.id, "bigint");
      await store.prisma.diagnosisQueue.create({ data: { bizKey: "K-queue-only" } });
      await store.prisma.keyDiagnosis.create({
        data: { bizKey: "K-drift", groups: ["g"], topics: [], firstTs: BigInt(T0), lastTs: BigInt(T0), duplicates: 1, leaked: 0, lost: 0, normalRetries: 0, diagnosis: { any: "json" } },
      });
      await store.prisma.verdict.create({
        data: {
          id: "K-drift#0", bizKey: "K-drift", group: "g", topic: null, cause: "unknown", confidence: 0, outcome: "unknown", layer: null, defect: null,
          gapMs: BigInt(-5), gapClass: "ms", firstTs: BigInt(T0), secondTs: BigInt(T0), firstInstance: null, secondInstance: null, sameInstance: false, msgId: null, reachTs: BigInt(T0),
        },
      });
      const at = new Date(T0);
      await store.prisma.alertChannel.create({ data: { id: "ch-drift", name: "drift", type: "webhook", config: { url: "http://127.0.0.1/x" }, enabled: false, createdAt: at, updatedAt: at } });
      await store.prisma.alertRule.create({
        data: {
          id: "rule-drift", name: "drift", enabled: false, condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 }, forSeconds: 60,
          repeatSeconds: 0, severity: "info", labels: { team: "t" }, description: "d", channelIds: ["ch-drift"], createdAt: at, updatedAt: at,
        },
      });
      const firing = await store.prisma.alertFiring.create({
        data: { ruleId: "rule-drift", ruleName: "drift", severity: "info", summary: "s", value: 1.5, keys: ["K-drift"], firedAt: at, resolvedAt: at },
      });
      await store.prisma.alertState.create({
        data: { ruleId: "rule-drift", state: "firing", activeSince: at, lastEvalAt: at, lastValue: 1.5, lastNotifiedAt: at, lastError: "e", firingId: firing.id, version: 3 },
      });
      await store.prisma.alertNotification.create({
        data: { firingId: firing.id, ruleId: "rule-drift", channelId: "ch-drift", event: "firing", status: "failed", attempts: 8, nextAttemptAt: at, lastError: "e", createdAt: at, sentAt: at },
      });
      await store.prisma.metricCounter.create({ data: { name: "drift", labels: "{}", value: BigInt(Number.MAX_SAFE_INTEGER) } });
      await store.prisma.ingestSource.create({ data: { source: "drift-source-row", format: "events", events: 1n, maxTs: BigInt(T0), lastIngestedAt: at } });
      await store.prisma.unrecognisedSource.create({ data: { source: "drift-source-row", format: "events", instance: "i", lines: 2n, groups: ["g"], firstSeen: at, lastSeen: at } });
      await store.prisma.unrecognisedShape.create({ data: { source: "drift-source-row", shape: "Rebalance N", anchor: "rebalanc", lines: 2n, lastLine: 7, lastSeen: at } });
      await store.prisma.metricVerdictPending.create({ data: { id: "K-drift#9", seenAt: at } });
      await store.prisma.metricVerdictCounted.create({ data: { id: "K-drift#9", countedAt: at } });
      const state = await store.prisma.alertState.findUniqueOrThrow({ where: { ruleId_series: { ruleId: "rule-drift", series: "" } } });
      assert.deepEqual([state.firingId, state.version, state.activeSince], [firing.id, 3, at]);
      assert.equal((await store.prisma.metricCounter.findFirstOrThrow({ where: { name: "drift" } })).value, BigInt(Number.MAX_SAFE_INTEGER));
      await store.prisma.alertRule.delete({ where: { id: "rule-drift" } });
      assert.equal(await store.prisma.alertNotification.count(), 0, "a rule's state, firings and notifications go with it");
      await store.prisma.alertChannel.delete({ where: { id: "ch-drift" } });
      await store.prisma.metricCounter.deleteMany({ where: { name: "drift" } });
      await store.prisma.ingestSource.deleteMany({ where: { source: "drift-source-row" } });
      await store.prisma.metricVerdictPending.deleteMany({ where: { id: "K-drift#9" } });
      await store.prisma.metricVerdictCounted.deleteMany({ where: { id: "K-drift#9" } });
      await store.prisma.diagnosisMark.deleteMany({});
      await store.prisma.diagnosisQueue.deleteMany({});
      await store.prisma.keyDiagnosis.deleteMany({ where: { bizKey: "K-drift" } });
      await store.prisma.verdict.deleteMany({ where: { bizKey: "K-drift" } });
    });
  });
}
