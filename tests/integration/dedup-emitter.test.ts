import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from "amqplib";
import { Redis } from "ioredis";
import pg from "pg";
import { parse } from "../../collectors/dedup-log/parse.ts";
import { createDedupLog, rabbitmqInstance, type DedupLog } from "../../packages/dedup/src/index.ts";
import { diagnoseKey } from "../../lib/diagnosis/diagnose.ts";
import type { KeyDiagnosis } from "../../lib/diagnosis/types.ts";
import { diagnoseKeys, drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { startCollector, type RunningCollector } from "../../lib/rabbitmq/collector.ts";
import { dropQueueOf } from "../../lib/rabbitmq/topology.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { BROKER_URL, brokerProblems, deleteQueues, sleep, uniqueName, waitFor, within } from "../helpers/rabbitmq.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The dedup emitter (packages/dedup, the package @dupscope/dedup) in a real consumer: RabbitMQ delivers, the
 * consumer's Redis marker and PostgreSQL unique key run through the emitter, a worker's channel closes before its
 * ack and the broker redelivers to a second worker. The emitter's file and dupscope's RabbitMQ collector feed a
 * fresh store of each backend, and the stored events are diagnosed as the server diagnoses them:
 *
 *   A  marker TTL 1 day: worker 2's Redis marker hits. One invoice row. ack_lost, caught by redis.
 *   B  marker TTL 300 ms, the redelivery ~1 s later, no durable layer (a points ledger without a unique key): the
 *      marker has expired, worker 2 runs the business again. Two ledger rows. ack_lost, leaked, marker_expired.
 *
 * Services: RabbitMQ (RABBITMQ_URL, default amqp://guest:guest@127.0.0.1:5672) with tracing and the event exchange,
 * Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379), PostgreSQL for the consumer's own tables
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; a schema of its own, dropped afterwards).
 * The suite is skipped when one of them cannot be reached at all, unless its variable says it must be there; a
 * broker that is reachable but not set up fails it with the command that fixes it.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const BUSINESS_DB_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function redisReachable(): Promise<string | null> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => {});
  try {
    await probe.connect();
    await probe.ping();
    return null;
  } catch (error) {
    if (process.env.TEST_REDIS_URL) throw error;
    return `no Redis at ${REDIS_URL} (set TEST_REDIS_URL)`;
  } finally {
    probe.disconnect();
  }
}

async function postgresReachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: BUSINESS_DB_URL, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return null;
  } catch (error) {
    if (process.env.TEST_DATABASE_URL) throw error;
    return `no PostgreSQL at ${BUSINESS_DB_URL.replace(/:[^:@/]*@/, ":***@")} (set TEST_DATABASE_URL)`;
  } finally {
    await client.end().catch(() => {});
  }
}

// The shovel plugin, which brokerProblems() also asks for, is for the DLQ replay story: this suite needs tracing
// and the event exchange only.
const brokerIssues = (await brokerProblems()).filter((p) => !p.includes("shovel"));
const brokerUnreachable = brokerIssues.find((p) => p.startsWith("cannot connect")) ?? null;
const skipReason = (brokerUnreachable !== null && !process.env.RABBITMQ_URL ? brokerUnreachable : null) ?? (await redisReachable()) ?? (await postgresReachable());

/** The consumer's own database: a dedup table with a unique key next to the invoices, and a ledger without one. */
class BusinessDb {
  readonly schema = `dupscope_emitter_${process.pid}_${randomBytes(3).toString("hex")}`;
  readonly pool = new pg.Pool({ connectionString: BUSINESS_DB_URL, max: 4 });

  async create(): Promise<void> {
    await this.pool.query(`CREATE SCHEMA "${this.schema}"`);
    await this.pool.query(`CREATE TABLE "${this.schema}".invoice_dedup (order_id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())`);
    await this.pool.query(`CREATE TABLE "${this.schema}".invoices (id serial PRIMARY KEY, order_id text NOT NULL, amount integer NOT NULL)`);
    await this.pool.query(`CREATE TABLE "${this.schema}".points_ledger (id serial PRIMARY KEY, order_id text NOT NULL, points integer NOT NULL)`);
  }

  async count(table: "invoices" | "points_ledger" | "invoice_dedup", orderId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${this.schema}".${table} WHERE order_id = $1`, [orderId]);
    return rows[0]!.n;
  }

  async drop(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch(() => {});
    await this.pool.end();
  }
}

interface Order {
  orderId: string;
  amount: number;
}

type Handled = "executed" | "skipped";

