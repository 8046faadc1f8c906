import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gmt8 } from "../../lib/simulator/clock.ts";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * A group's members over time in Chromium (issue 49): two processes of one host connected to the broker with one
 * clientId hours before a message both consumed. The group page draws the member's two connections with the
 * collision marked; the key page says who of the group was connected from the consuming hosts when each delivery
 * began, in English and in Chinese.
 */

const GROUP = "cg_order_paid";
const HOST = "10.0.11.20";
const KEY = "PAY-20261207-000777";
const MSG = "0A000005303918B4AAC27A1C3A900777";
const HOUR = 3_600_000;

/** A consumer's connection as the broker names it: from `clientId`'s host, on `port`. */
const channel = (port: number, clientId: string, at: number) =>
  `ClientChannelInfo [channel=[id: 0x5c1d7f0e, L:/10.0.0.2:10911 - R:/${clientId.split("@")[0]}:${port}], clientId=${clientId}, language=JAVA, version=401, lastUpdateTimestamp=${at}]`;
const connected = (at: number, port: number, clientId: string) =>
  `${gmt8(at, "s")} INFO HeartbeatThread_3 - new consumer connected, group: ${GROUP} CONSUME_PASSIVELY CLUSTERING channel: ${channel(port, clientId, at)}`;

describe("a group's members over time, in Chromium", () => {
  let server: RunningServer;
  let browser: TestBrowser;
  let dispose: () => Promise<void>;
  const now = Date.now();
  const at = now - 20 * 60_000;

  async function post(path: string, body: string): Promise<void> {
    const response = await fetch(`${server.url}${path}`, { method: "POST", body });
    assert.equal(response.status, 200, await response.text());
  }

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer(created.env);
    await post(
      "/api/v1/ingest/rocketmq-broker-log?source=broker-a%2Fbroker.log&instance=broker-a",
      [connected(at - 5 * HOUR, 48864, `${HOST}@DEFAULT`), connected(at - 5 * HOUR + 2000, 51202, `${HOST}@DEFAULT`), connected(at - 4 * HOUR, 40001, "10.0.11.21@7311")].join("\n"),
    );
    const dedup = (ts: number, instance: string, decision: string) =>
      JSON.stringify({ ts, bizKey: KEY, msgId: MSG, group: GROUP, topic: "PAY_SUCCESS", instance, broker: "rocketmq", layer: "redis", decision });
    await post("/api/v1/ingest/dedup-log?source=order-paid.dedup.log", [dedup(at, `${HOST}@4242`, "pass"), dedup(at + 3, `${HOST}@4242`, "executed"), dedup(at + 7, `${HOST}@5151`, "hit")].join("\n"));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const report = (await (await fetch(`${server.url}/api/v1/keys/${KEY}`)).json()) as { duplicates?: { cause: string }[] };
      if (report.duplicates?.some((d) => d.cause === "shared_client_id")) break;
      if (Date.now() > deadline) throw new Error(`no shared_client_id verdict for ${KEY}: ${JSON.stringify(report.duplicates)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  const range = `from=${new Date(at - 6 * HOUR).toISOString()}&to=${new Date(now).toISOString()}`;

  it("draws the member's two connections on the group page with the shared clientId marked, in English", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/groups/${GROUP}?${range}`);
    const members = page.getByTestId("members");
    const lanes = members.locator("[data-member]");
    assert.equal(await lanes.count(), 2);
    const shared = members.locator(`[data-member="${HOST}@DEFAULT"]`);
    assert.equal(await shared.getAttribute("data-collision"), "true");
    assert.match(await shared.innerText(), /one clientId, two connections/);
    assert.equal(await shared.locator(".member-connection.collides").count(), 2);
    const bar = await shared.locator(".member-connection").first().getAttribute("aria-label");
    assert.match(bar ?? "", new RegExp(`^${HOST}:48864 → broker-a: .* – still connected$`));
    assert.equal(await members.locator(`[data-member="10.0.11.21@7311"]`).getAttribute("data-collision"), null);
    await screenshot(page, "group-members-en");
    await assertAccessible(page, "the group page");
    await page.close();
  });

  it("says on the key page who was in the group at each delivery, in English and in Chinese", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/keys/${KEY}`);
    const section = page.getByTestId("membership");
    assert.equal(await section.locator("h2").innerText(), "In the group at the time");
    const first = (await section.locator("li").first().innerText()).replace(/\s+/g, " ");
    assert.match(first, new RegExp(`^${GROUP} at .*: 1 member on these hosts: ${HOST}@DEFAULT \\(CLUSTERING\\) ⚠ one clientId, two connections$`));
    await screenshot(page, "key-membership-en");

    await page.goto(`${server.url}/keys/${KEY}?lang=zh-CN`);
    assert.equal(await section.locator("h2").innerText(), "当时组内成员");
    assert.match((await section.locator("li").first().innerText()).replace(/\s+/g, " "), /：这些主机上 1 个成员：.*⚠ 同一 clientId 两条连接/);
    await page.goto(`${server.url}/groups/${GROUP}?${range}&lang=zh-CN`);
    assert.equal(await page.locator("#members-title").innerText(), "成员随时间的变化");
    assert.match(await page.getByTestId("members").locator(`[data-member="${HOST}@DEFAULT"]`).innerText(), /同一 clientId 两条连接/);
    const bar = await page.getByTestId("members").locator(".member-connection").first().getAttribute("aria-label");
    assert.match(bar ?? "", /仍在连接$/);
    await screenshot(page, "group-members-zh");
    await page.close();
  });
});
