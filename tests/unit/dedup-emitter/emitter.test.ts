import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import {
  createDedupLog,
  defaultInstance,
  DedupLogError,
  DedupLogUsageError,
  isUniqueViolation,
  MAX_ERROR_CHARS,
  rabbitmqInstance,
  type DedupLogOptions,
} from "../../../packages/dedup/src/index.ts";
import { fakeRedis, manualClock } from "../../helpers/dedup-emitter.ts";

const INSTANCE = "10.8.3.17@23817";

function setup(options: Partial<DedupLogOptions> = {}) {
  const clock = manualClock();
  const lines: string[] = [];
  const log = createDedupLog({ group: "points-award", broker: "kafka", instance: INSTANCE, clock: clock.now, write: (l) => lines.push(l), ...options });
  const redis = fakeRedis(clock.now);
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const decisions = () => records().map((r) => `${String(r.layer)} ${String(r.decision)}`);
  return { clock, lines, log, redis, records, decisions };
}

const pgDuplicate = () => Object.assign(new Error('duplicate key value violates unique constraint "invoice_dedup_pkey"'), { code: "23505" });

describe("redisMarker", () => {
  it("sets the marker with SET key value PX ttl NX and logs pass with the key and TTL", async () => {
    const { log, redis, records, clock } = setup();
    const d = log.delivery({ bizKey: "ORD-1", topic: "order-paid", queueId: "order-paid-3", queueOffset: 884213 });
    const marker = await d.redisMarker(redis, { key: "points:ORD-1", ttlMs: 86_400_000 });
    assert.equal(marker.passed, true);
    assert.equal(marker.hit, false);
    assert.deepEqual(redis.calls, ["SET points:ORD-1 1 PX 86400000 NX"]);
    assert.deepEqual(records(), [
      {
        ts: clock.now(),
        bizKey: "ORD-1",
        group: "points-award",
        topic: "order-paid",
        instance: INSTANCE,
        broker: "kafka",
        layer: "redis",
        decision: "pass",
        queueId: "order-paid-3",
        queueOffset: 884213,
        dedupKey: "points:ORD-1",
        ttlMs: 86_400_000,
      },
    ]);
  });

  it("logs hit without a TTL when the marker is already there, and marks the delivery skipped", async () => {
    const { log, redis, records } = setup();
    await log.delivery({ bizKey: "ORD-1" }).redisMarker(redis, { key: "points:ORD-1", ttlMs: 60_000 });
    const second = log.delivery({ bizKey: "ORD-1" });
    const marker = await second.redisMarker(redis, { key: "points:ORD-1", ttlMs: 60_000 });
    assert.equal(marker.hit, true);
    assert.equal(second.skipped, true);
    const hit = records()[1]!;
    assert.equal(hit.decision, "hit");
    assert.equal(hit.dedupKey, "points:ORD-1");
    assert.equal("ttlMs" in hit, false);
  });

  it("release() deletes only a marker this delivery set, logs released after DEL, and only once", async () => {
    const { log, redis, decisions } = setup();
    const delivery = log.delivery({ bizKey: "ORD-1" });
    const first = await delivery.redisMarker(redis, { key: "k", ttlMs: 60_000 });
    const other = await log.delivery({ bizKey: "ORD-1" }).redisMarker(redis, { key: "k", ttlMs: 60_000 });
    assert.equal(await other.release(), false, "a hit must not delete the other delivery's marker");
    assert.equal(redis.keys.has("k"), true);
    delivery.failed(new Error("ledger down"));
    assert.equal(await first.release(), true);
    assert.equal(await first.release(), false);
    assert.equal(redis.keys.has("k"), false);
    assert.deepEqual(decisions(), ["redis pass", "redis hit", "redis failed", "redis released"]);
    assert.deepEqual(redis.calls.filter((c) => c.startsWith("DEL")), ["DEL k"]);
  });

  it("release() before failed is refused and deletes nothing: released ends a failed attempt", async () => {
    const { log, redis, decisions } = setup();
    const marker = await log.delivery({ bizKey: "ORD-1" }).redisMarker(redis, { key: "k", ttlMs: 60_000 });
    await assert.rejects(marker.release(), (e) => e instanceof DedupLogUsageError && /"released" may not come after "pass": .*write failed first/.test(e.message));
    assert.equal(redis.keys.has("k"), true);
    assert.deepEqual(redis.calls.filter((c) => c.startsWith("DEL")), []);
    assert.deepEqual(decisions(), ["redis pass"]);
  });

  it("writes nothing when Redis fails: the layer never answered", async () => {
    const { log, lines } = setup();
    const broken = { set: async () => Promise.reject(new Error("ECONNREFUSED")), del: async () => 0 };
    await assert.rejects(log.delivery({ bizKey: "ORD-1" }).redisMarker(broken, { key: "k", ttlMs: 1000 }), /ECONNREFUSED/);
    assert.deepEqual(lines, []);
  });

  it("rejects a TTL or key no line could carry before it touches Redis", async () => {
    const { log, redis, lines } = setup();
    const d = log.delivery({ bizKey: "ORD-1" });
    await assert.rejects(d.redisMarker(redis, { key: "k", ttlMs: 0 }), DedupLogError);
    await assert.rejects(d.redisMarker(redis, { key: "k", ttlMs: 1.5 }), DedupLogError);
    await assert.rejects(d.redisMarker(redis, { key: "x".repeat(513), ttlMs: 1000 }), /dedupKey: must be at most 512 characters/);
    assert.deepEqual(redis.calls, []);
    assert.deepEqual(lines, []);
  });
});

