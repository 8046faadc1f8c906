import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { assertAccessible } from "../helpers/axe.ts";
import { leakStoryInput } from "../helpers/alerts-fixtures.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The alerts page left open, as on a wall screen at 3 a.m.: a rule that starts firing shows up without a reload
 * (the live stream tells the page), and an alert someone silenced or acknowledged does not wear the red "firing"
 * badge of one nobody answered. In English, then in Chinese with a rule created while the page is open.
 */

const RULE = "live leaks";
const PAY = `${RULE} {group="pay-consumer"}`;
const COUPON = `${RULE} {group="coupon-consumer"}`;

/** Marks the document, so a later check can tell that the page was updated in place, not loaded again. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => document.documentElement.setAttribute("data-e2e-loaded-once", "yes"));
}

async function assertNotReloaded(page: Page): Promise<void> {
  assert.equal(await page.evaluate(() => document.documentElement.getAttribute("data-e2e-loaded-once")), "yes", "the page was reloaded");
}

const badge = (page: Page, alert: string) => page.locator(`tr[data-alert='${alert}'] .alerts-state`);

describe("the alerts page, live", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let browser: TestBrowser;
  let page: Page;
  let ruleId: string;

  const post = async (url: string, body: unknown) => {
    const response = await fetch(`${server.url}${url}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const text = await response.text();
    assert.ok(response.ok, `${url}: ${response.status} ${text}`);
    return (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
  };

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer({ ...created.env, DUPSCOPE_ALERT_INTERVAL_MS: "500", DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200" });
    browser = await launchBrowser();
    page = await browser.newPage();
    ruleId = String((await post("/api/v1/alerts/rules", { name: RULE, condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 3600 }, groupBy: ["group"], forSeconds: 0, severity: "critical" })).id);
    // Silenced before it ever fires: the coupon group's alert is answered from its first moment.
    await post("/api/v1/alerts/silences", {
      matchers: [
        { name: "alertname", value: RULE, isRegex: false, isEqual: true },
        { name: "group", value: "coupon-consumer", isRegex: false, isEqual: true },
      ],
      durationMinutes: 60,
      createdBy: "ana",
      comment: "coupon replay, known",
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("shows the rule moving to firing without a reload", async () => {
    await page.goto(`${server.url}/alerts`);
    await page.getByText("live: alerts change here as they are evaluated").waitFor();
    const rule = page.locator(`tr[data-rule="${RULE}"]`);
    assert.match(await rule.innerText(), /^inactive[\s\S]*0 s[\s\S]*critical/, "for 0 reads in seconds, as the form asks");
    assert.equal(await page.locator("tr[data-alert]").count(), 0);
    await markDocument(page);

    const now = Date.now();
    const events = [...leakStoryInput("PAY-LIVE-1", now - 5 * 60_000, "pay-consumer"), ...leakStoryInput("CPN-LIVE-1", now - 60_000, "coupon-consumer")];
    await post("/api/v1/events", events);

    await rule.locator(".alerts-state-firing").waitFor({ timeout: 30_000 });
    await badge(page, PAY).waitFor({ timeout: 10_000 });
    await badge(page, COUPON).waitFor({ timeout: 10_000 });
    await assertNotReloaded(page);
  });

  it("gives a silenced alert its own badge, and the firing one the red one", async () => {
    assert.equal(await badge(page, PAY).innerText(), "firing");
    assert.match((await badge(page, PAY).getAttribute("class")) ?? "", /\balerts-state-firing\b/);
    assert.equal(await badge(page, COUPON).innerText(), "silenced (firing)");
    assert.match((await badge(page, COUPON).getAttribute("class")) ?? "", /\balerts-state-silenced\b/);
    assert.doesNotMatch((await badge(page, COUPON).getAttribute("class")) ?? "", /alerts-state-firing/);
  });

  it("gives an acknowledged alert its own badge too", async () => {
    await post("/api/v1/alerts/acks", { ruleId, labels: { group: "pay-consumer" }, by: "bo", comment: "replaying the ledger" });
    await page.reload();
    assert.equal(await badge(page, PAY).innerText(), "acknowledged (firing)");
    assert.match((await badge(page, PAY).getAttribute("class")) ?? "", /\balerts-state-acknowledged\b/);
    await screenshot(page, "alerts-live-silenced-acknowledged");
    await assertAccessible(page, "the alerts page with a silenced and an acknowledged alert");
  });

  it("does the same in Chinese: a rule created while the page is open appears firing without a reload", async () => {
    const zh = await browser.newPage({ locale: "zh-CN" });
    await zh.goto(`${server.url}/alerts`);
    await zh.waitForSelector('html[lang="zh-CN"]');
    await zh.getByText("实时：告警状态变化会在这里更新").waitFor();
    assert.equal(await badge(zh, COUPON).innerText(), "已静默（告警中）");
    assert.equal(await badge(zh, PAY).innerText(), "已确认（告警中）");
    await markDocument(zh);

    await post("/api/v1/alerts/rules", { name: "账务泄漏", condition: { kind: "leaked_duplicates", group: "pay-consumer", threshold: 0, windowSeconds: 3600 }, forSeconds: 0, severity: "warning" });
    const rule = zh.locator('tr[data-rule="账务泄漏"]');
    await rule.locator(".alerts-state-firing").waitFor({ timeout: 30_000 });
    assert.match(await rule.innerText(), /^告警中[\s\S]*0 秒[\s\S]*警告/);
    assert.equal(await badge(zh, "账务泄漏 （整条规则）").innerText(), "告警中");
    await assertNotReloaded(zh);
    assert.deepEqual(browser.problems, []);
  });
});
