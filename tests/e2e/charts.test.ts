import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { startDemoServer, type DemoServer } from "../helpers/demo-server.ts";
import type { RunningServer } from "../helpers/server.ts";

/**
 * The charts read at a glance in a real browser, at a desktop and a laptop width and in both languages: time axes
 * that never repeat a label, no axis text cut by its chart, a tooltip of the series with a value, and the layer
 * chart's bars as long as the counts they are labelled with. The simulated day of dashboard.test.ts feeds them.
 */

const WIDTHS = [1440, 1024];
const LANGS = ["en", "zh-CN"] as const;

async function chartsDrawn(page: Page): Promise<void> {
  for (const widget of ["by-cause", "outcomes", "funnel", "gaps", "top-group", "top-topic"]) {
    await page.locator(`[data-widget="${widget}"] svg.recharts-surface`).first().waitFor();
  }
  // The time axes choose their ticks once the plot's width is known.
  await page.locator('[data-widget="by-cause"] .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').first().waitFor();
}

/** Text of every axis tick and bar label whose box reaches outside its chart's SVG, with by how much. */
async function clippedText(page: Page): Promise<string[]> {
  return page.locator("main svg.recharts-surface").evaluateAll((svgs) =>
    svgs.flatMap((svg) => {
      const box = svg.getBoundingClientRect();
      const widget = svg.closest("[data-widget]")?.getAttribute("data-widget") ?? "?";
      return [...svg.querySelectorAll(".recharts-cartesian-axis-tick-value, .recharts-label-list text")].flatMap((t) => {
        const r = t.getBoundingClientRect();
        if (r.width === 0) return [];
        const out = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
        return out > 1 ? [`${widget}: "${t.textContent}" ${out.toFixed(1)} px outside`] : [];
      });
    }),
  );
}

async function xTickLabels(page: Page, widget: string): Promise<string[]> {
  return page.locator(`[data-widget="${widget}"] .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value`).allTextContents();
}

