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
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
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

      it(`at ${width} px in ${lang}: a 24-hour range names its midnight by its date`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        const now = Date.now();
        await page.goto(`${server.url}/?range=24h&lang=${lang}`);
        await chartsDrawn(page);
        const midnight = Math.ceil((now - DAY) / DAY) * DAY;
        const date = new Date(midnight).toISOString().slice(5, 10);
        for (const widget of ["by-cause", "outcomes"]) {
          const ticks = await xTickLabels(page, widget);
          assert.ok(!ticks.includes("00:00"), `${widget}: a bare 00:00 (${ticks.join(" ")})`);
          // Within a label's width of the range's ends the midnight has no tick at all, and nothing to name.
          if (midnight - (now - DAY) > 2 * HOUR && now - midnight > 2 * HOUR) assert.ok(ticks.includes(date), `${widget}: ${date} among ${ticks.join(" ")}`);
        }
      });

      it(`at ${width} px in ${lang}: a key timeline's axis labels overlap neither each other, a break's sign nor the lane labels`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        // The widest gaps have their bursts cut apart by breaks, each burst labelled.
        const { items } = (await (await fetch(`${server.url}/api/v1/duplicates?limit=500`)).json()) as { items: { bizKey: string; gapMs: number }[] };
        const keys = [...items].sort((a, b) => b.gapMs - a.gapMs).slice(0, 3).map((d) => d.bizKey);
        for (const key of keys) {
          await page.goto(`${server.url}/keys/${encodeURIComponent(key)}?lang=${lang}`);
          const axis = page.getByTestId("timeline").locator(".tl-axis");
          await axis.waitFor();
          // No named function inside: the page would not know the helper tsx wraps one in.
          const measured = await axis.evaluate((el) => ({
            track: { left: el.querySelector(".tl-track")!.getBoundingClientRect().left },
            all: [...el.querySelectorAll(".tl-tick, .tl-break-label")].map((e) => {
              const r = e.getBoundingClientRect();
              return { sign: e.classList.contains("tl-break-label"), text: e.textContent ?? "", left: r.left, right: r.right, top: r.top, bottom: r.bottom };
            }),
          }));
          const boxes = { track: measured.track, ticks: measured.all.filter((b) => !b.sign), signs: measured.all.filter((b) => b.sign) };
          const overlap = (a: { left: number; right: number; top: number; bottom: number }, b: typeof a) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
          assert.ok(boxes.ticks.length >= 2, `${key}: ${boxes.ticks.map((t) => t.text).join(" ")}`);
          assert.ok(boxes.signs.length > 0 || key !== keys[0], `${key}: the widest gap is cut by a break`);
          for (const [i, tick] of boxes.ticks.entries()) {
            assert.ok(tick.left >= boxes.track.left - 0.5, `${key}: "${tick.text}" starts left of the track, over the lane labels`);
            for (const other of [...boxes.ticks.slice(i + 1), ...boxes.signs]) assert.ok(!overlap(tick, other), `${key}: "${tick.text}" overlaps "${other.text}"`);
          }
        }
        await screenshot(page, `timeline-axis-${width}-${lang}`);
      });
    }
  }

  for (const lang of LANGS) {
    it(`the filter bar's range reads and takes times as the page writes them, not as the browser would (${lang})`, async () => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await page.goto(`${server.url}/?lang=${lang}`);
      const from = page.locator("#f-from");
      assert.equal(await from.getAttribute("type"), "text");
      assert.match(await from.inputValue(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      assert.equal(await from.getAttribute("placeholder"), lang === "en" ? "YYYY-MM-DD hh:mm" : "年-月-日 时:分");
      // The last three hours of the demo day, typed as the page shows times.
      const typed = [Date.now() - 3 * HOUR, Date.now()].map((ts) => new Date(ts).toISOString().slice(0, 16).replace("T", " "));
      await page.selectOption("#f-range", "custom");
      await from.fill(typed[0]!);
      await page.locator("#f-to").fill(typed[1]!);
      await Promise.all([page.waitForURL(/range=custom/), page.locator("form.filters button[type=submit]").click()]);
      await chartsDrawn(page);
      assert.deepEqual([await page.locator("#f-from").inputValue(), await page.locator("#f-to").inputValue()], typed);
      assert.equal(await page.locator("#f-range").inputValue(), "custom");
    });
  }
});
