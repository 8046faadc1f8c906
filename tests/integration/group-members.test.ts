import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openBrokerLog } from "../../collectors/rocketmq-broker-log/parse.ts";
import { parseLines } from "../../collectors/types.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { runRetentionOnce } from "../../lib/retention/job.ts";
import { gmt8 } from "../../lib/simulator/clock.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { keyReport } from "../../lib/views/key-report.ts";
import { dedup, SEC, T0, trace } from "../helpers/diagnosis-events.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * A group's state over time through the store (issue 49): the broker's connect lines are ingested days before the
 * keys, the retention job drops their partition, and the keys that follow are still read against the members those
 * lines made — a broadcasting group's second consumption stays by design, and two processes sharing one clientId
 * are still named.
 */

const DAY = 86_400_000;
const RETENTION = { eventsMs: DAY, verdictsMs: 30 * DAY };

const channel = (host: string, port: number, clientId: string, at: number) =>
  `ClientChannelInfo [channel=[id: 0x2f1c9a07, L:/10.0.0.2:10911 - R:/${host}:${port}], clientId=${clientId}, language=JAVA, version=401, lastUpdateTimestamp=${at}]`;
const connected = (at: number, group: string, model: string, host: string, port: number, clientId: string) =>
  `${gmt8(at, "s")} INFO HeartbeatThread_2 - new consumer connected, group: ${group} CONSUME_PASSIVELY ${model} channel: ${channel(host, port, clientId, at)}`;

function brokerLines(lines: string[]): NormalizedEvent[] {
  const parsed = parseLines(lines.join("\n"), openBrokerLog({ source: "rocketmq-broker-log:broker-a.log", instance: "broker-a" }));
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.events.length, lines.length);
  return parsed.events;
}

const count = async (driver: { query<R>(sql: string, params?: unknown[]): Promise<R[]> }, sql: string, params: unknown[] = []) =>
  Number((await driver.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params))[0]!.n);