describe("charts in Chromium", () => {
  let demo: DemoServer;
  let server: RunningServer;
  let browser: TestBrowser;

  before(async () => {
    demo = await startDemoServer({ day: { hours: 6, runs: 2, scale: 0.5 } });
    server = demo.server;
    browser = await launchBrowser();
  });

  afterEach(() => browser?.closePages());

  after(async () => {
    await browser?.close();
    await demo?.stop();
  });

  for (const width of WIDTHS) {
    for (const lang of LANGS) {
      it(`at ${width} px in ${lang}: a 15-minute range repeats no time label and cuts no axis text`, async () => {
        const seen = browser.problems.length;
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`${server.url}/?range=15m&lang=${lang}`);
        await chartsDrawn(page);
        for (const widget of ["by-cause", "outcomes"]) {
          const ticks = await xTickLabels(page, widget);
          assert.ok(ticks.length >= 3, `${widget}: ${ticks.join(" ")}`);
          assert.equal(new Set(ticks).size, ticks.length, `${widget} repeats a label: ${ticks.join(" ")}`);
          assert.ok(ticks.every((t) => /^\d\d:\d\d$/.test(t)), `${widget}: ${ticks.join(" ")}`);
        }
        assert.deepEqual(await clippedText(page), []);
        await screenshot(page, `charts-15m-${width}-${lang}`);

        await page.goto(`${server.url}/?range=7d&lang=${lang}`);
        await chartsDrawn(page);
        const week = await xTickLabels(page, "by-cause");
        assert.equal(new Set(week).size, week.length, `a week repeats a label: ${week.join(" ")}`);
        assert.deepEqual(await clippedText(page), []);
        assert.deepEqual(browser.problems.slice(seen), []);
      });

      it(`at ${width} px in ${lang}: the cause chart's tooltip lists no zero and fits the chart`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`${server.url}/?range=6h&lang=${lang}`);
        await chartsDrawn(page);
        const svg = page.locator('[data-widget="by-cause"] .recharts-wrapper > svg.recharts-surface').first();
        const box = (await svg.boundingBox())!;
        const tooltip = page.locator('[data-widget="by-cause"] [data-testid="chart-tooltip"]');
        let hovered = 0;
        for (let f = 0.1; f < 0.95; f += 0.05) {
          await page.mouse.move(box.x + box.width * f, box.y + box.height * 0.5);
          if ((await tooltip.count()) === 0 || !(await tooltip.isVisible())) continue;
          const values = await tooltip.locator("li strong").allTextContents();
          if (values.length === 0) continue;
          hovered++;
          assert.ok(values.every((v) => Number(v.replace(/[^\d.]/g, "")) > 0), `a zero row: ${values.join(", ")}`);
          const shown = values.map((v) => Number(v.replace(/[^\d.]/g, "")));
          assert.deepEqual(shown, [...shown].sort((a, b) => b - a), "largest first");
          const tip = (await tooltip.boundingBox())!;
          assert.ok(tip.height <= box.height, `the tooltip is ${tip.height} px tall, the chart ${box.height}`);
        }
        assert.ok(hovered > 0, "some point of the range has duplicates to show");
      });

      it(`at ${width} px in ${lang}: the layer chart's bars are as long as the counts they label`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`${server.url}/?range=24h&lang=${lang}`);
        await chartsDrawn(page);
        const rows = await page.locator('[data-widget="funnel"] .recharts-wrapper > svg.recharts-surface').first().evaluate((svg) => {
          const bars = [...svg.querySelectorAll(".recharts-bar-rectangle path")].map((p) => p.getBoundingClientRect());
          return [...svg.querySelectorAll(".recharts-label-list text")].map((t) => {
            const r = t.getBoundingClientRect();
            const y = r.top + r.height / 2;
            const bar = bars.find((b) => b.top <= y && b.bottom >= y);
            return { label: t.textContent ?? "", width: bar?.width ?? 0 };
          });
        });
        assert.ok(rows.length >= 4, JSON.stringify(rows));
        const counted = rows.map((r) => ({ ...r, n: Number(r.label.replace(/[^\d]/g, "")) }));
        assert.ok(counted.every((r) => !r.label.includes("−") && !r.label.includes("-")), "no negative count");
        for (const a of counted) {
          for (const b of counted) {
            if (a.n > b.n) assert.ok(a.width > b.width, `"${a.label}" (${a.width.toFixed(1)} px) is not longer than "${b.label}" (${b.width.toFixed(1)} px)`);
            if (a.n === b.n) assert.ok(Math.abs(a.width - b.width) <= 1, `"${a.label}" and "${b.label}" differ in length`);
          }
        }
      });

      it(`at ${width} px in ${lang}: the group page's lane axis stays inside its box and repeats no label`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        for (const range of ["6h", "24h", "7d"]) {
          await page.goto(`${server.url}/groups/cg_order_paid?range=${range}&lang=${lang}`);
          await page.locator(".groups-lanes .tl-axis").first().waitFor();
          const axes = await page.locator(".groups-lanes").evaluateAll((els) =>
            els.map((el) => {
              const box = el.getBoundingClientRect();
              const track = el.querySelector(".tl-axis .tl-track")!.getBoundingClientRect();
              const spans = [...el.querySelectorAll(".tl-axis .tl-tick")];
              return {
                lanes: el.getAttribute("data-testid"),
                ticks: spans.map((s) => s.textContent ?? ""),
                outside: spans.flatMap((s) => {
                  const r = s.getBoundingClientRect();
                  return r.left < Math.max(box.left, track.left) - 1 || r.right > Math.min(box.right, track.right) + 1 ? [`${s.textContent} ${r.left}–${r.right} in ${track.left}–${track.right}`] : [];
                }),
              };
            }),
          );
          assert.ok(axes.length >= 1, `${range}: no lanes drawn`);
          for (const { lanes, ticks, outside } of axes) {
            assert.ok(ticks.length >= 2, `${range} ${lanes}: ${ticks.join(" ")}`);
            assert.equal(new Set(ticks).size, ticks.length, `${range} ${lanes} repeats a label: ${ticks.join(" ")}`);
            assert.deepEqual(outside, [], `${range} ${lanes}`);
          }
        }
      });
    }
  }
});