/**
 * A consumer as an application would write it with @dupscope/dedup. Invoice mode: Redis marker, then in one
 * transaction the dedup row (unique key) and the invoice. Points mode: Redis marker, then a ledger insert with no
 * unique key. It acknowledges only when told to: the test kills the first worker's channel instead.
 */
class Worker {
  readonly name: string;
  model!: ChannelModel;
  channel!: Channel;
  dedup!: DedupLog;
  instance!: string;
  readonly handled: Promise<{ result: Handled; msg: ConsumeMessage }>;
  #settle!: (value: { result: Handled; msg: ConsumeMessage }) => void;
  #fail!: (error: unknown) => void;

  constructor(name: string) {
    this.name = name;
    this.handled = new Promise((resolve, reject) => {
      this.#settle = resolve;
      this.#fail = reject;
    });
    this.handled.catch(() => {});
  }

  async start(options: { queue: string; logFile: string; redis: Redis; db: BusinessDb; mode: "invoice" | "points"; ttlMs: number; ack: boolean }): Promise<void> {
    this.model = await amqp.connect(BROKER_URL, { clientProperties: { connection_name: this.name } });
    this.model.on("error", () => {});
    this.channel = await this.model.createChannel();
    this.channel.on("error", () => {});
    await this.channel.prefetch(1);
    const instance = rabbitmqInstance(this.channel);
    assert.ok(instance, "amqplib's channel no longer exposes its number and socket");
    this.instance = instance;
    this.dedup = createDedupLog({ group: options.queue, broker: "rabbitmq", instance, write: options.logFile });
    await this.channel.consume(
      options.queue,
      (msg) => {
        if (msg === null) return;
        this.#handle(msg, options).then(
          (result) => {
            if (options.ack) this.channel.ack(msg);
            this.#settle({ result, msg });
          },
          (error: unknown) => this.#fail(error),
        );
      },
      { noAck: false },
    );
  }

  async #handle(msg: ConsumeMessage, { queue, redis, db, mode, ttlMs }: { queue: string; redis: Redis; db: BusinessDb; mode: "invoice" | "points"; ttlMs: number }): Promise<Handled> {
    const order = JSON.parse(msg.content.toString()) as Order;
    const deliveryCount = msg.properties.headers?.["x-delivery-count"] as number | undefined;
    const d = this.dedup.delivery({ bizKey: order.orderId, msgId: msg.properties.messageId as string, queueId: queue, ...(deliveryCount !== undefined ? { retryTimes: deliveryCount } : {}) });

    const marker = await d.redisMarker(redis, { key: `${REDIS_PREFIX}:${mode}:${order.orderId}`, ttlMs });
    if (marker.hit) return "skipped";

    if (mode === "points") {
      await d.run(() => db.pool.query(`INSERT INTO "${db.schema}".points_ledger (order_id, points) VALUES ($1, $2)`, [order.orderId, Math.floor(order.amount / 100)]));
      return "executed";
    }
    const tx = await db.pool.connect();
    try {
      await tx.query("BEGIN");
      const row = await d.dbUniqueInsert(() => tx.query(`INSERT INTO "${db.schema}".invoice_dedup (order_id) VALUES ($1)`, [order.orderId]), { dedupKey: `invoice_dedup:${order.orderId}` });
      if (row.hit) {
        await tx.query("ROLLBACK");
        return "skipped";
      }
      await d.run(async () => {
        try {
          await tx.query(`INSERT INTO "${db.schema}".invoices (order_id, amount) VALUES ($1, $2)`, [order.orderId, order.amount]);
          await tx.query("COMMIT");
        } catch (error) {
          await tx.query("ROLLBACK").catch(() => {});
          throw error;
        }
      });
      return "executed";
    } finally {
      tx.release();
    }
  }

  /** The worker dies before acknowledging: its channel closes, the broker requeues the delivery. */
  async dieBeforeAck(): Promise<void> {
    await this.channel.close();
  }

  async stop(): Promise<void> {
    this.dedup?.close();
    await this.model?.close().catch(() => {});
  }
}

const REDIS_PREFIX = `dupscope-test-emitter:${process.pid}:${Date.now().toString(36)}`;

