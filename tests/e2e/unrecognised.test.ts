import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { englishOnly, textsOf } from "../helpers/page-text.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * A user ingests a consumer log whose client words a rebalance in a sentence no template knows: the ingest page
 * lists the source with the line's shape (values masked), how many, when last seen, and the explain command, in
 * English and in Chinese; a line that names nothing relevant is not listed.
 */

// A rebalance line of an in-house wrapper, twice with other values, and an ordinary line with no relevance anchor.
const LOG = [
  "2026-12-07 10:15:02.118 INFO [pool-3-thread-1] c.acme.mq.Wrapper - acme-consumer rebalancing: lost shard orders#3 to host 10.1.2.3",
  "2026-12-07 10:15:09.407 INFO [pool-3-thread-2] c.acme.mq.Wrapper - acme-consumer rebalancing: lost shard orders#7 to host 10.1.2.4",
  "2026-12-07 10:15:10.001 INFO [main] c.acme.App - order 42 shipped",
].join("\n");

const SHAPE = "acme-consumer rebalancing: lost shard orders#N to host <addr>";

describe("lines not recognised, on the ingest page in Chromium", () => {
  let server: RunningServer;
  let browser: TestBrowser;
  let dispose: () => Promise<void>;

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer(created.env);
    const response = await fetch(`${server.url}/api/v1/ingest/kafka-client-log?source=acme-wrapper.log`, { method: "POST", body: LOG });
    const body = await response.text();
    assert.equal(response.status, 200, body);
    const answer = JSON.parse(body) as { skipped: number; unrecognised: number };
    assert.deepEqual([answer.skipped, answer.unrecognised], [3, 2]);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("lists the source with the line's shape, count and the explain command, in English", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ingest`);
    const card = page.getByTestId("unrecognised-source");
    assert.equal(await card.count(), 1);
    const text = (await card.innerText()).replace(/\s+/g, " ");
    assert.ok(text.includes("acme-wrapper.log"), text);
    assert.ok(text.includes(SHAPE), `the shape is listed: ${text}`);
    assert.ok(!text.includes("shipped"), "a line without a relevance anchor is not listed");
    assert.ok(!text.includes("10.1.2.3") && !text.includes("orders#3"), "values are masked");
    assert.match(text, /Lines 2\b/);
    assert.match(text, /npx dupscope explain --format kafka-client-log <file>/);
    assert.match((await page.getByRole("status").innerText()) ?? "", /^2 relevant lines not recognised in 1 source$/);
    await screenshot(page, "ingest-unrecognised-en");
    await assertAccessible(page, "the ingest page");
    await page.close();
  });

  it("says the same in Chinese, with no English left but the shape and the command", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ingest?lang=zh-CN`);
    assert.equal(await page.locator("h1").innerText(), "未识别的日志行");
    const text = (await page.getByTestId("unrecognised-source").innerText()).replace(/\s+/g, " ");
    assert.ok(text.includes(SHAPE), text);
    assert.match(text, /行数 2\b/);
    const english = englishOnly();
    const left = (await textsOf(page)).filter((t) => english.has(t));
    assert.deepEqual(left, [], `English words on the Chinese page: ${left.join(" | ")}`);
    await screenshot(page, "ingest-unrecognised-zh");
    await page.close();
  });
});
