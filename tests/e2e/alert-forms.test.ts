import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { dictionary } from "../../lib/i18n/dictionary.ts";
import type { Locale } from "../../lib/i18n/locale.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { leakStoryInput } from "../helpers/alerts-fixtures.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The alerts page's forms at 3 a.m., in both languages, on a wide and a laptop screen: the acknowledge form opens
 * in a row of its own, clear of the silence link; the rule form's fields start at one left edge; the preview
 * gives each alert's value; the rules table shows the summary template; the group field offers the known groups.
 */

const SUMMARY = "{{ $labels.group }} leaked {{ $value }}: {{ $keys }}";
const ALERT = 'leaks by group {group="pay-consumer"}';

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  assert.ok(b, "the element is laid out");
  return b;
}

async function untilFiring(page: Page, url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await page.goto(url);
    const row = page.locator(`tr[data-alert='${ALERT}']`);
    if ((await row.count()) > 0 && (await row.getByRole("button").count()) > 0) return;
    assert.ok(Date.now() < deadline, "the pay-consumer alert never fired");
    await page.waitForTimeout(500);
  }
}

describe("alerts page forms", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let browser: TestBrowser;

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer({ ...created.env, DUPSCOPE_ALERT_INTERVAL_MS: "500", DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200" });
    browser = await launchBrowser();
    const now = Date.now();
    const events = [...leakStoryInput("PAY-FORM-1", now - 5 * 60_000, "pay-consumer"), ...leakStoryInput("CPN-FORM-1", now - 60_000, "coupon-consumer")];
    const ingested = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: JSON.stringify(events), headers: { "content-type": "application/json" } });
    assert.equal(ingested.status, 200, await ingested.text());
    const rule = { name: "leaks by group", condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 3600 }, groupBy: ["group"], summary: SUMMARY };
    const saved = await fetch(`${server.url}/api/v1/alerts/rules`, { method: "POST", body: JSON.stringify(rule), headers: { "content-type": "application/json" } });
    assert.equal(saved.status, 201, await saved.text());
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  for (const locale of ["en", "zh-CN"] as const satisfies readonly Locale[]) {
    for (const width of [1440, 1024]) {
      it(`${locale} at ${width}px`, async () => {
        const t = dictionary(locale).alerts;
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await untilFiring(page, `${server.url}/alerts?lang=${locale}`);

        // The acknowledge form gets a row of its own and covers nothing of the silence link.
        const row = page.locator(`tr[data-alert='${ALERT}']`);
        await row.getByRole("button", { name: t.alertsTable.acknowledge }).click();
        const ackForm = page.getByRole("form", { name: t.ackForm.label(ALERT) });
        await ackForm.waitFor();
        const silence = row.getByRole("link", { name: t.alertsTable.silenceLabel(ALERT) });
        const formBox = await box(ackForm);
        assert.ok(!overlap(formBox, await box(silence)), "the acknowledge form does not overlap the silence link");
        assert.ok(formBox.y >= (await box(row)).y + (await box(row)).height - 1, "the form is below the alert's row");
        assert.ok(formBox.x + formBox.width <= width, "the form fits the window");

        // The rule form's labels and fields each share a left edge.
        const ruleForm = page.getByRole("form", { name: t.newRule });
        const fields = ruleForm.locator(":scope > label:not(.alerts-check) > :is(input, select, textarea)");
        const labels = ruleForm.locator(":scope > label:not(.alerts-check)");
        const fieldLefts = new Set((await fields.evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)))) as number[]);
        const labelLefts = new Set((await labels.evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)))) as number[]);
        assert.ok((await fields.count()) >= 8);
        assert.equal(fieldLefts.size, 1, `fields start at ${[...fieldLefts].join(", ")}`);
        assert.equal(labelLefts.size, 1, `labels start at ${[...labelLefts].join(", ")}`);

        // The group field offers the store's groups and still takes any text.
        const group = ruleForm.getByLabel(t.ruleForm.fields.group, { exact: true });
        const offered = await group.evaluate((input) => [...((input as HTMLInputElement).list?.options ?? [])].map((o) => o.value));
        assert.ok(offered.includes("pay-consumer") && offered.includes("coupon-consumer"), `offered: ${offered.join(", ")}`);
        const topic = ruleForm.getByLabel(t.ruleForm.fields.topic, { exact: true });
        assert.ok((await topic.evaluate((input) => (input as HTMLInputElement).list?.options.length ?? 0)) > 0, "the topic field offers topics");
        await group.fill("a-group-not-seen-yet");
        assert.equal(await group.inputValue(), "a-group-not-seen-yet");
        await group.fill("");

        // The preview names each alert with its value and keys.
        await ruleForm.getByLabel(t.ruleForm.fields.threshold, { exact: true }).fill("0");
        await ruleForm.getByLabel(t.ruleForm.fields.windowSeconds).fill("60");
        await ruleForm.getByRole("group", { name: t.ruleForm.groupBy }).getByLabel("group").check();
        await ruleForm.getByRole("button", { name: t.ruleForm.preview }).click();
        const preview = ruleForm.getByRole("list", { name: t.ruleForm.previewAlerts });
        await preview.waitFor();
        assert.match(await preview.innerText(), /group="pay-consumer": \d+ · \S+ PAY-FORM-1/);

        // The rules table shows the summary template.
        const rule = page.locator('tr[data-rule="leaks by group"]');
        assert.ok((await rule.innerText()).includes(`${t.rulesTable.summary} ${SUMMARY}`), await rule.innerText());
        assert.ok(await rule.getByText(SUMMARY).isVisible());

        await screenshot(page, `alert-forms-${locale}-${width}`);
      });
    }
  }
});
