import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { HISTORY_PAGE_SIZE } from "../../lib/groups/rebalance-history.ts";
import { dictionary } from "../../lib/i18n/dictionary.ts";
import { outcomeName } from "../../lib/i18n/diagnosis-text.ts";
import { LOCALE_COOKIE, type Locale } from "../../lib/i18n/locale.ts";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { startDemoServer, type DemoServer } from "../helpers/demo-server.ts";
import type { RunningServer } from "../helpers/server.ts";

/**
 * From the overview to the detail at 3 a.m. (issue 48), in Chromium, in English and in Chinese, 1440 and 1024 px
 * wide: each count opens the list it counts under the overview's filters, every group is reachable from the groups
 * widget, an unknown group is a 404 that offers the names it may have meant, a partial key offers the keys that
 * start with it, and a group's whole rebalance history is reachable page by page.
 */

const WIDTHS = [1440, 1024];
const LOCALES: Locale[] = ["en", "zh-CN"];

/**
 * The tallest group page's height at 1440 wide, at most: about four screens. The demo day's busiest group
 * (cg_order_paid) was 7,479 px with every process and member drawn and 20 episodes a page; folded, it is ~3,900.
 */
const GROUP_PAGE_MAX_PX = 4000;

/**
 * A group that rebalanced every minute, each time to a restarted process: more episodes than one page of its
 * history lists, and more processes than a page draws.
 */
const STORM = "cg_storm";
const STORM_EPISODES = 45;

/** The storm as normalized events: each episode moves a queue from one process to the next, every fifth only logs a result. */
function stormEvents(start: number): string {
  const line = (ts: number, action: string, instance: string, queue: string | null) =>
    JSON.stringify({ kind: "rebalance", ts, broker: "rocketmq", topic: "STORM", group: STORM, queue, instance, source: "storm.log", detail: { action } });
  const lines: string[] = [];
  for (let i = 0; i < STORM_EPISODES; i++) {
    const at = start + i * 60_000;
    const [from, to] = [`10.0.7.${1 + (i % 2)}@${1000 + i}`, `10.0.7.${1 + ((i + 1) % 2)}@${1001 + i}`];
    if (i % 5 === 4) lines.push(line(at, "result", from, null));
    else lines.push(line(at, "remove", from, `broker-a:${i % 4}`), line(at + 400, "add", to, `broker-a:${i % 4}`));
  }
  return lines.join("\n");
}

const number = (text: string) => Number(text.replace(/[^\d]/g, ""));

/** The page once its streamed parts are in (a page first shows the root loading state). */
const loaded = (page: Page) => page.waitForFunction(() => !/Loading…|加载中…/.test(document.querySelector("main")?.textContent ?? ""));

