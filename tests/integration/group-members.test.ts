import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpanKind } from "@opentelemetry/api";
import { decodeProtobuf } from "../../collectors/otlp-traces/decode.ts";
import { mapSpans, parseKeyRules } from "../../collectors/otlp-traces/map.ts";
import { openBrokerLog } from "../../collectors/rocketmq-broker-log/parse.ts";
import { parseLines } from "../../collectors/types.ts";
import { SPANS_VIA } from "../../lib/diagnosis/members.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { runRetentionOnce } from "../../lib/retention/job.ts";
import { gmt8 } from "../../lib/simulator/clock.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { BACKFILL_SETTING } from "../../lib/store/group-state-backfill.ts";
import { keyReport } from "../../lib/views/key-report.ts";
import { dedup, SEC, T0, trace } from "../helpers/diagnosis-events.ts";
import { protobufBody, SpanRecorder } from "../helpers/otel.ts";
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

const HOUR = 3_600_000;

/** A RocketMQ 5 consumer's process spans (one per message), made by the OpenTelemetry SDK, as the receiver maps them. */
function rocketmqSpans(pod: string, group: string, messages: readonly { at: number; key: string; msgId: string }[]): NormalizedEvent[] {
  const recorder = new SpanRecorder({ "service.name": "ledger", "k8s.pod.name": pod }, "io.opentelemetry.rocketmq-client-5.0");
  for (const m of messages) {
    recorder.span({
      name: "pay-topic process",
      kind: SpanKind.CONSUMER,
      start: m.at,
      end: m.at + 30,
      attributes: {
        "messaging.system": "rocketmq",
        "messaging.destination.name": "pay-topic",
        "messaging.operation": "process",
        "messaging.rocketmq.client_group": group,
        "messaging.rocketmq.consumption_model": "broadcasting",
        "messaging.message.id": m.msgId,
        "messaging.rocketmq.message.keys": [m.key],
      },
    });
  }
  return mapSpans(decodeProtobuf(protobufBody(recorder.spans())).spans, parseKeyRules("")).events;
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

    it("reads the group lines a store held before it kept group state into it, once, before the retention drops them", async () => {
      const { driver } = store();
      const now = Date.now();
      const connectedAt = now - 2 * DAY;
      assert.equal(await count(driver, `dupscope_settings WHERE name = $1`, [BACKFILL_SETTING]), 0, "a store made with the group state needs no backfill");
      await insertEvents(driver, brokerLines([
        connected(connectedAt, "cg_bc_old", "BROADCASTING", "10.0.22.11", 40112, "10.0.22.11@3117"),
        connected(connectedAt + SEC, "cg_bc_old", "BROADCASTING", "10.0.22.12", 40113, "10.0.22.12@3118"),
      ]));
      await drainQueue(driver);
      // As a store upgraded from before …_group_members finds itself: the lines are stored, the state is empty.
      await driver.run(`DELETE FROM group_member_changes`);
      await driver.run(`DELETE FROM group_members`);
      await driver.run(`INSERT INTO dupscope_settings (name, value) VALUES ($1, 'pending')`, [BACKFILL_SETTING]);

      const first = await runRetentionOnce(driver, RETENTION, now);
      assert.deepEqual(first.backfilled, { lines: 2, groups: 1 });
      assert.ok(first.droppedPartitions.length > 0);
      assert.equal(await count(driver, `events WHERE group_name = 'cg_bc_old'`), 0, "the lines are gone");
      assert.equal(await count(driver, `group_members WHERE group_name = 'cg_bc_old' AND until_ts IS NULL AND model = 'BROADCASTING'`), 2, "their members are kept");
      assert.equal((await runRetentionOnce(driver, RETENTION, now)).backfilled, undefined, "once");
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

    it("keeps the members consumer spans showed, one change per process and hour, after the retention dropped their first spans", async () => {
      const { driver } = store();
      const now = Date.now();
      const from = Math.floor((now - 2 * DAY) / HOUR) * HOUR;
      const pods = ["ledger-5d8f9-abcde", "ledger-5d8f9-fghij"];
      // Every 30 minutes for two days, up to 20 minutes ago: a broadcasting group whose two pods export their spans.
      const every = Array.from({ length: Math.floor((now - 20 * 60_000 - from) / (30 * 60_000)) + 1 }, (_, i) => from + i * 30 * 60_000);
      const spans = pods.flatMap((pod) => rocketmqSpans(pod, "cg_ledger", every.map((at, i) => ({ at, key: `LEDGER-${pod}-${i}`, msgId: `01A9${pod.slice(-5)}${i}` }))));
      await insertEvents(driver, spans);
      await drainQueue(driver);
      const changes = await count(driver, `group_member_changes WHERE group_name = 'cg_ledger'`);
      const hours = new Set(every.map((at) => Math.floor(at / HOUR))).size;
      assert.ok(changes >= pods.length * hours && changes <= pods.length * (hours + 1), `${changes} changes for ${spans.length} span events over ${hours} hours`);
      const intervals = `SELECT member, via, since_ts, until_ts FROM group_members WHERE group_name = 'cg_ledger' ORDER BY member`;
      const before = await driver.query(intervals);
      assert.deepEqual(before.map((r: Record<string, unknown>) => [r.member, r.via, Number(r.since_ts), r.until_ts]), pods.map((pod) => [pod, SPANS_VIA, from, null]));

      await insertEvents(driver, spans);
      await drainQueue(driver);
      assert.equal(await count(driver, `group_member_changes WHERE group_name = 'cg_ledger'`), changes, "spans exported again change nothing");
      await runRetentionOnce(driver, RETENTION, now);
      assert.ok((await count(driver, `events WHERE group_name = 'cg_ledger'`)) < spans.length, "the first days' spans are gone");
      assert.deepEqual(await driver.query(intervals), before, "the members are still there from their first span");

      const key = "LEDGER-20261207-000042";
      await insertEvents(driver, pods.flatMap((pod, n) => rocketmqSpans(pod, "cg_ledger", [{ at: now - 10 * 60_000 + n * 4, key, msgId: "01A9F3C2D4E5F60708090A0B0C" }])));
      await drainQueue(driver);
      const report = (await keyReport(driver, key))!;
      assert.deepEqual(report.duplicates.map((v) => v.cause), ["broadcast_consumption"]);
      assert.match(report.duplicates[0]!.evidence.find((x) => x.code === "broadcasting_group")!.text, /consumed so by its spans and has been seen since .*raw line expired/);
      assert.deepEqual(report.membership.map((m) => m.members.map((l) => l.member)), [pods, pods], "both pods were in the group at each delivery");
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
