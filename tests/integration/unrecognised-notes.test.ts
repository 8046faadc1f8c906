import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { orderStory } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * A verdict's "no client log for instance …" while that instance's log was ingested but its relevant lines were
 * worded as nothing reads: the note says so, in English and Chinese, and names the source.
 */

const KEY = "ORDER-UNREAD-0001";
const LOG = [
  // An in-house wrapper's words for the queue leaving the instance: relevant (it says rebalance), read by nothing.
  "2026-11-30 20:00:01.201 INFO  [RebalanceService] acme.mq.Consumer - acme-mq rebalance: shard PAY_SUCCESS/3 handed to a peer",
  "2026-11-30 20:00:02.000 INFO  [main] acme.App - order shipped",
].join("\n");

for (const backend of backends) {
  describe(`a missing-data note with unrecognised lines of its instance, on ${backend.name}`, () => {
    let server: RunningServer;
    let dispose: () => Promise<void>;

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      server = await startServer(created.env);
      const events = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: JSON.stringify(orderStory(KEY)), headers: { "content-type": "application/json" } });
      assert.equal(events.status, 200, await events.text());
      const log = await fetch(`${server.url}/api/v1/ingest/rocketmq-client-log?instance=10.0.0.5@4121&source=pay-consumer-a.log`, { method: "POST", body: LOG });
      const body = await log.text();
      assert.equal(log.status, 200, body);
      assert.equal((JSON.parse(body) as { unrecognised: number }).unrecognised, 1);
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    it("says the log was there and its relevant lines were not read, naming the source", async () => {
      const report = (await (await fetch(`${server.url}/api/v1/keys/${KEY}`)).json()) as { missing: { code: string; text: string; unrecognised?: { lines: number; sources: string[] } }[] };
      const note = report.missing.find((m) => m.code === "no_client_log" && m.unrecognised !== undefined);
      assert.ok(note, JSON.stringify(report.missing));
      assert.deepEqual(note.unrecognised, { lines: 1, sources: ["pay-consumer-a.log"] });
      assert.match(note.text, /^no client log for instance .*; but 1 skipped line of pay-consumer-a\.log looks relevant and was not recognised: see the Ingest page, or a patterns file$/);
      const zh = (await (await fetch(`${server.url}/api/v1/keys/${KEY}?lang=zh-CN`)).json()) as { missing: { code: string; text: string; unrecognised?: unknown }[] };
      assert.match(zh.missing.find((m) => m.unrecognised !== undefined)!.text, /；但 pay-consumer-a\.log 中有 1 行被跳过的日志疑似相关却未被识别/);
    });
  });
}
