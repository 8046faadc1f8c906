import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { textsOf } from "../helpers/page-text.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * Time and order at 3 a.m. (issue 48), in Chromium: one key consumed twice in each of two groups, where the retry's
 * host stamps it before the first delivery it repeats and before the send of its message. The pages show the order
 * the diagnosis chose, positive gaps and a note that the hosts' clocks disagree, never a negative duration; each
 * verdict names its group, topic and deliveries, and advice both groups share reads once.
 */

const KEY = "PAY-20261207-000189";
const MSG = "0A000005303918B4AAC27A1C3A900189";
const TOPIC = "PAY_SUCCESS";
const GROUPS = [
  { group: "cg_points", first: "10.0.12.5@4121", retry: "10.0.12.6@88", skewMs: 189 },
  { group: "cg_invoice", first: "10.0.13.5@5150", retry: "10.0.13.6@77", skewMs: 210 },
];
const PRODUCER = "10.0.20.1@3030";
/** The send is stamped this long after the retries' own host's clock says they began. */
const SEND_AFTER_MS = 180;

/** A duration written with a minus sign: what no page may show. */
const NEGATIVE_DURATION = /(^|[^\w.:-])[−-]\s?\d+(\.\d+)?\s?(ms|s|min|h|d|毫秒|秒|分钟|小时|天)(?![A-Za-z])/;

