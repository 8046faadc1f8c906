import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { leakStoryInput, startHttpReceiver, webhookAlerts, type HttpReceiver } from "../helpers/alerts-fixtures.ts";
import { englishOnly, textsOf } from "../helpers/page-text.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * An on-call engineer's round on the alerts page: a rule grouped by consumer group, previewed before it is saved,
 * fires one alert per group, both in one notice; one group's alert is silenced from its row (the matchers come
 * filled in), the other's acknowledged in the page, and the first also from its notification's signed link; a
 * silence typed in the page keeps exactly its alerts out of the next notice; the page says all of it in English
 * and in Chinese, and stays accessible.
 */

const PAY = 'leaks by group {group="pay-consumer"}';
const COUPON = 'leaks by group {group="coupon-consumer"}';

async function untilText(page: Page, selector: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = page.locator(selector);
    const text = (await row.count()) > 0 ? await row.innerText() : "";
    if (pattern.test(text)) return text;
    assert.ok(Date.now() < deadline, `${selector} never matched ${pattern}; it reads: ${text}`);
    await page.waitForTimeout(300);
    await page.reload();
  }
}

describe("alerts per group: silence one, acknowledge the other", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let receiver: HttpReceiver;
  let browser: TestBrowser;
  let page: Page;

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    receiver = await startHttpReceiver();
    // No group_interval: the last step's notice follows the first within seconds (tests/integration/alerts-grouping.test.ts covers it).
    server = await startServer({ ...created.env, DUPSCOPE_ALERT_INTERVAL_MS: "500", DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200", DUPSCOPE_ALERT_GROUP_INTERVAL_MS: "0" });
    browser = await launchBrowser();
    page = await browser.newPage();
    const now = Date.now();
    const events = [...leakStoryInput("PAY-E2E-1", now - 5 * 60_000, "pay-consumer"), ...leakStoryInput("CPN-E2E-1", now - 60_000, "coupon-consumer")];
    const response = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: JSON.stringify(events), headers: { "content-type": "application/json" } });
    assert.equal(response.status, 200, await response.text());
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await dispose?.();
  });

  it("previews a rule grouped by group, then creates it", async () => {
    await page.goto(`${server.url}/alerts`);
    const channelForm = page.getByRole("form", { name: "New channel" });
    await channelForm.getByLabel("Name", { exact: true }).fill("oncall hook");
    await channelForm.getByLabel("URL").fill(`${receiver.url}/hook`);
    await channelForm.getByRole("button", { name: "Add channel" }).click();
    await page.getByRole("table", { name: "Notification channels" }).getByText("oncall hook").waitFor();

    const ruleForm = page.getByRole("form", { name: "New rule" });
    await ruleForm.getByLabel("Name", { exact: true }).fill("leaks by group");
    await ruleForm.getByLabel("More than", { exact: true }).fill("0");
    await ruleForm.getByLabel("Window (minutes)").fill("60");
    await ruleForm.getByRole("group", { name: "Group by: one alert per value of" }).getByLabel("group").check();
    await ruleForm.getByLabel("Runbook URL template").fill("https://wiki.example/runbooks/{{ $labels.group }}");
    await ruleForm.getByLabel("oncall hook").check();
    // The diagnosis settles the leaks within a second or two; the preview asks again until it sees both.
    const deadline = Date.now() + 20_000;
    let preview = "";
    while (!/coupon-consumer/.test(preview) || !/pay-consumer/.test(preview)) {
      assert.ok(Date.now() < deadline, `the preview never named both groups: ${preview}`);
      await ruleForm.getByRole("button", { name: "Preview" }).click();
      await page.waitForTimeout(300);
      preview = (await ruleForm.getByRole("status").textContent()) ?? "";
    }
    assert.match(preview, /^Would fire now for: (pay-consumer, coupon-consumer|coupon-consumer, pay-consumer)$/);
    await ruleForm.getByRole("button", { name: "Create rule" }).click();
    await page.locator('tr[data-rule="leaks by group"]').waitFor();
  });

  it("shows one firing alert per group", async () => {
    await untilText(page, `tr[data-alert='${COUPON}']`, /firing/);
    assert.match(await page.locator(`tr[data-alert='${PAY}']`).innerText(), /firing[\s\S]*leaks by group[\s\S]*group="pay-consumer"[\s\S]*1/);
    assert.equal(receiver.received.length, 1, "the rule's two alerts leave together, as one notice");
    assert.deepEqual(webhookAlerts(receiver).map((a) => a.labels.group).sort(), ["coupon-consumer", "pay-consumer"]);
    const pay = webhookAlerts(receiver).find((a) => a.labels.group === "pay-consumer")!;
    assert.equal(pay.links.runbook, "https://wiki.example/runbooks/pay-consumer");
  });

  it("silences one group's alert from its row, with the matchers filled in", async () => {
    await page.getByRole("link", { name: `Silence ${COUPON}` }).click();
    await page.waitForURL(/\/alerts\?silence=/);
    const form = page.getByRole("form", { name: "New silence" });
    assert.equal(await form.getByLabel(/^Matchers/).inputValue(), 'alertname="leaks by group"\ngroup=coupon-consumer');
    await form.getByLabel("Created by").fill("ana");
    await form.getByLabel("Comment").fill("coupon replay, known");
    await form.getByRole("button", { name: "Create silence" }).click();
    await page.waitForURL(/\/alerts#silences$/);
    await page.locator('tr[data-silence*="coupon-consumer"]').waitFor();
    assert.match(await page.locator('tr[data-silence*="coupon-consumer"]').innerText(), /active[\s\S]*ana[\s\S]*coupon replay, known/);
    assert.match(await page.locator(`tr[data-alert='${COUPON}']`).innerText(), /firing[\s\S]*silenced by ana until/);
    assert.doesNotMatch(await page.locator(`tr[data-alert='${PAY}']`).innerText(), /silenced/, "the other group is not silenced");
  });

  it("acknowledges the other group's alert", async () => {
    const row = page.locator(`tr[data-alert='${PAY}']`);
    await row.getByRole("button", { name: "Acknowledge" }).click();
    const form = page.getByRole("form", { name: `Acknowledge ${PAY}` });
    await form.getByLabel("Your name").fill("bo");
    await form.getByLabel("Comment").fill("replaying the ledger");
    await form.getByRole("button", { name: "Acknowledge" }).click();
    await untilText(page, `tr[data-alert='${PAY}']`, /acknowledged by bo: replaying the ledger/);
    assert.match(await page.locator(`tr[data-alert='${PAY}']`).innerText(), /Withdraw/);
    await screenshot(page, "alerts-silenced-acknowledged");
    await assertAccessible(page, "the alerts page with a silenced and an acknowledged alert");
  });

  it("acknowledges from the link in the notification, after a confirmation", async () => {
    const link = webhookAlerts(receiver).find((a) => a.labels.group === "coupon-consumer")!.links.acknowledge!;
    const ack = await browser.newPage();
    await ack.goto(`${server.url}${link}`);
    assert.match((await ack.locator("main").innerText()) ?? "", /Alert: leaks by group \{group="coupon-consumer"\}/);
    assert.doesNotMatch(await page.locator(`tr[data-alert='${COUPON}']`).innerText(), /acknowledged/, "opening the link changed nothing");
    const form = ack.getByRole("form", { name: `Acknowledge ${COUPON}` });
    await form.getByLabel("Your name").fill("cy");
    await form.getByRole("button", { name: "Acknowledge" }).click();
    await ack.getByText("Acknowledged by cy.", { exact: false }).waitFor();
    await assertAccessible(ack, "the acknowledge page of a notification's link");
    await ack.goto(`${server.url}${link.replace(/.$/, (c) => (c === "A" ? "B" : "A"))}`);
    assert.match(await ack.locator("main").getByRole("alert").innerText(), /This link cannot acknowledge anything: token: the signature does not match/);
    await ack.close();
    await untilText(page, `tr[data-alert='${COUPON}']`, /acknowledged by cy/);
  });

  it("sends nothing for alerts a silence made in the page matches, and the others as usual", async () => {
    await page.goto(`${server.url}/alerts`);
    const form = page.getByRole("form", { name: "New silence" });
    await form.getByLabel(/^Matchers/).fill('group=~"audit-.*"');
    await form.getByLabel("Created by").fill("ana");
    await form.getByLabel("Comment").fill("audit consumers are being replayed");
    await form.getByRole("button", { name: "Create silence" }).click();
    await page.locator('tr[data-silence*="audit-"]').waitFor();
    const before = receiver.received.length;
    const now = Date.now();
    const events = [...leakStoryInput("AUD-E2E-1", now, "audit-consumer"), ...leakStoryInput("BIL-E2E-1", now, "billing-consumer")];
    const response = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: JSON.stringify(events), headers: { "content-type": "application/json" } });
    assert.equal(response.status, 200, await response.text());
    await untilText(page, `tr[data-alert='leaks by group {group="audit-consumer"}']`, /firing[\s\S]*silenced by ana/);
    const deadline = Date.now() + 20_000;
    while (receiver.received.length === before) {
      assert.ok(Date.now() < deadline, "billing-consumer's notice never came");
      await page.waitForTimeout(200);
    }
    await page.waitForTimeout(1500);
    assert.deepEqual(
      receiver.received.slice(before).flatMap((r) => (r.body.alerts as { labels: Record<string, string> }[]).map((a) => a.labels.group)),
      ["billing-consumer"],
      "the silenced group's alert fired and was not sent",
    );
  });

  it("says the same in Chinese, and silences and acknowledges in Chinese", async () => {
    const zh = await browser.newPage();
    await zh.goto(`${server.url}/alerts`);
    await zh.click('nav.lang a[lang="zh-CN"]');
    await zh.waitForSelector('html[lang="zh-CN"]');
    assert.match(await zh.locator(`tr[data-alert='${COUPON}']`).innerText(), /告警中[\s\S]*由 ana 静默，至[\s\S]*已由 cy 确认/);
    assert.match(await zh.locator(`tr[data-alert='${PAY}']`).innerText(), /告警中[\s\S]*已由 bo 确认：replaying the ledger[\s\S]*撤销确认/);
    assert.match(await zh.getByRole("table", { name: "静默规则" }).innerText(), /生效中[\s\S]*ana/);
    const english = englishOnly();
    assert.deepEqual((await textsOf(zh)).filter((t) => english.has(t)), [], "no English word of the UI is left on the Chinese page");
    await assertAccessible(zh, "the alerts page in Chinese with a silenced and an acknowledged alert");

    // The same round in Chinese, on billing-consumer's alert: silence it from its row, then acknowledge it.
    const billing = 'leaks by group {group="billing-consumer"}';
    await zh.getByRole("link", { name: `静默 ${billing}` }).click();
    await zh.waitForURL(/\/alerts\?silence=/);
    const silenceForm = zh.getByRole("form", { name: "新建静默" });
    assert.equal(await silenceForm.getByLabel(/^匹配条件/).inputValue(), 'alertname="leaks by group"\ngroup=billing-consumer');
    await silenceForm.getByLabel("创建人").fill("丁");
    await silenceForm.getByLabel("备注").fill("账单重放");
    await silenceForm.getByRole("button", { name: "创建静默" }).click();
    await zh.locator('tr[data-silence*="billing-consumer"]').waitFor();
    const row = zh.locator(`tr[data-alert='${billing}']`);
    await row.getByRole("button", { name: "确认" }).click();
    const ackForm = zh.getByRole("form", { name: `确认 ${billing}` });
    await ackForm.getByLabel("你的名字").fill("丁");
    await ackForm.getByLabel("备注").fill("处理中");
    await ackForm.getByLabel("有效小时数（留空：直到恢复）").fill("2");
    await ackForm.getByRole("button", { name: "确认" }).click();
    await untilText(zh, `tr[data-alert='${billing}']`, /告警中[\s\S]*由 丁 静默，至[\s\S]*已由 丁 确认：处理中/);
    const { items } = (await (await fetch(`${server.url}/api/v1/alerts/rules`)).json()) as { items: { alerts: { labels: Record<string, string>; ack: { until: string | null } | null }[] }[] };
    const until = items[0]!.alerts.find((a) => a.labels.group === "billing-consumer")!.ack!.until!;
    assert.ok(Math.abs(Date.parse(until) - (Date.now() + 2 * 3_600_000)) < 60_000, `acknowledged for two hours, until ${until}`);
    assert.deepEqual((await textsOf(zh)).filter((t) => english.has(t)), [], "still no English after the actions");
    await screenshot(zh, "alerts-silenced-acknowledged-zh");

    // Ending billing-consumer's silence keeps it listed, as ended.
    zh.once("dialog", (dialog) => void dialog.accept());
    await zh.getByRole("button", { name: '结束 alertname="leaks by group", group=billing-consumer' }).click();
    await untilText(zh, 'tr[data-silence*="billing-consumer"]', /已结束/);
    assert.doesNotMatch(await zh.locator(`tr[data-alert='${billing}']`).innerText(), /由 丁 静默/, "the alert is no longer silenced");
    await assertAccessible(zh, "the alerts page in Chinese after silencing and acknowledging");
    await zh.close();
  });
});
