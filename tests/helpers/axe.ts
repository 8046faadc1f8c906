import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, ImpactValue, RunOptions } from "axe-core";
import type { Page } from "playwright-core";

/**
 * axe-core's WCAG 2.0 A and AA checks (color contrast included) run inside the page under test. The app follows
 * the OS color scheme, so every page is checked in light and in dark; only serious and critical violations fail,
 * which are the ones that lock a keyboard or screen-reader user out or make text unreadable.
 */

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const OPTIONS: RunOptions = { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, rules: { "color-contrast": { enabled: true } } };
const FAILING: ImpactValue[] = ["serious", "critical"];

type AxeWindow = Window & { axe?: { run(context: Document, options: RunOptions): Promise<AxeResults> } };

async function run(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate((options) => (window as AxeWindow).axe!.run(document, options), OPTIONS);
}

function failures(results: AxeResults, scheme: string): string[] {
  return results.violations
    .filter((v) => FAILING.includes(v.impact ?? null))
    .map((v) => `[${scheme}] ${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}`).join("\n")}`);
}

/** Fails with every serious or critical violation on the page as it is now, in light and then in dark color scheme. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  // Streamed widgets first show "Loading…"; what is checked is the page once they are in.
  await page.waitForFunction(() => !/Loading…|加载中…/.test(document.querySelector("main")?.textContent ?? ""));
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    found.push(...failures(await run(page), colorScheme));
  }
  await page.emulateMedia({ colorScheme: null });
  assert.deepEqual(found, [], `axe found ${found.length} serious or critical WCAG 2 A/AA violation(s) on ${name} (${page.url()}):\n${found.join("\n")}`);
}
