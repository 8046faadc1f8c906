import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import type { SqlDriver, SqlSession } from "../../../lib/store/driver.ts";
import { insertEvents } from "../../../lib/store/events-repo.ts";

const event = (id: string): NormalizedEvent => ({
  id, kind: "consume_start", ts: 1796011200450, tsPrecision: "ms", bizKey: "K", msgId: "M", offsetMsgId: null, broker: "rocketmq", topic: null,
  group: null, queue: null, queueOffset: null, instance: null, retryTimes: null, redelivered: null, success: null, detail: {}, source: "t",
});

/** A stored row as RETURNING gives it back to the writer's journal. */
const returned = (id: string) => ({
  id, ts: "1796011200450", biz_key: "K", msg_id: "M", group_name: null, topic: null, source: "t", kind: "consume_start", layer: null, has_decision: false, decision: null, action: null,
});

/**
 * A database that refuses, as a data error, any statement carrying a row whose id starts with "bad". It answers the
 * partition, staging and journal statements around the rows as a real store would, and stores nothing else.
 */
function refusingDriver(mode: SqlDriver["mode"], errorCode = "22P02"): SqlDriver & { stored: string[] } {
  const stored: string[] = [];
  let staged: string[] = [];
  const fail = () => Object.assign(new Error("invalid input syntax for type json"), { code: errorCode });
  const session: SqlSession = {
    async exec() {},
    async query<Row>(sql: string, params: unknown[] = []) {
      if (sql.includes("dupscope_settings")) return [{ value: "86400000" }] as Row[];
      if (!sql.trimStart().startsWith("INSERT INTO events")) return [];
      const ids = sql.includes("FROM events_incoming") ? staged : (params[0] as string[]);
      staged = [];
      if (ids.some((id) => id.startsWith("bad"))) throw fail();
      stored.push(...ids);
      return ids.map(returned) as Row[];
    },
    async run() {
      return 1;
    },
    async copyIn(sql, rows) {
      const ids = [...rows].join("").split("\n").filter(Boolean).map((row) => row.split("\t")[0]!);
      if (ids.some((id) => id.startsWith("bad"))) throw fail();
      if (sql.includes("events_incoming")) staged.push(...ids);
      else stored.push(...ids);
    },
  };
  const driver = { ...session, mode, stored, prepared: <Row>(statement: { text: string }, params: unknown[]) => session.query<Row>(statement.text, params), session: <T>(fn: (s: SqlSession) => Promise<T>) => fn(session), transaction: <T>(fn: (s: SqlSession) => Promise<T>) => fn(session), close: async () => {} };
  if (mode === "embedded") delete (driver as Partial<SqlSession>).copyIn;
  return driver;
}

for (const mode of ["embedded", "postgres"] as const) {
  describe(`a batch the database partly refuses (${mode})`, () => {
    it("stores every row but the refused ones, and names those by index with the database's reason", async () => {
      const events = ["a", "bad-1", "b", "c", "d", "bad-2", "e", "f"].map(event);
      const driver = refusingDriver(mode);
      const result = await insertEvents(driver, events);
      assert.deepEqual(driver.stored.sort(), ["a", "b", "c", "d", "e", "f"]);
      assert.equal(result.accepted, 6);
      assert.equal(result.duplicates, 0);
      assert.deepEqual(result.rejected.map((r) => r.index), [1, 5]);
      assert.match(result.rejected[0]!.reason, /^the database refused it \(22P02: invalid input syntax for type json\)$/);
    });

    it("still fails the batch for errors that are not about a row's data, for the caller to retry", async () => {
      await assert.rejects(insertEvents(refusingDriver(mode, "08006"), ["a", "bad"].map(event)), /invalid input syntax/);
    });
  });
}
