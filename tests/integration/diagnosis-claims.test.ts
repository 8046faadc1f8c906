import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadDemoDay } from "../../lib/demo/load.ts";
import { drainQueue, processQueueStep, queuedKeys } from "../../lib/diagnosis-queue/queue.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { foldJournal } from "../../lib/store/ingest-journal.ts";
import { lead, type Leadership } from "../../lib/store/leadership.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { ORDER_KEY, orderStory } from "../helpers/events.ts";
import { backends, postgresAdminUrl, useStoreFactory } from "../helpers/stores.ts";
import { validateEvent } from "../../lib/events/validate.ts";

/**
 * Several workers on one store: claims keep two workers off one key, a dead worker's claims come back after their
 * lease, an event for a claimed key sends it round again, and the stored verdicts are those of one worker alone.
 */

const NOW = Date.UTC(2026, 10, 30, 18, 0, 0);

async function snapshot(store: Store): Promise<string> {
  const verdicts = await store.driver.query(`SELECT id, biz_key, cause, outcome, layer, defect, first_ts::text, second_ts::text, first_instance, second_instance FROM verdicts ORDER BY id`);
  const keys = await store.driver.query(`SELECT biz_key, duplicates, leaked, lost, normal_retries FROM key_diagnoses ORDER BY biz_key`);
  return JSON.stringify({ verdicts, keys });
}

/** What a worker's step does first: the journal of the events written so far, into the queue. */
async function fold(store: Store): Promise<void> {
  while ((await foldJournal(store.driver)).rows > 0);
}

const queueState = async (store: Store) =>
  (await store.driver.query<{ queued: number; claimed: number }>(`SELECT count(*)::int AS queued, count(claimed_by)::int AS claimed FROM diagnosis_queue`))[0]!;

