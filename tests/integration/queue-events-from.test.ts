import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadDemoDay } from "../../lib/demo/load.ts";
import { diagnoseKeys, drainQueue, processQueueStep, saveDiagnoses } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../../lib/store/event-rows.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { foldJournal } from "../../lib/store/ingest-journal.ts";
import type { Store } from "../../lib/store/open.ts";
import { backends, useStoreFactory } from "../helpers/stores.ts";

/**
 * A worker reads a queued key's events from the time its queue row keeps, or from its stored diagnosis's first event,
 * whichever is earlier (lib/diagnosis-queue/queue.ts, eventsBounds). Events arrive in any order: late ones for keys
 * already diagnosed, keyless lines naming a message or a key or no group, batches folded between steps. Whatever the
 * order, the stored verdicts and key diagnoses must be those of every key read whole. Not the evidence each verdict
 * cites: a line past a key's reach (lib/diagnosis/reach.ts) cannot change its verdicts, so it does not queue the key,
 * and the stored evidence may cite the line before it where a whole read would cite it. Keys delivered once are settled
 * by the fold without the queue, their events summed over however many batches they came in (lib/store/plain-keys.ts).
 */

const NOW = Date.UTC(2026, 10, 29, 15, 0, 0);

async function snapshot(store: Store): Promise<string> {
  const verdicts = await store.driver.query(
    `SELECT id, biz_key, cause, confidence, outcome, layer, defect, gap_ms::text, first_ts::text, second_ts::text, first_instance, second_instance, msg_id
       FROM verdicts ORDER BY id`,
  );
  const keys = await store.driver.query(
    `SELECT biz_key, groups, topics, first_ts::text, last_ts::text, duplicates, leaked, lost, normal_retries FROM key_diagnoses ORDER BY biz_key`,
  );
  return JSON.stringify({ verdicts, keys });
}

/** mulberry32: the same shuffle on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

for (const backend of backends) {
  describe(`a key's events read from its first, on ${backend.name}`, () => {
    const open = useStoreFactory(backend);

    let events: NormalizedEvent[];
    let reference: string;
    before(async () => {
      const whole = await open();
      await loadDemoDay({ now: NOW, hours: 2, runs: 1, scale: 0.3, sink: driverSink(whole.driver) });
      events = (await whole.driver.query<EventRowSql>(`SELECT ${EVENT_SELECT} FROM events ORDER BY ts, id`)).map(eventFromSql);
      const keys = [...new Set(events.flatMap((e) => (e.bizKey === null ? [] : [e.bizKey])))].sort();
      assert.ok(keys.length > 100, `${keys.length} keys`);
      // The reference: every key diagnosed once, read whole, after all its events are in, with the groups' members
      // folded from the journal as a worker's step does first.
      while ((await foldJournal(whole.driver)).rows > 0);
      await whole.driver.run(`DELETE FROM diagnosis_queue`);
      await saveDiagnoses(whole.driver, await diagnoseKeys(whole.driver, keys));
      reference = await snapshot(whole);
    });

    for (const seed of [1, 8]) {
      it(`events in shuffled batches (seed ${seed}), diagnosed step by step, end as every key read whole`, async () => {
        const stepped = await open();
        const order = shuffled(events, seed);
        const BATCH = 400;
        let late = 0;
        let bounded = 0;
        let settled = 0;
        for (let i = 0; i < order.length; i += BATCH) {
          const batch = order.slice(i, i + BATCH);
          // Own events older than the stored diagnosis of their key: what the queue's time must reach back to.
          const firsts = new Map(
            (await stepped.driver.query<{ biz_key: string; first_ts: string }>(`SELECT biz_key, first_ts::text FROM key_diagnoses`)).map((r) => [r.biz_key, Number(r.first_ts)]),
          );
          late += batch.filter((e) => e.bizKey !== null && firsts.has(e.bizKey) && e.ts < firsts.get(e.bizKey)!).length;
          const stored = await insertEvents(stepped.driver, batch);
          assert.equal(stored.rejected.length, 0);
          settled += (await processQueueStep(stepped.driver, { batch: 60 })).keysSettled;
          const [queued] = await stepped.driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM diagnosis_queue WHERE since_ts IS NOT NULL`);
          bounded += queued!.n;
          settled += (await processQueueStep(stepped.driver, { batch: 60 })).keysSettled;
        }
        await drainQueue(stepped.driver, 100);
        assert.equal(await snapshot(stepped), reference);
        assert.ok(late >= 20, `${late} events arrived older than their key's stored diagnosis`);
        assert.ok(bounded >= 30, `${bounded} queued keys had a time to read from`);
        assert.ok(settled >= 50, `${settled} keys settled by the fold as delivered once, some of them over several batches`);
      });
    }
  });
}
