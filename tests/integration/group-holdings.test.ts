import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { runRetentionOnce } from "../../lib/retention/job.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { keyReport } from "../../lib/views/key-report.ts";
import { client, dedup, redisOnce, T0, trace } from "../helpers/diagnosis-events.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * Who held which queue, through the store (issue 49): the old owner's `add a new mq` is ingested days before the key,
 * the retention job drops its partition, and a rebalance duplicate that follows still names the old owner, since
 * when it held the queue and that its line expired, though the only raw line of the move is the new owner's take.
 */

const DAY = 86_400_000;
const RETENTION = { eventsMs: DAY, verdictsMs: 30 * DAY };
const GROUP = "cg_pay";
const QUEUE = "broker-a:3";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";

const count = async (driver: { query<R>(sql: string, params?: unknown[]): Promise<R[]> }, sql: string) =>
  Number((await driver.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`))[0]!.n);

/** `at` is epoch ms: the helpers count from T0. */
const take = (at: number, instance: string, queue = QUEUE, group = GROUP) => client.rebalance("add", { at: at - T0, group, queue, instance });

function duplicate(at: number, key: string, msgId: string): NormalizedEvent[] {
  const t = at - T0;
  return [
    ...trace.consume({ at: t, bizKey: key, msgId, group: GROUP, host: "10.0.0.5" }),
    ...redisOnce({ at: t, bizKey: key, msgId, group: GROUP, instance: A, queue: QUEUE, queueOffset: 88123 }),
    ...trace.consume({ at: t + 1690, bizKey: key, msgId, group: GROUP, host: "10.0.0.7" }),
    dedup({ at: t + 1692, bizKey: key, msgId, group: GROUP, instance: B, layer: "redis", decision: "hit", queue: QUEUE, queueOffset: 88123, dedupKey: `pay:${key}` }),
  ];
}

for (const backend of backends) {
  describe(`who held which queue over time on ${backend.name}`, () => {
    const store = useFreshStore(backend);

    it("names the old holder of a queue taken three days before its key, with a one-day raw retention", async () => {
      const { driver } = store();
      const now = Date.now();
      const heldSince = now - 3 * DAY;
      await insertEvents(driver, [take(heldSince, A), take(heldSince, A, "broker-a:1")]);
      await drainQueue(driver);
      const retention = await runRetentionOnce(driver, RETENTION, now);
      assert.ok(retention.droppedPartitions.length > 0);
      assert.equal(await count(driver, `events WHERE group_name = '${GROUP}'`), 0, "the take lines are gone");
      assert.equal(await count(driver, `group_holdings WHERE group_name = '${GROUP}' AND until_ts IS NULL`), 2, "both queues are still held");

      const at = now - 10 * 60_000;
      const key = "PAY-20261207-004242";
      const msgId = "0A000005303918B4AAC27A1C3A904242";
      await insertEvents(driver, [take(at + 400, B), ...duplicate(at, key, msgId)]);
      await drainQueue(driver);

      const held = await driver.query<{ holder: string; closed_by: string | null }>(`SELECT holder, closed_by FROM group_holdings WHERE group_name = $1 AND queue = $2 ORDER BY n`, [GROUP, QUEUE]);
      assert.deepEqual(held.map((h) => [h.holder, h.closed_by]), [[A, "taken"], [B, null]]);
      const report = (await keyReport(driver, key))!;
      assert.deepEqual(report.duplicates.map((v) => v.cause), ["rebalance"]);
      const e = report.duplicates[0]!.evidence.find((x) => x.code === "queue_taken_over")!;
      assert.match(e.text, /^10\.0\.0\.5@4121 had held queue .*broker-a:3.* since .* \(raw line expired\) until 10\.0\.0\.7@88 took it at /);
    });

    it("changes nothing when the same lines are ingested again, and forgets holdings that ended before the verdicts' retention", async () => {
      const { driver } = store();
      const now = Date.now();
      const old = now - 40 * DAY;
      // A group of its own: the store is shared by the tests of a backend.
      const group = "cg_pay_old";
      const lines = [
        take(old, A, QUEUE, group),
        client.rebalance("remove", { at: old + 60_000 - T0, group, queue: QUEUE, instance: A }),
        take(old + 120_000, B, QUEUE, group),
        take(old, A, "broker-a:1", group),
        client.lifecycle("shutdown", { at: old + 180_000 - T0, group, instance: A }),
      ];
      await insertEvents(driver, lines, { oldest: 0, newest: Number.MAX_SAFE_INTEGER });
      await drainQueue(driver);
      const before = await driver.query(`SELECT * FROM group_holdings WHERE group_name = $1 ORDER BY n`, [group]);
      assert.equal(before.length, 3);
      await insertEvents(driver, lines, { oldest: 0, newest: Number.MAX_SAFE_INTEGER });
      await drainQueue(driver);
      assert.deepEqual(await driver.query(`SELECT * FROM group_holdings WHERE group_name = $1 ORDER BY n`, [group]), before);

      const report = await runRetentionOnce(driver, RETENTION, now);
      assert.equal(report.deleted.holdingChanges, 3, "A's take and remove of broker-a:3 and its take of broker-a:1, which its shutdown ended");
      const left = await driver.query<{ holder: string; queue: string; until_ts: unknown }>(`SELECT holder, queue, until_ts FROM group_holdings WHERE group_name = $1`, [group]);
      assert.deepEqual(left, [{ holder: B, queue: QUEUE, until_ts: null }], "the holding still open is kept, however old");
    });
  });
}
