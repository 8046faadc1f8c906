import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { parseProbeConfig } from "../../collectors/business-probe/config.ts";
import { rowToEvent } from "../../collectors/business-probe/rows.ts";
import type { DemoResult } from "../../lib/demo/load.ts";
import type { KeyReport } from "../../lib/views/key-report.ts";
import { causeName } from "../../lib/i18n/diagnosis-text.ts";
import { sameProcess, canonicalInstance } from "../../lib/events/instance.ts";
import { httpSink } from "../../lib/ingest/http-sink.ts";
import { withRedis } from "../../lib/redis/connect.ts";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { orderStory, T0, toNdjson } from "../helpers/events.ts";
import { startDemoServer, type DemoServer } from "../helpers/demo-server.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The dashboard in a real browser against `next start` on a fresh embedded store, loaded with a simulated
 * incident mix through the HTTP ingest path and diagnosed by the server's own worker.
 */

const pglite = backends.find((b) => b.name === "pglite")!;

/** The machine's Redis stands in for the application's, under a prefix of this run's own (removed afterwards). */
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const MARKERS = `dupscope-e2e:${process.pid}`;
// Without Redis the marker checks are left out, unless TEST_REDIS_URL says one must be there (CI sets it).
const redisUp = await withRedis(REDIS_URL, (r) => r.ping()).then(
  () => true,
  (error: unknown) => {
    if (process.env.TEST_REDIS_URL) throw error;
    return false;
  },
);

/** Delivery instances as the timeline names them: a trace's bare host joins the one ip@pid process on that host. */
function expectedConsumerLanes(report: KeyReport): string[] {
  const names = [...new Set(report.deliveries.map((d) => d.instance ?? "?"))];
  const named = names.filter((n) => canonicalInstance(n).process !== undefined);
  return names.filter((n) => canonicalInstance(n).process !== undefined || named.filter((p) => sameProcess(p, n)).length !== 1).sort();
}

async function problemsOf(browser: TestBrowser, since: number): Promise<string[]> {
  return browser.problems.slice(since);
}