for (const backend of backends) {
  describe(`diagnosis workers sharing ${backend.name}`, () => {
    const open = useStoreFactory(backend);

    it("three workers at once diagnose every key once, with the verdicts one worker alone stores", async () => {
      const alone = await open();
      const shared = await open();
      for (const store of [alone, shared]) await loadDemoDay({ now: NOW, hours: 2, runs: 1, scale: 0.3, sink: driverSink(store.driver) });
      await fold(shared);
      const keys = (await queueState(shared)).queued;
      assert.ok(keys > 100, `${keys} keys queued`);
      await drainQueue(alone.driver, 50);

      const diagnosedBy = new Map<string, number>();
      const worker = async (name: string) => {
        for (;;) {
          const step = await processQueueStep(shared.driver, { batch: 20, worker: name });
          diagnosedBy.set(name, (diagnosedBy.get(name) ?? 0) + step.keysDiagnosed);
          if (step.keysDiagnosed === 0 && step.marksExpanded === 0 && step.journalFolded === 0 && (await queuedKeys(shared.driver)) === 0) return;
          if (step.keysDiagnosed === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      await Promise.all(["w1", "w2", "w3"].map(worker));
      assert.deepEqual(await queueState(shared), { queued: 0, claimed: 0 });
      assert.equal(await snapshot(shared), await snapshot(alone));
      const total = [...diagnosedBy.values()].reduce((a, b) => a + b, 0);
      // Each key once, whatever marks re-queued meanwhile: no key is diagnosed twice at the same time.
      assert.ok(total >= keys, `${total} diagnosed for ${keys} keys`);
      if (backend.name === "postgres") assert.ok([...diagnosedBy.values()].filter((n) => n > 0).length >= 2, `work spread: ${JSON.stringify([...diagnosedBy])}`);
    });

    it("leaves a dead worker's claims alone until their lease ends, then takes them", async () => {
      const store = await open();
      const events = orderStory().map((e) => {
        const checked = validateEvent(e);
        assert.ok(checked.ok);
        return checked.event;
      });
      await insertEvents(store.driver, events);
      await fold(store);
      // A worker claims the key for 1.5 s and dies without a word.
      const [dead] = await store.driver.query<{ n: number }>(
        `WITH c AS (UPDATE diagnosis_queue SET claimed_by = 'dead@1#x', claimed_until = now() + interval '1500 milliseconds' RETURNING 1) SELECT count(*)::int AS n FROM c`,
      );
      assert.equal(dead!.n, 1);
      const early = await processQueueStep(store.driver, { worker: "alive" });
      assert.equal(early.keysDiagnosed, 0, "another worker's live claim is skipped");
      assert.deepEqual(await queueState(store), { queued: 1, claimed: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1700));
      const late = await processQueueStep(store.driver, { worker: "alive" });
      assert.equal(late.keysDiagnosed, 1, "the expired claim is taken");
      assert.deepEqual(await queueState(store), { queued: 0, claimed: 0 });
      const [diagnosed] = await store.driver.query<{ duplicates: number }>(`SELECT duplicates FROM key_diagnoses WHERE biz_key = $1`, [ORDER_KEY]);
      assert.ok(diagnosed, "the key was diagnosed");
    });

    it("sends a key touched while it was being diagnosed round again, so the new event counts", async () => {
      const store = await open();
      const story = orderStory().map((e) => {
        const checked = validateEvent(e);
        assert.ok(checked.ok);
        return checked.event;
      });
      // Two deliveries already, so the key is queued: one delivered once would be settled by the fold (plain-keys.ts).
      await insertEvents(store.driver, story.slice(0, -1));
      await fold(store);
      // Claimed by a slow worker; the last line of the story arrives while it works.
      await store.driver.run(`UPDATE diagnosis_queue SET claimed_by = 'slow', claimed_until = now() + interval '1 minute'`);
      assert.deepEqual(await queueState(store), { queued: 1, claimed: 1 });
      await insertEvents(store.driver, story.slice(-1));
      await fold(store);
      const [row] = await store.driver.query<{ dirty: boolean }>(`SELECT dirty FROM diagnosis_queue WHERE biz_key = $1`, [ORDER_KEY]);
      assert.equal(row!.dirty, true);
      // The slow worker finishes: its result is stale, so the key stays queued, unclaimed.
      await store.driver.run(`DELETE FROM diagnosis_queue WHERE claimed_by = 'slow' AND NOT dirty`);
      await store.driver.run(`UPDATE diagnosis_queue SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = 'slow'`);
      assert.deepEqual(await queueState(store), { queued: 1, claimed: 0 });
      await drainQueue(store.driver);
      const [diagnosed] = await store.driver.query<{ duplicates: number }>(`SELECT duplicates FROM key_diagnoses WHERE biz_key = $1`, [ORDER_KEY]);
      assert.ok(diagnosed!.duplicates >= 1, "the whole story was diagnosed");
    });
  });
}

describe("leadership on one PostgreSQL", { skip: postgresAdminUrl === undefined && "set TEST_DATABASE_URL" }, () => {
  const backend = backends.find((b) => b.name === "postgres")!;
  let dispose: () => Promise<void>;
  const stores: Store[] = [];
  let config: Parameters<typeof openStore>[0];

  before(async () => {
    const created = await backend.create();
    dispose = created.dispose;
    config = created.config;
  });
  after(async () => {
    for (const s of stores) await s.close().catch(() => {});
    await dispose?.();
  });

  it("lets one process lead at a time, and another take over when the leader's connection dies", async () => {
    const a = await openStore(config);
    const b = await openStore(config);
    stores.push(a, b);
    const changes: string[] = [];
    const la: Leadership = lead(a.driver, "test-job", (on) => changes.push(`a ${on}`), 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lb: Leadership = lead(b.driver, "test-job", (on) => changes.push(`b ${on}`), 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual([la.leading, lb.leading], [true, false]);
    // The leader's process dies: PostgreSQL ends its sessions and frees the lock.
    await a.driver.run(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'SELECT 1%'`).catch(() => {});
    await la.stop();
    const deadline = Date.now() + 5000;
    while (!lb.leading && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(lb.leading, true, `changes: ${changes.join(", ")}`);
    await lb.stop();
    assert.deepEqual(changes, ["a true", "a false", "b true", "b false"]);
  });
});
