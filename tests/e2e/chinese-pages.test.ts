import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { englishWordsOf } from "../helpers/page-text.ts";
import { startDemoServer, type DemoServer } from "../helpers/demo-server.ts";
import type { RunningServer } from "../helpers/server.ts";

/**
 * The pages an engineer opens at 3 a.m., in Chinese: with `?lang=zh-CN`, the key, duplicates, group and alerts pages
 * of a simulated day show no English word outside identifiers and data values (tests/helpers/page-text.ts says which
 * those are). Folded parts are opened first, so what a click shows counts too.
 */

interface Listed {
  bizKey: string;
  group: string;
  outcome: string;
  layer: string | null;
}

describe("the Chinese pages in Chromium", () => {
  let demo: DemoServer;
  let server: RunningServer;
  let browser: TestBrowser;
  let duplicates: Listed[];

  const post = async (url: string, body: unknown): Promise<void> => {
    const response = await fetch(`${server.url}${url}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    assert.ok(response.ok, `${url}: ${response.status} ${await response.text()}`);
  };

  /** Opens a page in Chinese, unfolds what it folds, and gives the English words left on it. */
  async function englishOn(path: string): Promise<{ page: Page; words: string[] }> {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}${path}${path.includes("?") ? "&" : "?"}lang=zh-CN`);
    await page.waitForSelector('html[lang="zh-CN"]');
    await page.waitForFunction(() => !/加载中…|Loading…/.test(document.querySelector("main")?.textContent ?? ""));
    await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
    const words = await englishWordsOf(page);
    assert.deepEqual(browser.problems.slice(seen), [], `${path} loads without errors`);
    return { page, words };
  }

  before(async () => {
    demo = await startDemoServer({ day: { hours: 6, runs: 2, scale: 0.3 }, env: { DUPSCOPE_ALERT_INTERVAL_MS: "500" } });
    server = demo.server;
    assert.equal(demo.demo.rejected, 0);
    duplicates = ((await (await fetch(`${server.url}/api/v1/duplicates?limit=500`)).json()) as { items: Listed[] }).items;
    browser = await launchBrowser();
  });

  afterEach(() => browser?.closePages());

  after(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it("a key page: a caught and a leaked duplicate, the timeline, evidence, advice and events", async () => {
    const caught = duplicates.find((d) => d.outcome === "caught" && d.layer === "redis");
    assert.ok(caught, "the demo day has a duplicate the Redis marker caught");
    const { page, words } = await englishOn(`/keys/${encodeURIComponent(caught.bizKey)}`);
    assert.deepEqual(words, [], "no English word on the key page");
    assert.match(await page.locator("main").innerText(), /被 Redis 标记拦截/, "the verdict names the layer as the dashboard does");

    const leaked = duplicates.find((d) => d.outcome === "leaked");
    assert.ok(leaked, "the demo day has a leak");
    assert.deepEqual((await englishOn(`/keys/${encodeURIComponent(leaked.bizKey)}`)).words, [], "no English word on a leaked key's page");
  });

  it("the duplicates list", async () => {
    assert.deepEqual((await englishOn("/duplicates")).words, []);
  });

  it("a group page", async () => {
    const group = duplicates[0]!.group;
    assert.deepEqual((await englishOn(`/groups/${encodeURIComponent(group)}`)).words, []);
  });

  it("the alerts page with a channel, a rule and its firing", async () => {
    const group = duplicates.find((d) => d.outcome === "leaked")!.group;
    await post("/api/v1/alerts/channels", { name: "oncall hook", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } });
    await post("/api/v1/alerts/rules", { name: "ledger leak", condition: { kind: "leaked_duplicates", group, threshold: 0, windowSeconds: 86_400 }, forSeconds: 0, severity: "critical" });
    const deadline = Date.now() + 30_000;
    while (!((await (await fetch(`${server.url}/api/v1/alerts/history`)).json()) as { items: unknown[] }).items.length) {
      assert.ok(Date.now() < deadline, "the rule fired");
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.deepEqual((await englishOn("/alerts")).words, []);
  });
});