describe("dbUniqueInsert", () => {
  it("logs pass and returns the insert's result", async () => {
    const { log, decisions, records } = setup();
    const result = await log.delivery({ bizKey: "ORD-1" }).dbUniqueInsert(async () => ({ rowCount: 1 }), { dedupKey: "invoice_dedup:ORD-1" });
    assert.deepEqual(result, { passed: true, hit: false, value: { rowCount: 1 } });
    assert.deepEqual(decisions(), ["db pass"]);
    assert.equal(records()[0]!.dedupKey, "invoice_dedup:ORD-1");
  });

  const duplicates: [string, unknown][] = [
    ["PostgreSQL 23505 (pg, postgres.js)", pgDuplicate()],
    ["MySQL ER_DUP_ENTRY / 1062 (mysql2)", Object.assign(new Error("Duplicate entry 'ORD-1' for key 'PRIMARY'"), { code: "ER_DUP_ENTRY", errno: 1062, sqlState: "23000" })],
    ["MariaDB errno 1062 alone", Object.assign(new Error("(conn=7, no: 1062, SQLState: 23000) Duplicate entry"), { errno: 1062 })],
    ["MySQL 1586 (ER_DUP_ENTRY_WITH_KEY_NAME)", { errno: 1586, message: "Duplicate entry for key 'uk_order'" }],
    ["Prisma P2002", Object.assign(new Error("Unique constraint failed on the fields: (`order_id`)"), { code: "P2002" })],
    ["SQLite (better-sqlite3)", Object.assign(new Error("UNIQUE constraint failed: invoice_dedup.order_id"), { code: "SQLITE_CONSTRAINT_UNIQUE" })],
    ["SQLite (node:sqlite errcode)", Object.assign(new Error("UNIQUE constraint failed"), { code: "ERR_SQLITE_ERROR", errcode: 2067 })],
    ["an ORM's wrapper (cause)", new Error("insert failed", { cause: pgDuplicate() })],
    ["TypeORM QueryFailedError (driverError)", Object.assign(new Error("QueryFailedError"), { driverError: pgDuplicate() })],
    ["Sequelize (original / parent)", Object.assign(new Error("Validation error"), { original: { code: "ER_DUP_ENTRY" }, parent: { code: "ER_DUP_ENTRY" } })],
  ];
  for (const [name, error] of duplicates) {
    it(`logs hit on a unique violation: ${name}`, async () => {
      const { log, decisions } = setup();
      const d = log.delivery({ bizKey: "ORD-1" });
      const result = await d.dbUniqueInsert(() => Promise.reject(error));
      assert.equal(result.passed, false);
      assert.equal(result.hit, true);
      assert.equal("error" in result && result.error, error);
      assert.equal(d.skipped, true);
      assert.deepEqual(decisions(), ["db hit"]);
    });
  }

  it("throws any other error unchanged and writes nothing", async () => {
    const { log, lines } = setup();
    const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
    await assert.rejects(log.delivery({ bizKey: "ORD-1" }).dbUniqueInsert(() => Promise.reject(deadlock)), (e) => e === deadlock);
    const checkViolation = Object.assign(new Error("violates check constraint"), { code: "23514", sqlState: "23000" });
    await assert.rejects(log.delivery({ bizKey: "ORD-1" }).dbUniqueInsert(() => Promise.reject(checkViolation)), (e) => e === checkViolation);
    assert.deepEqual(lines, []);
  });

  it("reads ON CONFLICT DO NOTHING through inserted(), and takes a driver-specific recogniser", async () => {
    const { log, decisions } = setup();
    const inserted = (r: { rowCount: number }) => r.rowCount === 1;
    assert.equal((await log.delivery({ bizKey: "A" }).dbUniqueInsert(async () => ({ rowCount: 1 }), { inserted })).passed, true);
    const dup = await log.delivery({ bizKey: "A" }).dbUniqueInsert(async () => ({ rowCount: 0 }), { inserted });
    assert.deepEqual(dup, { passed: false, hit: true, value: { rowCount: 0 } });
    const mssql = await log.delivery({ bizKey: "B" }).dbUniqueInsert(() => Promise.reject({ number: 2627 }), { isUniqueViolation: (e) => (e as { number?: number }).number === 2627 });
    assert.equal(mssql.hit, true);
    assert.deepEqual(decisions(), ["db pass", "db hit", "db hit"]);
  });

  it("isUniqueViolation ignores non-objects and survives a cause cycle", () => {
    for (const value of [null, undefined, "23505", 1062, {}]) assert.equal(isUniqueViolation(value), false);
    const a: { cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    assert.equal(isUniqueViolation(a), false);
  });
});

describe("stateCheck and check", () => {
  it("takes a boolean, a rowCount, or a function computing either", async () => {
    const { log, decisions } = setup();
    assert.equal(log.delivery({ bizKey: "A" }).stateCheck(true, { dedupKey: "invoice_status:UNISSUED->ISSUED" }), true);
    assert.equal(log.delivery({ bizKey: "B" }).stateCheck(0), false);
    assert.equal(log.delivery({ bizKey: "C" }).stateCheck(1), true);
    assert.equal(log.delivery({ bizKey: "D" }).stateCheck(null), false);
    assert.equal(await log.delivery({ bizKey: "E" }).stateCheck(async () => 1), true);
    assert.equal(await log.delivery({ bizKey: "F" }).stateCheck(() => false), false);
    assert.deepEqual(decisions(), ["state pass", "state hit", "state pass", "state hit", "state pass", "state hit"]);
  });

  it("check() logs any layer's verdict, e.g. a Bloom filter's 'definitely new'", () => {
    const { log, decisions } = setup();
    const d = log.delivery({ bizKey: "A" });
    d.check("bloom", true);
    d.executed();
    assert.deepEqual(decisions(), ["bloom pass", "bloom executed"]);
  });
});

describe("executed, failed and run()", () => {
  it("executed and failed carry the last layer that let the delivery through, or none", async () => {
    const { log, redis, decisions } = setup();
    const d = log.delivery({ bizKey: "A" });
    await d.redisMarker(redis, { key: "a", ttlMs: 1000 });
    await d.dbUniqueInsert(async () => undefined);
    d.executed();
    log.delivery({ bizKey: "B" }).executed();
    assert.deepEqual(decisions(), ["redis pass", "db pass", "db executed", "none executed"]);
  });

  it("run() logs executed after the effect returns and hands back its value", async () => {
    const { log, redis, decisions } = setup();
    const d = log.delivery({ bizKey: "A" });
    await d.redisMarker(redis, { key: "a", ttlMs: 1000 });
    assert.equal(await d.run(async () => 42), 42);
    assert.deepEqual(decisions(), ["redis pass", "redis executed"]);
  });

  it("run() on failure logs failed with the error, releases the markers it set, then throws the error", async () => {
    const { log, redis, decisions, records } = setup();
    const d = log.delivery({ bizKey: "A", retryTimes: 0 });
    await d.redisMarker(redis, { key: "a", ttlMs: 1000 });
    const boom = new Error("Lock wait timeout exceeded");
    await assert.rejects(d.run(() => Promise.reject(boom)), (e) => e === boom);
    assert.deepEqual(decisions(), ["redis pass", "redis failed", "redis released"]);
    assert.equal(records()[1]!.error, "Error: Lock wait timeout exceeded");
    assert.equal(redis.keys.has("a"), false);
  });

  it("run() with release: false leaves the marker (and logs no released)", async () => {
    const { log, redis, decisions } = setup();
    const d = log.delivery({ bizKey: "A" });
    await d.redisMarker(redis, { key: "a", ttlMs: 1000 });
    await assert.rejects(d.run(() => { throw new Error("x"); }, { release: false }));
    assert.deepEqual(decisions(), ["redis pass", "redis failed"]);
    assert.equal(redis.keys.has("a"), true);
  });

  it("a marker that cannot be deleted stays unlogged, and the effect's error is what run() throws", async () => {
    const { log, decisions } = setup();
    const client = { set: async () => "OK" as const, del: () => Promise.reject(new Error("READONLY")) };
    const d = log.delivery({ bizKey: "A" });
    await d.redisMarker(client, { key: "a", ttlMs: 1000 });
    await assert.rejects(d.run(() => { throw new Error("effect"); }), /effect/);
    assert.deepEqual(decisions(), ["redis pass", "redis failed"]);
  });

  it("failed() cuts a huge error where the collector does", () => {
    const { log, records } = setup();
    log.delivery({ bizKey: "A" }).failed(new Error("x".repeat(10_000)));
    const error = records()[0]!.error as string;
    assert.equal(error.length, MAX_ERROR_CHARS + 1);
    assert.ok(error.startsWith("Error: xxx") && error.endsWith("…"));
  });

  it("failed() takes anything thrown, even a value whose toString throws", () => {
    const { log, records } = setup();
    log.delivery({ bizKey: "A" }).failed("plain string");
    log.delivery({ bizKey: "B" }).failed({ toString: () => { throw new Error("nope"); } });
    assert.deepEqual(records().map((r) => r.error), ["plain string", "[object Object]"]);
  });

  it("executed then failed (a later step failed after the commit) is allowed; executed twice is not", () => {
    const { log, decisions } = setup();
    const d = log.delivery({ bizKey: "A" });
    d.executed();
    d.failed(new Error("notify failed"));
    assert.throws(() => d.executed(), DedupLogUsageError);
    assert.deepEqual(decisions(), ["none executed", "none failed"]);
  });
});

describe("a skipped delivery", () => {
  it("refuses further decisions, so a hit never reads as the start of another delivery", async () => {
    const { log, redis, lines } = setup();
    await log.delivery({ bizKey: "A" }).redisMarker(redis, { key: "a", ttlMs: 1000 });
    const d = log.delivery({ bizKey: "A" });
    await d.redisMarker(redis, { key: "a", ttlMs: 1000 });
    assert.throws(() => d.executed(), DedupLogUsageError);
    assert.throws(() => d.check("state", true), DedupLogUsageError);
    let ran = false;
    await assert.rejects(d.run(() => (ran = true)), DedupLogUsageError);
    assert.equal(ran, false);
    await assert.rejects(d.dbUniqueInsert(() => (ran = true)), DedupLogUsageError);
    assert.equal(ran, false);
    assert.equal(lines.length, 2);
  });
});

describe("validation", () => {
  it("rejects a log whose group, broker or instance no line could carry", () => {
    assert.throws(() => createDedupLog({ group: " ", broker: "kafka", write: () => {} }), /group: must not be empty/);
    assert.throws(() => createDedupLog({ group: "g", broker: "nats" as "kafka", write: () => {} }), /broker: must be one of rocketmq, rabbitmq, kafka/);
    assert.throws(() => createDedupLog({ group: "g", broker: "kafka", instance: "", write: () => {} }), /instance: must not be empty/);
  });

  it("rejects a delivery context listing every problem at once, before any layer is asked", () => {
    const { log, lines } = setup();
    const error = (() => {
      try {
        log.delivery({ bizKey: "  ", msgId: "m".repeat(129), retryTimes: -1, queueOffset: 1.5 });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof DedupLogError);
    assert.deepEqual(error.problems, [
      "bizKey: must not be empty",
      "msgId: must be at most 128 characters",
      "retryTimes: must not be negative",
      "queueOffset: must be a whole number",
    ]);
    assert.deepEqual(lines, []);
  });

  it("rejects a clock in seconds, and hit or released without a layer", () => {
    const seconds = setup({ clock: () => 1796011201 });
    assert.throws(() => seconds.log.delivery({ bizKey: "A" }).executed(), /ts: is outside/);
    const { log } = setup();
    assert.throws(() => log.log({ bizKey: "A", layer: "none", decision: "hit" }), /layer: must name the layer/);
    assert.throws(() => log.delivery({ bizKey: "A" }).log({ layer: "none", decision: "released" }), DedupLogError);
  });
});

describe("log(record)", () => {
  it("writes a plain line, filling group, instance, broker and topic from the log, ts from the clock", () => {
    const { log, records, clock } = setup({ topic: "order-paid" });
    log.log({ bizKey: "A", layer: "bloom", decision: "pass", dedupKey: "bf:A" });
    log.log({ ts: 1796011300000, bizKey: "B", layer: "none", decision: "executed", group: "other", instance: "10.0.0.9@1", broker: "rocketmq", topic: "t2" });
    assert.deepEqual(records(), [
      { ts: clock.now(), bizKey: "A", group: "points-award", topic: "order-paid", instance: INSTANCE, broker: "kafka", layer: "bloom", decision: "pass", dedupKey: "bf:A" },
      { ts: 1796011300000, bizKey: "B", group: "other", topic: "t2", instance: "10.0.0.9@1", broker: "rocketmq", layer: "none", decision: "executed" },
    ]);
  });
});

describe("timestamps", () => {
  it("a delivery's lines are strictly increasing even when the clock stands still; other deliveries keep the clock's time", async () => {
    const { log, redis, records, clock } = setup();
    const t = clock.now();
    const first = log.delivery({ bizKey: "A", msgId: "M" });
    await first.redisMarker(redis, { key: "a", ttlMs: 1000 });
    await assert.rejects(first.run(() => Promise.reject(new Error("x"))));
    log.delivery({ bizKey: "B", msgId: "M" }).executed();
    // The redelivery to the same instance: the same run key as far as dupscope can tell, so it follows on.
    const again = log.delivery({ bizKey: "A", msgId: "M" });
    await again.redisMarker(redis, { key: "a", ttlMs: 1000 });
    clock.advance(10);
    again.executed();
    log.log({ ts: t - 5, bizKey: "A", msgId: "M", layer: "none", decision: "executed" });
    assert.deepEqual(records().map((r) => [r.bizKey, r.decision, (r.ts as number) - t]), [
      ["A", "pass", 0],
      ["A", "failed", 1],
      ["A", "released", 2],
      ["B", "executed", 0],
      ["A", "pass", 3],
      ["A", "executed", 10],
      ["A", "executed", -5],
    ]);
  });

  it("a line that is refused does not move the delivery's clock", () => {
    const { log, records, clock } = setup();
    const d = log.delivery({ bizKey: "A" });
    assert.throws(() => d.log({ layer: "none", decision: "hit" }), DedupLogError);
    d.executed();
    assert.equal(records()[0]!.ts, clock.now());
  });
});

describe("where lines go", () => {
  it("a function gets each line without a newline; a stream gets line and newline in one write", () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const log = createDedupLog({ group: "g", broker: "kafka", instance: INSTANCE, write: stream });
    log.delivery({ bizKey: "A" }).executed();
    log.delivery({ bizKey: "B" }).executed();
    assert.equal(chunks.length, 2);
    for (const c of chunks) assert.match(c, /^\{"ts":\d+,.*\}\n$/);
  });

  it("a file path is created with its folder and appended to; two logs may share it; close() closes it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dedup-emitter-"));
    try {
      const file = path.join(dir, "logs", "dedup.log");
      const a = createDedupLog({ group: "g", broker: "rabbitmq", instance: "10.0.0.1@1", write: file });
      const b = createDedupLog({ group: "g", broker: "rabbitmq", instance: "10.0.0.2@1", write: pathToFileURL(file) });
      a.delivery({ bizKey: "A" }).executed();
      b.delivery({ bizKey: "A" }).executed();
      a.close();
      a.close();
      b.close();
      const again = createDedupLog({ group: "g", broker: "rabbitmq", instance: "10.0.0.1@1", write: file });
      again.delivery({ bizKey: "B" }).executed();
      again.close();
      const lines = readFileSync(file, "utf8").split("\n");
      assert.equal(lines.pop(), "");
      assert.deepEqual(lines.map((l) => (JSON.parse(l) as { instance: string; bizKey: string }).bizKey + "@" + (JSON.parse(l) as { instance: string }).instance), [
        "A@10.0.0.1@1",
        "A@10.0.0.2@1",
        "B@10.0.0.1@1",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a write that fails goes to onError with the line; the consumer's call still returns", async () => {
    const failures: [unknown, string][] = [];
    const log = createDedupLog({
      group: "g",
      broker: "kafka",
      instance: INSTANCE,
      write: () => {
        throw new Error("ENOSPC");
      },
      onError: (error, line) => failures.push([error, line]),
    });
    const d = log.delivery({ bizKey: "A" });
    const marker = await d.redisMarker(fakeRedis(Date.now), { key: "a", ttlMs: 1000 });
    assert.equal(marker.passed, true);
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]![0]), /ENOSPC/);
    assert.match(failures[0]![1], /"decision":"pass"/);
  });

  it("without onError a failed write is a process warning, not an exception", async () => {
    const warnings: Error[] = [];
    const listener = (w: Error) => warnings.push(w);
    process.on("warning", listener);
    try {
      const log = createDedupLog({ group: "g", broker: "kafka", instance: INSTANCE, write: { write: () => { throw new Error("stream closed"); } } });
      log.delivery({ bizKey: "A" }).executed();
      await new Promise((r) => setImmediate(r));
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!.message, /stream closed/);
      assert.equal((warnings[0] as Error & { code?: string }).code, "DEDUP_LOG_WRITE_FAILED");
    } finally {
      process.off("warning", listener);
    }
  });

  it("rejects a target that is none of these", () => {
    assert.throws(() => createDedupLog({ group: "g", broker: "kafka", write: 42 as unknown as string }), /write must be/);
  });
});

