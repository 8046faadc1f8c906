import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { backends } from "../helpers/stores.ts";
import { citedEventIds, type KeyReport } from "../../lib/views/key-report.ts";
import { ORDER_KEY, orderStory, T0, toNdjson } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";

const TOKEN = "test-ingest-token";
const MAX_BODY = 64 * 1024;

for (const backend of backends) {
  describe(`HTTP API on ${backend.name}`, () => {
    let server: RunningServer;
    let dispose: () => Promise<void>;

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      server = await startServer({ ...created.env, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_MAX_BODY_BYTES: String(MAX_BODY) });
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    const ingest = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/v1/events`, {
        method: "POST",
        body,
        headers: { "content-type": "application/x-ndjson", authorization: `Bearer ${TOKEN}`, ...headers },
      });

    it("reports the database mode and current migrations", async () => {
      const health = await (await fetch(`${server.url}/api/health`)).json();
      assert.equal(health.status, "ok");
      assert.equal(health.database.mode, backend.name === "pglite" ? "embedded" : "postgres");
      assert.equal(health.migrations.current, true);
      assert.deepEqual(health.migrations.pending, []);
      assert.ok(health.migrations.applied.length >= 1);
    });

    it("stores an NDJSON file once: posting it again reports duplicates and stores nothing new", async () => {
      const story = orderStory();
      const shuffled = [story[3], story[0], story[6], story[1], story[5], story[2], story[4]];
      const first = await ingest(toNdjson(shuffled));
      assert.equal(first.status, 200);
      assert.deepEqual(await first.json(), { accepted: 7, duplicates: 0, rejected: [] });
      const second = await ingest(toNdjson(shuffled));
      assert.deepEqual(await second.json(), { accepted: 0, duplicates: 7, rejected: [] });
    });

    it("stores every good line of a batch whose other lines the database could not hold, and names those by number", async () => {
      const good = (n: number) => JSON.stringify({ kind: "consume_start", ts: T0 + n, broker: "rocketmq", bizKey: `HOSTILE-${n}`, msgId: `HM-${n}`, source: "hostile-test" });
      let deep = "1";
      for (let i = 0; i < 5_000; i++) deep = `[${deep}]`;
      const lines = [
        good(1),
        good(2).replace('"HOSTILE-2"', '"HOSTILE-\\u0000-2"'),
        good(3),
        good(4).replace('"source":"hostile-test"', '"source":"hostile-test","detail":{"x":"\\udc00"}'),
        good(5).replace('"source":"hostile-test"', `"source":"hostile-test","detail":{"deep":${deep}}`),
        good(6).replace('"source":"hostile-test"', '"source":"hostile-test","detail":{"big":1e400}'),
        good(7),
      ];
      const response = await ingest(lines.join("\n"));
      assert.equal(response.status, 200);
      const body = await response.json();
      assert.equal(body.accepted, 3);
      assert.deepEqual(body.rejected.map((r: { line: number }) => r.line), [2, 4, 5, 6]);
      assert.match(body.rejected[0].reason, /NUL character/);
      assert.match(body.rejected[1].reason, /unpaired UTF-16 surrogate/);
      assert.match(body.rejected[2].reason, /nested deeper than 32 levels/);
      const health = await (await fetch(`${server.url}/api/health`)).json();
      assert.equal(health.status, "ok");
    });

    it("returns a key's events in time order", async () => {
      const response = await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(ORDER_KEY)}`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("server-timing") ?? "", /^handler;dur=\d+\.\d{2}$/, "the handler's own time, for clients and bench:lookup");
      const body = await response.json();
      assert.equal(body.bizKey, ORDER_KEY);
      const expected = orderStory().filter((e) => e.bizKey === ORDER_KEY);
      assert.deepEqual(
        body.events.map((e: { kind: string; ts: number }) => [e.kind, e.ts]),
        expected.map((e) => [e.kind, e.ts]),
      );
    });

    it("stores the good lines of a mixed file and reports each bad one with its line and reason", async () => {
      const good = orderStory("ORDER-MIXED");
      const lines = [
        JSON.stringify(good[0]),
        "{not json",
        JSON.stringify({ ...good[1], ts: 1764460800 }),
        "",
        JSON.stringify(good[1]),
        JSON.stringify({ ...good[2], broker: "activemq" }),
      ];
      const response = await ingest(lines.join("\n"));
      assert.equal(response.status, 200);
      const body = await response.json();
      assert.equal(body.accepted, 2);
      assert.equal(body.duplicates, 0);
      assert.deepEqual(body.rejected.map((r: { line: number }) => r.line), [2, 3, 6]);
      assert.match(body.rejected[0].reason, /not valid JSON/);
      assert.match(body.rejected[1].reason, /^ts: .*epoch seconds/);
      assert.match(body.rejected[2].reason, /^broker: /);
      const stored = await (await fetch(`${server.url}/api/v1/keys/ORDER-MIXED`)).json();
      assert.equal(stored.events.length, 2);
      assert.equal((await fetch(`${server.url}/api/health`)).status, 200, "server keeps running");
    });

    it("accepts a JSON array, numbering rejections by element", async () => {
      const [publish] = orderStory("ORDER-ARRAY");
      const response = await ingest(JSON.stringify([publish, { kind: "publish" }]), { "content-type": "application/json" });
      const body = await response.json();
      assert.equal(body.accepted, 1);
      assert.equal(body.rejected[0].line, 2);
    });

    it("requires the ingest token when one is configured", async () => {
      const missing = await ingest(toNdjson(orderStory("ORDER-AUTH")), { authorization: "" });
      assert.equal(missing.status, 401);
      assert.equal((await missing.json()).error.code, "unauthorized");
      const wrong = await ingest(toNdjson(orderStory("ORDER-AUTH")), { authorization: "Bearer wrong" });
      assert.equal(wrong.status, 401);
      assert.equal((await fetch(`${server.url}/api/v1/keys/ORDER-AUTH`)).status, 404, "nothing was stored");
    });

    it("refuses a body over the configured limit with 413 and an unknown media type with 415", async () => {
      const big = await ingest("x".repeat(MAX_BODY + 1));
      assert.equal(big.status, 413);
      assert.match((await big.json()).error.message, /DUPSCOPE_MAX_BODY_BYTES/);
      const form = await ingest("a=b", { "content-type": "application/x-www-form-urlencoded" });
      assert.equal(form.status, 415);
    });

    it("holds OTLP trace requests to the same limit, before and after gunzip (RESOURCE_EXHAUSTED, not retried)", async () => {
      const traces = (body: Buffer | string, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/v1/traces`, { method: "POST", body: typeof body === "string" ? body : new Blob([new Uint8Array(body)]), headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}`, ...headers } });
      // A JSON export request padded past the limit: refused whole, whatever it holds.
      const padded = JSON.stringify({ resourceSpans: [], pad: "x".repeat(MAX_BODY) });
      const big = await traces(padded);
      assert.equal(big.status, 413);
      const status = (await big.json()) as { code: number; message: string };
      assert.deepEqual([status.code, /DUPSCOPE_MAX_BODY_BYTES/.test(status.message)], [8, true]);
      // Small on the wire, past the limit once inflated.
      const bomb = gzipSync(padded);
      assert.ok(bomb.length < MAX_BODY / 10);
      const inflated = await traces(bomb, { "content-encoding": "gzip" });
      assert.equal(inflated.status, 413);
      assert.equal(((await inflated.json()) as { code: number }).code, 8);
      // The same request under the limit is read.
      const ok = await traces(gzipSync(JSON.stringify({ resourceSpans: [] })), { "content-encoding": "gzip" });
      assert.equal(ok.status, 200);
    });

    it("answers an unknown key with 404 and a clear message, and handles keys with reserved characters", async () => {
      const unknown = await fetch(`${server.url}/api/v1/keys/NO-SUCH-KEY`);
      assert.equal(unknown.status, 404);
      assert.match((await unknown.json()).error.message, /no events for bizKey "NO-SUCH-KEY"/);
      const oddKey = "订单 7/42%";
      assert.equal((await ingest(toNdjson(orderStory(oddKey).slice(0, 1)))).status, 200);
      const found = await (await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(oddKey)}`)).json();
      assert.equal(found.bizKey, oddKey);
    });

    it("lists the context the evidence cites and the nearest up to ?context=N, all of it with ?context=all", async () => {
      const key = "ORDER-CONTEXT";
      // A group of its own, so the other keys' context stays as their tests expect.
      const story = orderStory(key).map((e) => (e.group ? { ...e, group: "refund-consumer" } : e));
      const earlier = Array.from({ length: 5 }, (_, i) => ({
        ...story[4]!,
        ts: T0 - 90_000 + i * 1000,
        instance: `10.0.0.${20 + i}@7`,
        detail: { action: "add" },
      }));
      assert.equal((await ingest(toNdjson([...story, ...earlier]))).status, 200);
      const get = async (query: string) => {
        const response = await fetch(`${server.url}/api/v1/keys/${key}${query}`);
        assert.equal(response.status, 200, query);
        return (await response.json()) as KeyReport;
      };
      const all = await get("?context=all");
      assert.ok(all.context.length >= 6, "the story's rebalance and the five earlier ones");
      assert.equal(all.contextTotal, all.context.length);
      const cited = [...citedEventIds(all)].filter((id) => all.context.some((e) => e.id === id));
      assert.equal(cited.length, 1, "the verdict cites the rebalance between the deliveries");
      assert.deepEqual(await get(""), all, "fewer than the default 200: all of them");

      const one = await get("?context=1");
      assert.deepEqual(one.context.map((e) => e.id), cited, "the cited line before any other");
      assert.equal(one.contextTotal, all.contextTotal, "the total says how many were read");
      assert.deepEqual(one.duplicates, all.duplicates, "the diagnosis read all of them either way");
      const three = await get("?context=3");
      assert.deepEqual(
        three.context.map((e) => e.ts),
        [T0 - 90_000 + 3000, T0 - 90_000 + 4000, T0 + 1204],
        "then the nearest in time, listed in time order",
      );

      for (const query of ["?context=ten", "?context=-1", "?contxt=3", "?utcOffsetMinutes=5000"]) {
        const bad = await fetch(`${server.url}/api/v1/keys/${key}${query}`);
        assert.equal(bad.status, 422, query);
        assert.equal((await bad.json()).error.code, "unprocessable");
      }
    });

    it("serves the key page of a key with reserved and non-ASCII characters", async () => {
      const oddKey = "订单 7/42%";
      const page = (await (await fetch(`${server.url}/keys/${encodeURIComponent(oddKey)}`)).text()).replaceAll("<!-- -->", "");
      assert.ok(new RegExp(`<span class="mono"[^>]*>${oddKey.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}</span>`).test(page), "the key is shown as written");
      assert.ok(page.includes("1 events, oldest first"), "its stored event is found");
    });

    it("a shared link's ?lang= sets the language of the whole page, header and <html lang> included", async () => {
      const plain = await (await fetch(`${server.url}/groups`)).text();
      assert.match(plain, /<html lang="en"/);
      const shared = await (await fetch(`${server.url}/groups?lang=zh-CN`)).text();
      assert.match(shared, /<html lang="zh-CN"/);
      assert.match(shared, /<a href="\/lang\/zh-CN" lang="zh-CN" aria-current="true"/, "the header's switch shows Chinese as current");
    });

    it("serves the home page and a key page listing the events", async () => {
      const home = await fetch(`${server.url}/`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /name="q"/);
      const search = await fetch(`${server.url}/keys?q=${encodeURIComponent(ORDER_KEY)}`, { redirect: "manual" });
      assert.equal(search.status, 307);
      assert.equal(new URL(search.headers.get("location")!, server.url).pathname, `/keys/${ORDER_KEY}`);
      // The page streams (app/loading.tsx): parts of its HTML may arrive after what follows them on screen, so the
      // rows are counted over the whole document rather than by position.
      const page = (await (await fetch(`${server.url}/keys/${ORDER_KEY}`)).text())
        .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")
        .replaceAll("<!-- -->", "");
      const keyed = orderStory().filter((e) => e.bizKey === ORDER_KEY).length;
      assert.ok(page.includes(`${keyed} events, oldest first`), "key page counts the key's events");
      assert.ok(page.includes("1 rebalance, lifecycle and keyless events of the same groups"), "the rebalance of the key's group is shown around it");
      assert.equal(page.match(/<tr>/g)?.length, keyed + 1 + 1 + 1, "a row per event of the key and of its context, plus two headers");
    });
  });
}