describe("from the overview to the detail, in Chromium", () => {
  let demo: DemoServer;
  let server: RunningServer;
  let browser: TestBrowser;
  /** A group with leaks, for filters the overview and the list must share. */
  let leakyGroup: string;
  /** A key with a duplicate, whose first characters make a partial key. */
  let someKey: string;

  async function storm(url: string, start: number): Promise<void> {
    const response = await fetch(`${url}/api/v1/events`, { method: "POST", body: stormEvents(start), headers: { "content-type": "application/x-ndjson" } });
    const body = (await response.json()) as { rejected: unknown[] };
    assert.deepEqual([response.status, body.rejected], [200, []]);
  }

  before(async () => {
    demo = await startDemoServer({ day: { hours: 6, runs: 2, scale: 0.5 }, afterLoad: (url) => storm(url, Date.now() - 3 * 3_600_000) });
    server = demo.server;
    const leaks = (await (await fetch(`${server.url}/api/v1/duplicates?outcome=leaked&limit=500`)).json()) as { items: { group: string | null; bizKey: string }[] };
    const perGroup = new Map<string, number>();
    for (const l of leaks.items) if (l.group) perGroup.set(l.group, (perGroup.get(l.group) ?? 0) + 1);
    leakyGroup = [...perGroup].sort((a, b) => b[1] - a[1])[0]![0];
    someKey = leaks.items[0]!.bizKey;
    browser = await launchBrowser();
  });
  afterEach(() => browser?.closePages());
  after(async () => {
    await browser?.close();
    await demo?.stop();
  });

  /** What went wrong on pages since `since`, less Chromium's console line for each 404 a test asked for. */
  const problemsSince = (since: number, expected404: string[] = []) =>
    browser.problems.slice(since).filter((p) => !expected404.some((path) => p === `${server.url}${path}: console: Failed to load resource: the server responded with a status of 404 (Not Found)`));

  async function open(locale: Locale, width: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.context().addCookies([{ name: LOCALE_COOKIE, value: locale, url: server.url }]);
    return page;
  }

  for (const locale of LOCALES) {
    const d = dictionary(locale);
    for (const width of WIDTHS) {
      const label = `${locale}, ${width} px`;

      it(`a count opens its list under the overview's filters (${label})`, async () => {
        const since = browser.problems.length;
        const page = await open(locale, width);
        await page.goto(`${server.url}/?range=24h&group=${encodeURIComponent(leakyGroup)}`);
        await loaded(page);
        const leaked = page.locator('[data-kpi="leaked"]');
        assert.equal(await leaked.locator("dt").innerText(), d.overview.kpi.leaked);
        const count = number(await leaked.locator("dd").innerText());
        assert.ok(count > 0, `${leakyGroup} leaked in the demo`);
        await screenshot(page, `overview-kpis-${locale}-${width}`);
        await assertAccessible(page, `the overview (${label})`);
        await Promise.all([page.waitForURL(/\/duplicates\?/), leaked.locator("a").click()]);
        await loaded(page);
        const url = new URL(page.url());
        assert.deepEqual(Object.fromEntries(url.searchParams), { group: leakyGroup, outcome: "leaked" }, "the default range stays implicit, as on the overview");
        const rows = page.locator('[data-testid="duplicates"] tbody tr');
        assert.equal(await rows.count(), Math.min(count, 50), "the list holds what the card counted");
        assert.ok((await rows.locator("td:nth-child(3)").allInnerTexts()).every((g) => g === leakyGroup));
        assert.ok((await rows.locator(".outcome").allInnerTexts()).every((o) => o === outcomeName("leaked", locale)));

        await page.goto(`${server.url}/?range=24h`);
        await loaded(page);
        const lost = page.locator('[data-kpi="lost"]');
        assert.equal(await lost.locator(".kpi-note").innerText(), d.overview.kpiLostNote, "the card says what a lost message is");
        const lostCount = number(await lost.locator("dd").first().innerText());
        await Promise.all([page.waitForURL(/\/lost/), lost.locator("a").click()]);
        await loaded(page);
        assert.equal(await page.locator("h1").innerText(), d.lost.title);
        const lostCells = await page.locator('[data-testid="lost"] tbody td:nth-child(3)').allInnerTexts();
        if (lostCount <= 50) assert.equal(lostCells.reduce((s, c) => s + number(c), 0), lostCount, "the lost messages listed add up to the card");
        await assertAccessible(page, `the lost messages (${label})`);
        assert.deepEqual(problemsSince(since), []);
      });

      it(`every group is reachable from the overview, ranked by duplicates or rate (${label})`, async () => {
        const since = browser.problems.length;
        const page = await open(locale, width);
        await page.goto(`${server.url}/groups`);
        await loaded(page);
        const groups = await page.locator('[data-testid="groups"] tbody tr').count();
        await page.goto(`${server.url}/`);
        await loaded(page);
        const widget = page.locator('[data-widget="top-group"]');
        const rows = widget.locator("tr[data-rank-name]");
        assert.equal(await rows.count(), groups, "the groups charted and folded away are every group");
        const duplicates = (await widget.locator("tr[data-rank-name] td:nth-child(2)").allInnerTexts()).map(number);
        assert.deepEqual(duplicates, [...duplicates].sort((a, b) => b - a), "most duplicates first");
        await Promise.all([page.waitForURL(/groupsBy=rate/), widget.locator('[data-rank-order="rate"]').click()]);
        await loaded(page);
        const rates = (await page.locator('[data-widget="top-group"] tr[data-rank-name] td:nth-child(4)').allInnerTexts()).map((r) => Number.parseFloat(r));
        assert.deepEqual(rates, [...rates].sort((a, b) => b - a), "highest rate first");
        const folded = page.locator('[data-widget="top-group"] details.rank-rest');
        if ((await folded.count()) > 0) {
          await folded.locator("summary").click();
          const last = folded.locator("tr[data-rank-name] a").last();
          const name = await last.innerText();
          await Promise.all([page.waitForURL(`**/groups/${encodeURIComponent(name)}`), last.click()]);
          await loaded(page);
        }
        await assertAccessible(page, `the groups widget (${label})`);
        assert.deepEqual(problemsSince(since), []);
      });

      it(`an unknown group is a 404 that offers similar names (${label})`, async () => {
        const since = browser.problems.length;
        const page = await open(locale, width);
        // Two letters swapped at the end: the name someone meant.
        const typoPath = `/groups/${leakyGroup.slice(0, -2)}${leakyGroup.slice(-1)}${leakyGroup.slice(-2, -1)}`;
        const typo = await page.goto(`${server.url}${typoPath}`);
        await loaded(page);
        assert.equal(typo?.status(), 404);
        assert.equal(await page.locator("h1").innerText(), d.groups.unknownTitle);
        assert.ok((await page.getByTestId("group-suggestions").locator("a").allInnerTexts()).includes(leakyGroup), "the name meant is offered");
        await screenshot(page, `unknown-group-${locale}-${width}`);
        await assertAccessible(page, `an unknown group (${label})`);
        await Promise.all([page.waitForURL(`**/groups/${encodeURIComponent(leakyGroup)}`), page.getByTestId("group-suggestions").locator("a", { hasText: leakyGroup }).first().click()]);
        await loaded(page);

        const nothing = await page.goto(`${server.url}/groups/does_not_exist`);
        await loaded(page);
        assert.equal(nothing?.status(), 404);
        assert.match(await page.getByTestId("unknown-group").innerText(), new RegExp(d.groups.knownGroups.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        assert.ok((await page.getByTestId("group-suggestions").locator("a").count()) > 0, "the groups with data are listed");
        assert.equal((await fetch(`${server.url}/groups/${encodeURIComponent(leakyGroup)}`)).status, 200);
        assert.deepEqual(problemsSince(since, [typoPath, "/groups/does_not_exist"]), []);
      });

      it(`a partial key offers the keys that start with it, whole (${label})`, async () => {
        const since = browser.problems.length;
        const page = await open(locale, width);
        const prefix = someKey.slice(0, -3);
        await page.goto(`${server.url}/`);
        await loaded(page);
        await page.locator("#q-home").fill(prefix);
        await Promise.all([page.waitForURL(`**/keys/${encodeURIComponent(prefix)}`), page.locator("#q-home").press("Enter")]);
        await loaded(page);
        const matches = page.getByTestId("prefix-matches");
        assert.equal(await matches.locator("h2").innerText(), d.key.startingWith(prefix));
        const keys = await matches.locator("a").allInnerTexts();
        assert.ok(keys.length > 0 && keys.every((k) => k.startsWith(prefix)), keys.join(", "));
        assert.ok(keys.includes(someKey) || keys.length === 20, `${someKey} is offered, or the list is cut at 20`);
        // A key is one line: its hyphens do not wrap it.
        const heights = await matches.locator("a").evaluateAll((links) => links.map((a) => (a as HTMLElement).getClientRects().length));
        assert.ok(heights.every((n) => n === 1), "every key on one line");
        await screenshot(page, `prefix-keys-${locale}-${width}`);
        await assertAccessible(page, `a partial key (${label})`);
        await Promise.all([page.waitForURL(`**/keys/${encodeURIComponent(keys[0]!)}`), matches.locator("a").first().click()]);
        await loaded(page);
        assert.deepEqual(problemsSince(since), []);
      });

      it(`a group's rebalance history is paged, every episode reachable (${label})`, async () => {
        const since = browser.problems.length;
        const page = await open(locale, width);
        await page.goto(`${server.url}/groups/${STORM}?range=6h`);
        await loaded(page);
        const pager = page.getByTestId("history-pager");
        assert.equal(await pager.count(), 1, "the storm's history has more than one page");
        const seen = new Set<string>();
        let pages = 0;
        for (;;) {
          pages++;
          for (const id of await page.locator('[data-testid="rebalance-episode"]').evaluateAll((all) => all.map((e) => e.id))) seen.add(id);
          const older = pager.locator("a", { hasText: d.groups.older });
          if ((await older.count()) === 0) break;
          await Promise.all([page.waitForURL(new RegExp(`history=${pages + 1}`)), older.click()]);
          await loaded(page);
        }
        assert.deepEqual([pages, seen.size], [Math.ceil(STORM_EPISODES / HISTORY_PAGE_SIZE), STORM_EPISODES], "every episode was listed once");
        const first = (pages - 1) * HISTORY_PAGE_SIZE + 1;
        assert.equal(await page.locator("p.note", { hasText: `${first}–` }).first().innerText(), d.groups.historyPage(first, seen.size, seen.size), "the last page says which of how many");
        const summaries = await page.locator('[data-testid="rebalance-episode"] > details > summary').allInnerTexts();
        assert.ok(summaries.some((t) => t.includes(d.groups.episodeMoves(0, 1))), "an episode without moves says so");
        assert.ok(summaries.every((t) => !/· 0 (queues moved|个队列转移)/.test(t)), "never '0 queues moved'");
        await screenshot(page, `group-history-last-${locale}-${width}`);
        await assertAccessible(page, `a group's older rebalances (${label})`);
        assert.deepEqual(problemsSince(since), []);
      });

      if (width === 1440) {
        it(`the tallest group page is a few screens long, each long section folded behind a disclosure that opens (${label})`, async () => {
          const since = browser.problems.length;
          const page = await open(locale, width);
          const { groups } = (await (await fetch(`${server.url}/api/v1/findings`)).json()) as { groups: { group: string }[] };
          const heights = new Map<string, number>();
          for (const group of new Set([...groups.map((g) => g.group), STORM])) {
            await page.goto(`${server.url}/groups/${encodeURIComponent(group)}`);
            await loaded(page);
            heights.set(group, await page.evaluate(() => document.documentElement.scrollHeight));
          }
          const [tallest, height] = [...heights].sort((a, b) => b[1] - a[1])[0]!;
          assert.ok(height <= GROUP_PAGE_MAX_PX, `${tallest} is ${height} px long at ${width} wide (${[...heights].map(([g, h]) => `${g} ${h}`).join(", ")})`);

          await page.goto(`${server.url}/groups/${encodeURIComponent(tallest)}`);
          await loaded(page);
          // Whatever says how many more there are is a disclosure's summary: nothing says "and N more" and stays shut.
          const counts = await page.locator("main").evaluate((main) => {
            const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
            const found: { text: string; opens: boolean }[] = [];
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const text = node.textContent ?? "";
              if (/\b\d+ (more|earlier)\b|另外 \d+|更早的 \d+|另有 \d+|not drawn|未画出/.test(text)) found.push({ text, opens: node.parentElement?.closest("summary") !== null });
            }
            return found;
          });
          assert.deepEqual(counts.filter((c) => !c.opens), [], "every count of what is not shown opens it");
          const folds = page.getByTestId("lane-fold");
          assert.ok((await folds.count()) > 0, `${tallest} folds some of its lanes`);
          for (const fold of await folds.all()) {
            const hidden = fold.locator(".tl-lane");
            assert.equal(await hidden.first().isVisible(), false);
            await fold.locator("> summary").click();
            assert.ok((await hidden.count()) > 0 && (await hidden.first().isVisible()), "the fold opens to its lanes");
          }
          const summaries = await page.locator('[data-testid="rebalance-episode"] > details > summary').allInnerTexts();
          assert.ok(summaries.every((t) => !/· 0 (queues moved|个队列转移)/.test(t)), "never '0 queues moved'");
          await page.evaluate(() => document.querySelectorAll("main details").forEach((d) => ((d as HTMLDetailsElement).open = true)));
          const keyLines = await page.locator('[data-testid="group-incident"] .keys-list a').evaluateAll((links) => links.map((a) => (a as HTMLElement).getClientRects().length));
          assert.ok(keyLines.every((n) => n === 1), "every incident key on one line");

          // The storm's 45 processes are more than a page draws: its fold ends in a link to the page with all, open.
          await page.goto(`${server.url}/groups/${STORM}?range=6h`);
          await loaded(page);
          const instances = page.getByTestId("instances");
          const drawn = await instances.locator(".tl-lane[data-instance]").count();
          assert.equal(drawn, 40);
          await instances.locator("[data-testid=lane-fold] > summary").click();
          await Promise.all([page.waitForURL(/lanes=all/), instances.locator(".lane-all a").click()]);
          await loaded(page);
          const processes = new Set(stormEvents(0).split("\n").map((l) => (JSON.parse(l) as { instance: string }).instance)).size;
          assert.equal(await instances.locator(".tl-lane[data-instance]").count(), processes, "every process drawn");
          assert.equal(await instances.locator("[data-testid=lane-fold]").getAttribute("open"), "", "its fold open");
          assert.equal(await page.locator(".lane-all").count(), 0);
          assert.deepEqual(problemsSince(since), []);
        });
      }
    }
  }
});