describe("dashboard in Chromium", () => {
  let demoServer: DemoServer;
  let server: RunningServer;
  let browser: TestBrowser;
  let demo: DemoResult;

  before(async () => {
    const markers: Record<string, string> = redisUp ? { DEDUP_REDIS_URL: REDIS_URL, DEDUP_REDIS_KEY_PATTERN: `${MARKERS}:{group}:{bizKey}` } : {};
    demoServer = await startDemoServer({ day: { hours: 6, runs: 2, scale: 0.5 }, env: markers });
    ({ server, demo } = demoServer);
    browser = await launchBrowser();
  });

  afterEach(() => browser?.closePages());

  after(async () => {
    await browser?.close();
    await demoServer?.stop();
    if (redisUp) {
      await withRedis(REDIS_URL, async (r) => {
        const keys = await r.keys(`${MARKERS}:*`);
        if (keys.length > 0) await r.del(...keys);
      });
    }
  });

  it("loaded the simulated day through the ingest API", () => {
    assert.equal(demo.rejected, 0);
    assert.ok(demo.accepted > 5000, `${demo.accepted} events stored`);
  });

  it("overview: every chart renders with data, in light and dark mode and on a phone", async () => {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    assert.equal(await page.title(), "Overview · dupscope");
    await page.locator('[data-widget="by-cause"] svg.recharts-surface').first().waitFor();
    for (const widget of ["by-cause", "outcomes", "funnel", "gaps", "top-group", "top-topic"]) {
      assert.ok((await page.locator(`[data-widget="${widget}"] svg.recharts-surface`).count()) > 0, `${widget} draws a chart`);
    }
    const areas = await page.locator('[data-widget="by-cause"] path.recharts-area-area').evaluateAll((paths) => paths.map((p) => p.getAttribute("d") ?? ""));
    assert.ok(areas.length > 0 && areas.every((d) => d.length > 20), "the stacked areas have shapes");
    assert.ok((await page.locator('[data-widget="outcomes"] .recharts-bar-rectangle path').count()) > 10, "outcome bars are drawn");
    assert.ok((await page.locator('[data-widget="gaps"] .recharts-bar-rectangle path').count()) > 3, "gap bins are drawn");
    assert.ok((await page.locator('[data-widget="funnel"] .recharts-bar-rectangle path').count()) >= 4, "funnel stages are drawn");
    assert.ok((await page.locator('[data-widget="leaks"] tbody tr').count()) > 0, "latest leaks are listed");
    await screenshot(page, "overview");
    await assertAccessible(page, "the overview");

    const dark = await browser.newPage({ colorScheme: "dark" });
    await dark.goto(`${server.url}/`);
    await dark.locator('[data-widget="by-cause"] svg.recharts-surface').first().waitFor();
    assert.equal(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(17, 20, 24)", "dark mode follows the OS");
    await screenshot(dark, "overview-dark");

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.goto(`${server.url}/`);
    await phone.locator('[data-widget="by-cause"] svg.recharts-surface').first().waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page fits a phone's width (${overflow} px too wide)`);
    await screenshot(phone, "overview-phone");
    assert.deepEqual(await problemsOf(browser, seen), []);
  });

  it("filters live in the URL and narrow every chart", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.selectOption("#f-cause", "rebalance");
    await page.selectOption("#f-range", "6h");
    await Promise.all([page.waitForURL(/cause=rebalance/), page.click('form.filters button[type="submit"]')]);
    assert.match(page.url(), /range=6h/);
    await page.locator('[data-widget="by-cause"] svg.recharts-surface').first().waitFor();
    const legend = await page.locator('[data-widget="by-cause"] .recharts-legend-item-text').allTextContents();
    assert.deepEqual(legend.sort(), ["rebalance", "rebalance episodes"].sort(), "only the chosen cause is stacked, beside the rebalance line");
  });

  it("searching a bizKey lands on its key page with the verdict of the API and one lane per instance", async () => {
    const seen = browser.problems.length;
    const { items } = (await (await fetch(`${server.url}/api/v1/duplicates?cause=rebalance&limit=100`)).json()) as { items: { bizKey: string; group: string }[] };
    const truth = demo.runs.flatMap((r) => r.truth.duplicates);
    const pick = items.find((d) => truth.some((t) => t.bizKey === d.bizKey && t.group === d.group && t.cause === "rebalance"));
    assert.ok(pick, "a rebalance duplicate that the simulator's truth agrees with");
    const report = (await (await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(pick.bizKey)}`)).json()) as KeyReport;
    const verdict = report.duplicates.find((v) => v.group === pick.group && v.cause === "rebalance")!;

    const page = await browser.newPage();
    await page.goto(`${server.url}/duplicates`);
    await page.fill("header #q", pick.bizKey);
    await Promise.all([page.waitForURL(`**/keys/${pick.bizKey}`), page.press("header #q", "Enter")]);
    assert.equal(await page.title(), `${pick.bizKey} · dupscope`);
    const headlines = await page.locator('[data-testid="verdict-headline"]').allTextContents();
    assert.ok(
      headlines.some((h) => h.startsWith(`Duplicate caused by ${causeName("rebalance")}:`)),
      headlines.join("\n"),
    );
    assert.ok((await page.locator(".verdict-summary").allTextContents()).includes(verdict.summary), "the API's verdict line is shown");

    const lanes = await page.locator('[data-testid="timeline"] [data-lane="consumer"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-instance") ?? ""));
    assert.deepEqual([...lanes].sort(), expectedConsumerLanes(report), "one consumer lane per instance that consumed the key");
    assert.ok((await page.locator('[data-testid="timeline"] [data-lane="producer"]').count()) >= 1, "the producer has a lane");
    assert.ok((await page.locator('[data-testid="timeline-gap"]').count()) >= 1, "the gap between the consumptions is drawn");
    assert.match((await page.locator('[data-testid="timeline-gap"]').first().textContent()) ?? "", /gap\s*d\d+ → d\d+: \d/);
    await screenshot(page, "key");

    if (redisUp) {
      await withRedis(REDIS_URL, (r) => r.set(`${MARKERS}:${pick.group}:${pick.bizKey}`, "1", "PX", 3_600_000));
      await page.reload();
      const row = page.locator(`[data-testid="redis-markers"] tr:has-text("${MARKERS}:${pick.group}:${pick.bizKey}")`);
      assert.match((await row.textContent()) ?? "", /exists(59 min \d+ s|1 h)$/, "the marker's TTL is read from Redis");
    }

    await assertAccessible(page, "the key page");

    const msgId = report.events.find((e) => e.msgId !== null)!.msgId!;
    await page.goto(`${server.url}/keys?q=${msgId}`);
    assert.match(page.url(), new RegExp(`/keys/${pick.bizKey}\\?via=msgId`), "a msgId leads to its key");
    assert.deepEqual(await problemsOf(browser, seen), []);
  });

  it("a key's business-table rows (dupscope probe) get a lane of their own after the consumers", async () => {
    const seen = browser.problems.length;
    const { items } = (await (await fetch(`${server.url}/api/v1/duplicates?cause=rebalance&limit=20`)).json()) as { items: { bizKey: string; group: string }[] };
    const pick = items.at(-1)!;
    const report = (await (await fetch(`${server.url}/api/v1/keys/${encodeURIComponent(pick.bizKey)}`)).json()) as KeyReport;
    const written = report.deliveries.filter((d) => d.group === pick.group).slice(0, 2);
    assert.equal(written.length, 2, "the duplicate's two deliveries");
    const [probe] = parseProbeConfig(`
probes:
  - name: payment
    match: { group: ${pick.group} }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by, status FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id, instance: updated_by, state: status }
`);
    const rows = written.map((d, i) => {
      const result = rowToEvent(probe!, pick.bizKey, { id: 7001 + i, created_at: new Date(d.start + 5), updated_by: d.instance, status: "PAID" });
      assert.ok(result.ok, result.ok ? "" : result.reason);
      return result.event;
    });
    const sink = httpSink(server.url);
    assert.equal((await sink.write(rows)).accepted, 2);
    await sink.close();

    const page = await browser.newPage();
    await page.goto(`${server.url}/keys/${encodeURIComponent(pick.bizKey)}`);
    const lanes = await page.locator('[data-testid="timeline"] [data-lane]').evaluateAll((els) => els.map((e) => e.getAttribute("data-lane") ?? ""));
    assert.deepEqual(lanes.filter((l) => l === "table"), ["table"], "one lane for the probe");
    assert.ok(lanes.lastIndexOf("consumer") < lanes.indexOf("table"), `the table lane comes after the consumers: ${lanes.join(", ")}`);
    const table = page.locator('[data-testid="timeline"] [data-lane="table"]');
    assert.equal(await table.getAttribute("data-instance"), "payment");
    assert.match((await table.locator(".tl-label").textContent()) ?? "", /business table.*payment.*database's clock/);
    const marks = await table.locator("a.tl-mark").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
    assert.equal(marks.length, 2);
    marks.forEach((m, i) => assert.match(m, new RegExp(`^row in the business table \\(id=${7001 + i} · PAID\\) · .* UTC · time by the database's clock$`)));
    assert.equal(await page.locator('[data-testid="timeline"] [data-lane="consumer"] a.tl-mark.k-row').count(), 0, "no row on a consumer's lane");
    await screenshot(page, "key-probe-rows");
    await assertAccessible(page, "the key page with business-table rows");
    assert.deepEqual(await problemsOf(browser, seen), []);
  });

  it("the key page reads in Chinese after the language switch", async () => {
    const page = await browser.newPage();
    const { items } = (await (await fetch(`${server.url}/api/v1/duplicates?limit=1`)).json()) as { items: { bizKey: string }[] };
    await page.goto(`${server.url}/keys/${encodeURIComponent(items[0]!.bizKey)}`);
    await page.click('nav.lang a[lang="zh-CN"]');
    await page.waitForSelector('html[lang="zh-CN"]');
    assert.match(page.url(), new RegExp(`/keys/${items[0]!.bizKey}$`), "the switch comes back to the same page");
    assert.match((await page.locator('[data-testid="verdict-headline"]').first().textContent()) ?? "", /^重复消费的原因是/);
    assert.deepEqual(await page.locator("nav.nav a").allTextContents(), ["总览", "重复消费", "消费组", "告警", "采集"]);
    await screenshot(page, "key-zh");
    await assertAccessible(page, "the key page in Chinese");
    await page.click('nav.lang a[lang="en"]');
    await page.waitForSelector('html[lang="en"]');
  });

  it("a shared ?lang=zh-CN link stays Chinese through the next two clicks", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/duplicates?lang=zh-CN`);
    await page.waitForSelector('html[lang="zh-CN"]');
    await page.click('nav.nav a[href="/groups"]');
    await page.waitForURL(/\/groups$/);
    await page.locator("main a[href^='/groups/']").first().click();
    await page.waitForURL(/\/groups\/[^/?]+/);
    await page.waitForSelector("main h1");
    assert.equal(await page.locator("html").getAttribute("lang"), "zh-CN");
    assert.deepEqual(await page.locator("nav.nav a").allTextContents(), ["总览", "重复消费", "消费组", "告警", "采集"]);
    assert.match((await page.locator("main").innerText()).slice(0, 400), /[\u4e00-\u9fff]/, "the group page's body is Chinese too");
    await page.click('nav.lang a[lang="en"]');
    await page.waitForSelector('html[lang="en"]');
  });
  it("the groups page shows the group's rebalances and which queues moved where", async () => {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}/groups`);
    const groupRows = await page.locator('[data-testid="groups"] tbody tr').count();
    assert.ok(groupRows >= 5, `${groupRows} groups listed: ${await page.locator("main").innerText()}`);
    assert.equal(await page.title(), "Consumer groups · dupscope");
    await screenshot(page, "groups");
    await assertAccessible(page, "the groups page");
    await Promise.all([page.waitForURL("**/groups/cg_order_paid"), page.click('[data-testid="groups"] a:text-is("cg_order_paid")')]);
    assert.ok((await page.locator('[data-testid="rebalance-episode"]').count()) > 0, "rebalance episodes are listed");
    assert.match((await page.locator('[data-testid="rebalance-episode"]').allTextContents()).join("\n"), /broker-[ab]:\d moved from \S+ to \S+/);
    assert.ok((await page.locator('[data-testid="instances"] [data-instance]').count()) >= 2, "instances over time");
    await page.locator('[data-widget="by-cause"] svg.recharts-surface').first().waitFor();
    if (redisUp) {
      await withRedis(REDIS_URL, (r) => r.set(`${MARKERS}:cg_order_paid:NEVER-EXPIRES-1`, "1"));
      await page.reload();
      assert.match((await page.locator('[data-testid="ttl-sample"]').textContent()) ?? "", /1 without TTL.*NEVER-EXPIRES-1/);
    }
    assert.equal(await page.title(), "cg_order_paid · Consumer groups · dupscope");
    await screenshot(page, "group");
    await assertAccessible(page, "a group's page");
    assert.deepEqual(await problemsOf(browser, seen), []);
  });

  it("the group page lists an offset reset and a shared clientId as incidents with the keys they explain, in both languages", async () => {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}/groups/cg_order_paid`);
    // Only the newest incident is open and the earlier ones are folded together: unfold them all, as a reader would one by one.
    const unfold = () => page.locator('[aria-labelledby="incidents-title"] details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await unfold();
    const shared = (await page.locator('[data-testid="group-incident"]', { hasText: "shared clientId" }).first().innerText()).replace(/\s+/g, " ");
    assert.match(shared, /shared clientId: \d+ keys? consumed twice on \d+ queues?.*Two processes connected with the clientId 10\.0\.11\.\d+@order-paid-consumer/);
    const incident = page.locator('[data-testid="group-incident"]', { hasText: "offset rollback" }).first();
    const text = (await incident.innerText()).replace(/\s+/g, " ");
    assert.match(text, /UTC · offset rollback: \d+ keys? consumed twice on \d+ queues?/);
    assert.match(text, /Offsets reset back to .* UTC, requested from 10\.0\.9\.9:\d+\./);
    assert.match(text, /broker-[ab]:\d: offsets \d+–\d+ \(\d+ keys?\)/);
    const key = (await incident.locator("a").first().textContent()) ?? "";
    await Promise.all([page.waitForURL(`**/keys/${encodeURIComponent(key)}**`), incident.locator("a").first().click()]);
    await page.locator("main", { hasText: "offset rollback" }).waitFor();
    await page.goto(`${server.url}/groups/cg_order_paid?lang=zh-CN`);
    await unfold();
    const zh = (await page.locator('[data-testid="group-incident"]', { hasText: "位点回滚" }).first().innerText()).replace(/\s+/g, " ");
    assert.match(zh, /位点回滚：\d+ 个业务键被重复消费，涉及 \d+ 个队列/);
    assert.match(zh, /位点被重置回 .* UTC，由 10\.0\.9\.9:\d+ 发起。/);
    await assertAccessible(page, "a group's page in Chinese");
    assert.deepEqual(await problemsOf(browser, seen), []);
  });

  it("the duplicates page pages through the verdicts and exports them as CSV", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/duplicates`);
    assert.equal(await page.locator('[data-testid="duplicates"] tbody tr').count(), 50);
    assert.equal(await page.title(), "Duplicates · dupscope");
    await screenshot(page, "duplicates");
    await assertAccessible(page, "the duplicates page");
    const firstPage = await page.locator('[data-testid="duplicates"] tbody tr td:nth-child(2)').allTextContents();
    await Promise.all([page.waitForURL(/cursor=/), page.click('nav.pager a:text-is("Next page")')]);
    const secondPage = await page.locator('[data-testid="duplicates"] tbody tr td:nth-child(2)').allTextContents();
    assert.ok(secondPage.length > 0 && secondPage[0] !== firstPage[0], "the next page shows other duplicates");
    const csvHref = await page.getAttribute('a[href^="/api/v1/duplicates.csv"]', "href");
    const csv = await fetch(`${server.url}${csvHref}`);
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    const lines = (await csv.text()).trim().split("\r\n");
    assert.match(lines[0]!, /^second_iso,secondTs,firstTs,bizKey,group,topic,cause/);
    assert.ok(lines.length > 100, `${lines.length} CSV lines`);
  });

  it("the header links to the alert rules and marks that section as the current one", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/duplicates`);
    const nav = page.getByRole("navigation", { name: "Main" });
    assert.deepEqual(await nav.locator('a[aria-current="page"]').allTextContents(), ["Duplicates"]);
    await Promise.all([page.waitForURL("**/alerts"), nav.getByRole("link", { name: "Alerts" }).click()]);
    // A client-side navigation sets the title when the page's metadata has streamed in, which may be after the URL.
    await page.waitForFunction(() => document.title !== "", undefined, { timeout: 10_000 });
    assert.equal(await page.title(), "Alerts · dupscope");
    assert.deepEqual(await nav.locator('a[aria-current="page"]').allTextContents(), ["Alerts"]);
    await assertAccessible(page, "the alerts page");
  });

  it("an unknown page answers 404 and says so in its title", async () => {
    // Over plain HTTP: Chromium logs every 404 as a console error, which the browser tests must not have.
    const response = await fetch(`${server.url}/no-such-page`);
    assert.equal(response.status, 404);
    assert.match(await response.text(), /<title>Not found · dupscope<\/title>/);
  });

  it("is usable from the keyboard: a skip link first, then the navigation", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/groups`);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.className), "skip-link");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate(() => location.hash), "#main");
    await page.goto(`${server.url}/`);
    assert.ok((await page.locator("label[for=q-home]").count()) === 1 && (await page.locator("label[for=f-cause]").count()) === 1, "inputs have labels");
  });

  it("a new duplicate appears on the open overview without a reload", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.locator(".live-state .dot.on").waitFor();
    const key = `LIVE-${Date.now()}`;
    const shift = Date.now() - 5000 - T0;
    const story = orderStory(key).map((e) => ({ ...e, ts: Number(e.ts) + shift }));
    const posted = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: toNdjson(story), headers: { "content-type": "application/x-ndjson" } });
    assert.equal((await posted.json()).accepted, story.length);
    await page.locator(`[data-testid="live-duplicates"] a:text-is("${key}")`).waitFor({ timeout: 20_000 });
  });

  it("serves its pages under a nonce-based Content-Security-Policy that they run under, charts included", async () => {
    const response = await fetch(`${server.url}/`);
    const policy = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    assert.ok(nonce, policy);
    assert.match(policy, /script-src 'self' 'nonce-[^']+' 'strict-dynamic'(;|$)/, "no unsafe-inline or unsafe-eval for scripts in production");
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("referrer-policy"), "same-origin");
    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.ok(scripts.length > 0 && scripts.every((tag) => tag.includes(`nonce="${nonce}"`)), "every script carries the request's nonce");
    assert.notEqual(/'nonce-([^']+)'/.exec((await fetch(`${server.url}/`)).headers.get("content-security-policy") ?? "")?.[1], nonce, "a fresh nonce per request");
    const page = await browser.newPage();
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (v: string) => violations.push(v));
    await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) => (window as unknown as { reportViolation(v: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`)));
    for (const path of ["/", "/groups", "/duplicates", "/alerts"]) {
      await page.goto(`${server.url}${path}`);
      await page.waitForLoadState("networkidle");
    }
    assert.ok((await page.goto(`${server.url}/`)) !== null);
    await page.locator("svg.recharts-surface").first().waitFor();
    assert.deepEqual(violations, []);
  });

  it("logged no console error, exception or failed request on any page", () => {
    assert.deepEqual(browser.problems, []);
  });
});

describe("login gate and the empty store", () => {
  const PASSWORD = "e2e correct horse";
  const TOKEN = "e2e-ingest-token";
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let browser: TestBrowser;
  let page: Page;

  before(async () => {
    const created = await pglite.create();
    dispose = created.dispose;
    server = await startServer({ ...created.env, DUPSCOPE_PASSWORD: PASSWORD, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200" });
    browser = await launchBrowser();
    page = await browser.newPage();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("sends pages to the login form and refuses read APIs without a session", async () => {
    await page.goto(`${server.url}/groups?range=1h`);
    assert.match(page.url(), /\/login\?next=%2Fgroups%3Frange%3D1h$/);
    assert.equal(await page.title(), "Sign in · dupscope");
    await screenshot(page, "login");
    await assertAccessible(page, "the login page");
    for (const path of ["/api/v1/duplicates", "/api/v1/keys/PAY-1", "/api/v1/findings", "/api/v1/live", "/api/v1/demo"]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 401, path);
      assert.equal((await response.json()).error.code, "unauthorized");
    }
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200, "health stays open for load balancers");
  });

  it("refuses a wrong password and lets the right one in, with an HTTP-only session cookie", async () => {
    await page.fill("#password", "wrong");
    await Promise.all([page.waitForURL(/error=1/), page.click('form.login-form button[type="submit"]')]);
    assert.equal(await page.locator(".login .error-text").textContent(), "Wrong password.");
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/groups?range=1h`), page.click('form.login-form button[type="submit"]')]);
    const [cookie] = await page.context().cookies();
    assert.equal(cookie?.name, "dupscope_session");
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, "Lax");
  });

  it("offers the demo on an empty store, and the button starts loading it", async () => {
    await page.goto(`${server.url}/`);
    assert.match(
      (await page.locator("main").textContent()) ?? "",
      /No traces yet — enable traceTopicEnable on the broker and enableMsgTrace on clients, or run dupscope simulate\./,
    );
    await screenshot(page, "empty-store");
    await assertAccessible(page, "the empty store's overview");
    await page.fill("#demo-token", TOKEN);
    await page.click('button:text-is("Load a simulated day")');
    await page.locator('.demo-loader [role="status"]:text-matches("Simulating|Loading run")').waitFor({ timeout: 20_000 });
  });

  it("keeps ingest on its token, not on the login", async () => {
    const body = toNdjson(orderStory("ORDER-GATE"));
    const headers = { "content-type": "application/x-ndjson" };
    assert.equal((await fetch(`${server.url}/api/v1/events`, { method: "POST", body, headers })).status, 401);
    const ok = await fetch(`${server.url}/api/v1/events`, { method: "POST", body, headers: { ...headers, authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
  });

  it("signs out", async () => {
    await page.goto(`${server.url}/duplicates`);
    await Promise.all([page.waitForURL("**/login"), page.click('form.logout button[type="submit"]')]);
    await page.goto(`${server.url}/duplicates`);
    assert.match(page.url(), /\/login\?next=/);
    assert.deepEqual(browser.problems, []);
  });
});