describe("instance", () => {
  it("defaults to ip@pid", () => {
    assert.match(defaultInstance(), new RegExp(`^[^@\\s]+@${process.pid}$`));
    const log = createDedupLog({ group: "g", broker: "kafka", write: () => {} });
    assert.equal(log.instance, defaultInstance());
  });

  it("a delivery may name its own instance", () => {
    const { log, records } = setup();
    log.delivery({ bizKey: "A", instance: "10.0.0.9@77" }).executed();
    assert.equal(records()[0]!.instance, "10.0.0.9@77");
  });

  it("rabbitmqInstance names an amqplib channel the way RabbitMQ names it", () => {
    const channel = (local: string, remote: string) => ({ ch: 3, connection: { stream: { localAddress: local, localPort: 47946, remoteAddress: remote, remotePort: 5672 } } });
    assert.equal(rabbitmqInstance(channel("::ffff:10.8.3.17", "::ffff:10.8.0.2")), "10.8.3.17:47946 -> 10.8.0.2:5672@3");
    assert.equal(rabbitmqInstance(channel("fd00::17", "fd00::2")), "[fd00::17]:47946 -> [fd00::2]:5672@3");
    assert.equal(rabbitmqInstance({}), undefined);
    assert.equal(rabbitmqInstance({ ch: 1, connection: {} }), undefined);
  });
});