for (const backend of backends) {
  describe(`a group's members over time on ${backend.name}`, () => {
    const store = useFreshStore(backend);

    it("keeps a broadcasting group by design after the retention dropped its connect lines", async () => {
      const { driver } = store();
      const now = Date.now();
      const connectedAt = now - 2 * DAY;
      const lines = brokerLines([
        connected(connectedAt, "cg_bc", "BROADCASTING", "10.0.22.11", 40112, "10.0.22.11@3117"),
        connected(connectedAt + SEC, "cg_bc", "BROADCASTING", "10.0.22.12", 40113, "10.0.22.12@3118"),
      ]);
      await insertEvents(driver, lines);
      await drainQueue(driver);
      const retention = await runRetentionOnce(driver, RETENTION, now);
      assert.ok(retention.droppedPartitions.length > 0);
      assert.equal(await count(driver, `events WHERE group_name = 'cg_bc'`), 0, "the connect lines are gone");
      assert.equal(await count(driver, `group_members WHERE group_name = 'cg_bc' AND until_ts IS NULL`), 2, "the two members are still connected");

      const at = now - 10 * 60_000 - T0;
      const key = "CFG-20261205-000042";
      const msgId = "0A000005303918B4AAC27A1C3A90C042";
      await insertEvents(driver, [
        ...trace.consume({ at, bizKey: key, msgId, group: "cg_bc", host: "10.0.22.11" }),
        ...trace.consume({ at: at + 4, bizKey: key, msgId, group: "cg_bc", host: "10.0.22.12" }),
      ]);
      await drainQueue(driver);

      const report = (await keyReport(driver, key))!;
      assert.deepEqual(report.duplicates.map((v) => [v.cause, v.outcome]), [["broadcast_consumption", "unknown"]]);
      const e = report.duplicates[0]!.evidence.find((x) => x.code === "broadcasting_group")!;
      assert.match(e.text, /has been connected since .*raw line expired/);
      assert.equal(await count(driver, `verdicts WHERE group_name = 'cg_bc'`), 0, "no verdict is stored for a by-design consumption");
    });

    it("names a shared clientId that connected three days before its keys, with a one-day raw retention", async () => {
      const { driver } = store();
      const now = Date.now();
      const connectedAt = now - 3 * DAY;
      const host = "10.0.11.20";
      await insertEvents(driver, brokerLines([
        connected(connectedAt, "cg_order_paid", "CLUSTERING", host, 48864, `${host}@DEFAULT`),
        connected(connectedAt + 2 * SEC, "cg_order_paid", "CLUSTERING", host, 51202, `${host}@DEFAULT`),
      ]));
      await drainQueue(driver);
      await runRetentionOnce(driver, RETENTION, now);
      assert.equal(await count(driver, `events WHERE group_name = 'cg_order_paid'`), 0, "the connect lines are gone");

      const at = now - 10 * 60_000 - T0;
      const key = "PAY-20261207-000777";
      const msgId = "0A000005303918B4AAC27A1C3A900777";
      const group = "cg_order_paid";
      await insertEvents(driver, [
        dedup({ at, bizKey: key, msgId, group, instance: `${host}@4242`, layer: "redis", decision: "pass", ttlMs: DAY }),
        dedup({ at: at + 3, bizKey: key, msgId, group, instance: `${host}@4242`, layer: "redis", decision: "executed" }),
        dedup({ at: at + 7, bizKey: key, msgId, group, instance: `${host}@5151`, layer: "redis", decision: "hit" }),
      ]);
      await drainQueue(driver);

      const report = (await keyReport(driver, key))!;
      assert.deepEqual(report.duplicates.map((v) => [v.cause, v.outcome]), [["shared_client_id", "caught"]]);
      const e = report.duplicates[0]!.evidence.find((x) => x.code === "client_id_shared")!;
      assert.match(e.text, /same clientId 10\.0\.11\.20@DEFAULT \(from 10\.0\.11\.20:48864 and 10\.0\.11\.20:51202, connected since .* raw lines expired\)/);
      const stored = await driver.query<{ cause: string }>(`SELECT cause FROM verdicts WHERE biz_key = $1`, [key]);
      assert.deepEqual(stored.map((r) => r.cause), ["shared_client_id"]);
    });

    it("changes nothing when the same lines are ingested again, and forgets intervals that ended before the verdicts' retention", async () => {
      const { driver } = store();
      const now = Date.now();
      const host = "10.0.33.1";
      const old = now - 40 * DAY;
      const unregister = `${gmt8(old + 60_000, "s")} INFO ClientManageThread_1 - unregister a consumer[cg_old] from consumerGroupInfo ${channel(host, 40001, `${host}@1`, old)}`;
      const lines = brokerLines([connected(old, "cg_old", "CLUSTERING", host, 40001, `${host}@1`), unregister, connected(old + 120_000, "cg_old", "CLUSTERING", host, 40002, `${host}@2`)]);
      await insertEvents(driver, lines, { oldest: 0, newest: Number.MAX_SAFE_INTEGER });
      await drainQueue(driver);
      const before = await driver.query(`SELECT * FROM group_members WHERE group_name = 'cg_old' ORDER BY n`);
      await insertEvents(driver, lines, { oldest: 0, newest: Number.MAX_SAFE_INTEGER });
      await drainQueue(driver);
      assert.deepEqual(await driver.query(`SELECT * FROM group_members WHERE group_name = 'cg_old' ORDER BY n`), before);
      assert.equal(before.length, 2);

      const report = await runRetentionOnce(driver, RETENTION, now);
      assert.equal(report.deleted.memberChanges, 2, "the connect and unregister of the ended interval");
      const left = await driver.query<{ member: string; until_ts: unknown }>(`SELECT member, until_ts FROM group_members WHERE group_name = 'cg_old'`);
      assert.deepEqual(left, [{ member: `${host}@2`, until_ts: null }], "the interval still open is kept, however old");
    });
  });
}
