import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { runSimulation } from "../../lib/simulator/run.ts";
import { assertAccessible } from "../helpers/axe.ts";
import { startHttpReceiver, type HttpReceiver } from "../integration/alerts-fixtures.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The alerts page in a real browser: add a webhook channel and a leak rule through the forms, feed the server
 * the simulator's marker_expired scenario (Redis markers with a 30 s TTL, resends minutes later: leaks), and watch
 * the rule fire, its history list the leaked keys, and the webhook receive one notification.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

describe("alerts page", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let receiver: HttpReceiver;
  let browser: Browser;
  let page: Page;
  let leaked: string[];

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    receiver = await startHttpReceiver();
    server = await startServer({ ...created.env, DUPSCOPE_ALERT_INTERVAL_MS: "500", DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await dispose?.();
  });

  it("creates a channel and a rule in the page", async () => {
    await page.goto(`${server.url}/alerts`);
    const channelForm = page.getByRole("form", { name: "New channel" });
    await channelForm.getByLabel("Name", { exact: true }).fill("e2e hook");
    await channelForm.getByLabel("URL").fill(`${receiver.url}/hook`);
    await channelForm.getByRole("button", { name: "Add channel" }).click();
    await page.getByRole("table", { name: "Notification channels" }).getByText("e2e hook").waitFor();

    const ruleForm = page.getByRole("form", { name: "New rule" });
    await ruleForm.getByLabel("Name", { exact: true }).fill("ledger leak");
    await ruleForm.getByLabel("Condition").selectOption("leaked_duplicates");
    await ruleForm.getByLabel("Consumer group").fill("cg_ledger");
    await ruleForm.getByLabel("More than", { exact: true }).fill("0");
    await ruleForm.getByLabel("Window (minutes)").fill("120");
    await ruleForm.getByLabel("Severity").selectOption("critical");
    await ruleForm.getByLabel("e2e hook").check();
    await ruleForm.getByRole("button", { name: "Create rule" }).click();
    const row = page.locator('tr[data-rule="ledger leak"]');
    await row.waitFor();
    assert.match(await row.innerText(), /inactive[\s\S]*leaked duplicates in group cg_ledger > 0 in 2h[\s\S]*e2e hook/);
  });

  it("fires on simulator data and shows the firing with its keys", async () => {
    const sim = runSimulation({ scenario: "marker_expired", keys: 6, seed: 11, startAt: Date.now() - 40 * 60_000, spanMs: 5 * 60_000 });
    leaked = sim.truth.duplicates.filter((d) => d.outcome === "leaked").map((d) => d.bizKey);
    assert.ok(leaked.length > 0, "the scenario leaks");
    const texts = new Map(sim.files.map((f) => [f.path, f.text]));
    for (const entry of sim.manifest.files) {
      const query = new URLSearchParams({ source: `${entry.format}:e2e/${entry.path}`, ...(entry.instance ? { instance: entry.instance } : {}) });
      const response = await fetch(`${server.url}/api/v1/ingest/${entry.format}?${query}`, { method: "POST", body: texts.get(entry.path) });
      assert.equal(response.status, 200, `${entry.path}: ${await response.text()}`);
    }

    const deadline = Date.now() + 60_000;
    const row = page.locator('tr[data-rule="ledger leak"]');
    while (!/firing/.test(await row.innerText())) {
      assert.ok(Date.now() < deadline, `the rule did not fire:\n${server.output()}`);
      await page.waitForTimeout(500);
      await page.reload();
    }

    const history = page.getByRole("table", { name: "Firing history" });
    assert.match(await history.innerText(), /ledger leak[\s\S]*critical[\s\S]*leaked duplicates in group cg_ledger > 0 in 2h: now \d+/);
    const links = await history.getByRole("link").allInnerTexts();
    assert.ok(links.length > 0 && links.every((k) => leaked.includes(k)), `history links ${links.join(", ")} are leaked keys (${leaked.join(", ")})`);
    await assertAccessible(page, "the alerts page with a firing rule");

    await history.getByRole("link", { name: links[0]! }).click();
    await page.waitForURL(`**/keys/${encodeURIComponent(links[0]!)}`);
  });

  it("sent the webhook one firing notification", async () => {
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.received.length, 1);
    const [hook] = receiver.received;
    assert.equal(hook!.body.status, "firing");
    assert.deepEqual((hook!.body.keys as { bizKey: string }[]).map((k) => k.bizKey).every((k) => leaked.includes(k)), true);
  });
});
