import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";

/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser: these machines cannot fetch one). Its
 * profile and caches go to a temporary directory; every page records console errors, uncaught exceptions and
 * failed requests, which the tests require to stay empty.
 */

export const SCREENSHOTS = path.resolve("test-results");

const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface TestBrowser {
  browser: Browser;
  /** Problems any page reported, as "url: message". */
  problems: string[];
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** Closes every page opened so far: an open overview keeps its live event stream (and a connection) busy. */
  closePages(): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const home = mkdtempSync(path.join(tmpdir(), "dupscope-chromium-"));
  process.env.XDG_CONFIG_HOME = path.join(home, "config");
  process.env.XDG_CACHE_HOME = path.join(home, "cache");
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ARGS });
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    browser,
    problems,
    async newPage(options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      contexts.push(context);
      const page = await context.newPage();
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`${page.url()}: console: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`${page.url()}: exception: ${e.message}`));
      page.on("requestfailed", (r) => {
        // Leaving a page aborts its open event stream: that is not a failure.
        if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`${page.url()}: request failed: ${r.url()} ${r.failure()?.errorText}`);
      });
      page.on("response", (r) => {
        if (r.status() >= 500) problems.push(`${page.url()}: ${r.status()} from ${r.url()}`);
      });
      return page;
    },
    async closePages() {
      for (const c of contexts.splice(0)) await c.close().catch(() => {});
    },
    async close() {
      for (const c of contexts.splice(0)) await c.close().catch(() => {});
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  // Streamed widgets first show "Loading…"; the picture is of the page once they are in.
  await page.waitForFunction(() => !/Loading…|加载中…/.test(document.querySelector("main")?.textContent ?? ""));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