describe("clocks that disagree, and a key with duplicates in two groups, in Chromium", () => {
  let server: RunningServer;
  let browser: TestBrowser;
  let dispose: () => Promise<void>;
  const at = Date.now() - 20 * 60_000;

  async function post(path: string, body: string, contentType?: string): Promise<void> {
    const response = await fetch(`${server.url}${path}`, { method: "POST", body, ...(contentType ? { headers: { "content-type": contentType } } : {}) });
    assert.equal(response.status, 200, await response.text());
  }

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer(created.env);
    // Per group: the first delivery passes the Redis layer and commits; its retry (retryTimes 1) on another host
    // passes too, stamped `skewMs` before the first by its host's clock. retryTimes puts it second.
    const line = (ts: number, group: string, instance: string, decision: string, retryTimes: number) =>
      JSON.stringify({ ts, bizKey: KEY, msgId: MSG, group, topic: TOPIC, instance, broker: "rocketmq", layer: "redis", decision, retryTimes });
    const lines = GROUPS.flatMap(({ group, first, retry, skewMs }) => [
      line(at + skewMs, group, first, "pass", 0),
      line(at + skewMs + 2, group, first, "executed", 0),
      line(at, group, retry, "pass", 1),
      line(at + 2, group, retry, "executed", 1),
    ]);
    await post("/api/v1/ingest/dedup-log?source=consumers.dedup.log", lines.join("\n"));
    const send = { kind: "publish", ts: at + SEND_AFTER_MS, broker: "rocketmq", bizKey: KEY, msgId: MSG, topic: TOPIC, instance: PRODUCER, success: true, source: "producer-trace" };
    const rebalance = { kind: "rebalance", ts: at + 60_000, broker: "rocketmq", group: GROUPS[0]!.group, topic: TOPIC, queue: "broker-a:3", instance: GROUPS[0]!.first, detail: { action: "remove" }, source: "client-log" };
    await post("/api/v1/events", [send, rebalance].map((e) => JSON.stringify(e)).join("\n"), "application/x-ndjson");
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = (await (await fetch(`${server.url}/api/v1/duplicates`)).json()) as { items: unknown[] };
      if (listed.items.length === GROUPS.length) break;
      if (Date.now() > deadline) throw new Error(`the worker stored ${listed.items.length} verdicts for ${KEY}, not ${GROUPS.length}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("answers the API and the CSV with positive gaps and each pair's clock skew, in the diagnosis's order", async () => {
    const report = (await (await fetch(`${server.url}/api/v1/keys/${KEY}`)).json()) as { duplicates: { group: string; gapMs: number; clockSkewMs: number; instances: { first: string; second: string } }[] };
    const byGroup = <T extends { group: string }>(list: readonly T[]) => [...list].sort((a, b) => (a.group < b.group ? -1 : 1));
    const expected = byGroup(GROUPS).map((g) => [g.group, g.first, g.retry, g.skewMs, g.skewMs]);
    assert.deepEqual(byGroup(report.duplicates).map((v) => [v.group, v.instances.first, v.instances.second, v.gapMs, v.clockSkewMs]), expected);
    const listed = (await (await fetch(`${server.url}/api/v1/duplicates`)).json()) as { items: { group: string; firstInstance: string; secondInstance: string; gapMs: number; clockSkewMs: number }[] };
    assert.deepEqual(byGroup(listed.items).map((d) => [d.group, d.firstInstance, d.secondInstance, d.gapMs, d.clockSkewMs]), expected);
    const [header, ...rows] = (await (await fetch(`${server.url}/api/v1/duplicates.csv`)).text()).trim().split(/\r?\n/);
    const columns = header!.split(",");
    const cell = (row: string, name: string) => row.split(",")[columns.indexOf(name)];
    assert.equal(columns.at(-1), "clockSkewMs", "a new column goes last");
    assert.deepEqual(rows.map((r) => [cell(r, "gapMs"), cell(r, "clockSkewMs")]).sort(), GROUPS.map((g) => [String(g.skewMs), String(g.skewMs)]).sort());
  });

  for (const lang of ["en", "zh-CN"] as const) {
    for (const width of [1440, 1024]) {
      it(`shows no negative duration and names both groups on the key page and the list (${lang}, ${width} wide)`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`${server.url}/keys/${KEY}?lang=${lang}`);
        const negative = (await textsOf(page)).filter((t) => NEGATIVE_DURATION.test(t));
        assert.deepEqual(negative, [], "no text on the key page is a negative duration");

        const pairs = await page.getByTestId("verdict-pair").allInnerTexts();
        assert.equal(pairs.length, GROUPS.length);
        for (const { group, first, retry } of GROUPS) {
          const pair = pairs.find((p) => p.includes(group));
          assert.ok(pair, `a verdict names group ${group}: ${pairs.join(" | ")}`);
          assert.ok(pair.includes(TOPIC) && pair.indexOf(first) < pair.indexOf(retry), `the first delivery comes first: ${pair}`);
        }
        const summaries = await page.locator(".verdict-summary").allInnerTexts();
        for (const { skewMs } of GROUPS) {
          assert.ok(summaries.some((s) => s.includes(lang === "en" ? `clocks disagree by ~${skewMs} ms` : `时钟相差约 ${skewMs} 毫秒`)), summaries.join(" | "));
        }
        assert.deepEqual(await page.getByTestId("evidence-pair").allInnerTexts(), pairs, "the evidence is headed by the same pairs");
        const evidence = await page.locator(".evidence li").allInnerTexts();
        const tolerance = lang === "en" ? /clock tolerance/g : /时钟容差/g;
        assert.ok(evidence.every((e) => (e.match(tolerance) ?? []).length <= 1), "no evidence line says the clock tolerance twice");

        const advice = await page.locator("#advice-title + ul li").allInnerTexts();
        assert.ok(advice.length > 0, "the key has advice");
        assert.equal(new Set(advice).size, advice.length, `no advice repeats: ${advice.join(" | ")}`);

        assert.equal(await page.getByTestId("timeline-gap-skew").count(), GROUPS.length, "each reordered pair's gap has its clock note");
        const sendNotes = await page.getByTestId("timeline-send-skew").allInnerTexts();
        assert.ok(sendNotes.length >= GROUPS.length, "the retries, stamped before the send, have their clock note");
        assert.ok(sendNotes.some((n) => n.includes(lang === "en" ? `~${SEND_AFTER_MS} ms` : `约 ${SEND_AFTER_MS} 毫秒`)), sendNotes.join(" | "));
        const context = await page.locator("h2 + p.muted", { hasText: lang === "en" ? "one of this key's events" : "该业务键某个事件" }).innerText();
        assert.match(context, / – /, "the nearby events' sentence names the windows they were read from");
        if (width === 1440) await screenshot(page, `clock-and-groups-key-${lang}`);
        if (lang === "en" && width === 1440) await assertAccessible(page, "the key page of a key whose clocks disagree");

        await page.goto(`${server.url}/duplicates?lang=${lang}`);
        assert.deepEqual((await textsOf(page)).filter((t) => NEGATIVE_DURATION.test(t)), [], "no text on the duplicates list is a negative duration");
        assert.equal(await page.locator(".clock-skew").count(), GROUPS.length);
        await page.close();
      });
    }
  }
});