for (const backend of backends) {
  describe(`dedup emitter in a RabbitMQ consumer, diagnosed from ${backend.name}`, { skip: skipReason ?? false }, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let collector: RunningCollector;
    let redis: Redis;
    let db: BusinessDb;
    let dir: string;
    const collectorQueue = uniqueName("emitter-collector");

    before(async () => {
      assert.deepEqual(brokerIssues, [], `the RabbitMQ broker is not ready for these tests:\n  ${brokerIssues.join("\n  ")}`);
      dir = mkdtempSync(path.join(tmpdir(), "dupscope-dedup-emitter-"));
      redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      db = new BusinessDb();
      await db.create();
      const created = await backend.create();
      dispose = created.dispose;
      store = await openStore(created.config);
      collector = startCollector({ key: "json:$.orderId", queue: collectorQueue, flushAfterMs: 50, reconnectInitialDelayMs: 200, reconnectMaxDelayMs: 1000 }, { sink: driverSink(store.driver) });
      await collector.ready;
      await waitFor("the collector to see its tracing probe", async () => collector.stats()[0]!.tracing === "on", 10_000);
    });

    after(async () => {
      await collector?.stop();
      await deleteQueues(collectorQueue, dropQueueOf(collectorQueue)).catch(() => {});
      await store?.close();
      await dispose?.();
      if (redis) {
        const keys = await redis.keys(`${REDIS_PREFIX}:*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Publishes one order; worker 1 handles it and, `holdMs` later, dies before its ack; worker 2 gets the
     * redelivery and acknowledges. Returns the dedup log lines and both workers' instances.
     */
    async function ackLostAfterDedup(label: string, mode: "invoice" | "points", ttlMs: number, holdMs: number) {
      const queue = uniqueName(`emitter-${label}`);
      const orderId = `ORD-${label}-${randomBytes(4).toString("hex")}`;
      const msgId = `msg-${randomBytes(6).toString("hex")}`;
      const logFile = path.join(dir, `${label}-${backend.name}`, "dedup.log");
      const producer = await amqp.connect(BROKER_URL, { clientProperties: { connection_name: "order-api" } });
      const first = new Worker(`invoice-worker-1-${label}`);
      const second = new Worker(`invoice-worker-2-${label}`);
      try {
        const p = await producer.createConfirmChannel();
        await p.assertQueue(queue, { durable: true });
        await first.start({ queue, logFile, redis, db, mode, ttlMs, ack: false });
        p.sendToQueue(queue, Buffer.from(JSON.stringify({ orderId, amount: 12900 })), { messageId: msgId, persistent: true, contentType: "application/json" });
        await p.waitForConfirms();
        const one = await within(10_000, "worker 1's delivery", first.handled);
        assert.equal(one.result, "executed");
        assert.equal(one.msg.fields.redelivered, false);
        await sleep(holdMs);
        await second.start({ queue, logFile, redis, db, mode, ttlMs, ack: true });
        await first.dieBeforeAck();
        const two = await within(10_000, "worker 2's redelivery", second.handled);
        assert.equal(two.msg.fields.redelivered, true);
        await p.deleteQueue(queue);
        return { queue, orderId, msgId, logFile, second: two.result, instances: { first: first.instance, second: second.instance } };
      } finally {
        await first.stop();
        await second.stop();
        await producer.close().catch(() => {});
      }
    }

    /** The emitter's file into the store as `dupscope ingest --format dedup-log` would put it; the collector adds the broker's side. */
    async function ingestAndDiagnose(run: { orderId: string; logFile: string; instances: { first: string } }): Promise<{ stored: KeyDiagnosis; dedupLogOnly: KeyDiagnosis }> {
      const parsed = parse(readFileSync(run.logFile, "utf8"), { source: `dedup-log:${run.logFile}` });
      assert.deepEqual(parsed.issues, [], "the collector rejected a line the emitter wrote");
      await insertEvents(store.driver, parsed.events);
      const count = async (sql: string, params: unknown[]) => (await store.driver.query<{ n: number }>(sql, params))[0]!.n;
      await waitFor("both deliveries in the store", async () => (await count(`SELECT count(*)::int AS n FROM events WHERE biz_key = $1 AND kind = 'consume_start'`, [run.orderId])) >= 2);
      await waitFor("worker 1's channel close in the store", async () =>
        (await count(`SELECT count(*)::int AS n FROM events WHERE kind = 'instance_lifecycle' AND instance = $1 AND detail->>'action' = 'channel_closed'`, [run.instances.first])) >= 1,
      );
      const [result] = await diagnoseKeys(store.driver, [run.orderId]);
      assert.ok(result, `no stored events for ${run.orderId}`);
      return { stored: result.diagnosis, dedupLogOnly: diagnoseKey({ bizKey: run.orderId, events: parsed.events, context: [] }) };
    }

    async function storedVerdicts(orderId: string) {
      await drainQueue(store.driver);
      return store.driver.query<{ cause: string; outcome: string; layer: string | null; defect: string | null; first_instance: string; second_instance: string }>(
        `SELECT cause, outcome, layer, defect, first_instance, second_instance FROM verdicts WHERE biz_key = $1`,
        [orderId],
      );
    }

    it("A: the redelivery after a lost ack meets worker 1's Redis marker: ack_lost, caught by redis, one invoice", async () => {
      const run = await ackLostAfterDedup("a", "invoice", 86_400_000, 0);
      assert.equal(run.second, "skipped");
      assert.equal(await db.count("invoices", run.orderId), 1, "the business ran once");
      assert.equal(await db.count("invoice_dedup", run.orderId), 1);

      const lines = readFileSync(run.logFile, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((l) => `${l.instance === run.instances.first ? "1" : "2"} ${String(l.layer)} ${String(l.decision)}`),
        ["1 redis pass", "1 db pass", "1 db executed", "2 redis hit"],
      );
      assert.ok(lines.every((l) => l.broker === "rabbitmq" && l.group === run.queue && l.msgId === run.msgId && l.bizKey === run.orderId));

      const { stored, dedupLogOnly } = await ingestAndDiagnose(run);
      assert.equal(stored.duplicates.length, 1, JSON.stringify(stored.duplicates));
      const v = stored.duplicates[0]!;
      assert.equal(v.cause, "ack_lost");
      assert.equal(v.outcome, "caught");
      assert.equal(v.layer, "redis");
      assert.equal(v.group, run.queue);
      assert.deepEqual(v.instances, run.instances, "the emitter's lines joined the broker's deliveries");
      assert.ok(v.evidence.some((e) => e.code === "channel_lost"));
      assert.ok(v.evidence.some((e) => e.code === "dedup_hit" && e.values.layer === "redis"));
      for (const d of stored.deliveries) assert.deepEqual([...d.sources].sort(), ["dedup_log", "firehose"], `delivery ${d.id} joined both sources`);
      assert.deepEqual(stored.lost, []);

      // The dedup log alone already decides the outcome; the cause needs the broker's side.
      assert.equal(dedupLogOnly.duplicates.length, 1);
      assert.equal(dedupLogOnly.duplicates[0]!.outcome, "caught");
      assert.equal(dedupLogOnly.duplicates[0]!.layer, "redis");

      const rows = await storedVerdicts(run.orderId);
      assert.deepEqual(rows.map((r) => [r.cause, r.outcome, r.layer, r.defect]), [["ack_lost", "caught", "redis", null]]);
    });

    it("B: a 300 ms marker and a redelivery a second later, nothing durable behind it: leaked, marker_expired, two ledger rows", async () => {
      const ttlMs = 300;
      const run = await ackLostAfterDedup("b", "points", ttlMs, 1000);
      assert.equal(run.second, "executed");
      assert.equal(await db.count("points_ledger", run.orderId), 2, "the business ran twice: the leak is real");

      const lines = readFileSync(run.logFile, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((l) => `${l.instance === run.instances.first ? "1" : "2"} ${String(l.layer)} ${String(l.decision)}`),
        ["1 redis pass", "1 redis executed", "2 redis pass", "2 redis executed"],
      );
      const passes = lines.filter((l) => l.decision === "pass");
      assert.ok((passes[1]!.ts as number) - (passes[0]!.ts as number) > ttlMs, "the redelivery came after the marker expired");
      assert.ok(passes.every((l) => l.ttlMs === ttlMs));

      const { stored, dedupLogOnly } = await ingestAndDiagnose(run);
      assert.equal(stored.duplicates.length, 1, JSON.stringify(stored.duplicates));
      const v = stored.duplicates[0]!;
      assert.equal(v.cause, "ack_lost");
      assert.equal(v.outcome, "leaked");
      assert.equal(v.defect, "marker_expired");
      assert.deepEqual(v.instances, run.instances);
      const gap = v.evidence.find((e) => e.code === "gap_over_ttl");
      assert.ok(gap, JSON.stringify(v.evidence));
      assert.equal(gap.values.ttlMs, ttlMs);
      assert.ok(v.evidence.some((e) => e.code === "executed_twice"));

      assert.equal(dedupLogOnly.duplicates[0]!.outcome, "leaked");
      assert.equal(dedupLogOnly.duplicates[0]!.defect, "marker_expired");

      const rows = await storedVerdicts(run.orderId);
      assert.deepEqual(rows.map((r) => [r.cause, r.outcome, r.layer, r.defect]), [["ack_lost", "leaked", null, "marker_expired"]]);
    });
  });
}
