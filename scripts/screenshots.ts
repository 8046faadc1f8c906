// `npm run docs:screenshots`: the pictures in docs/dashboard.md. Serves the built dashboard (building it first when
// the sources changed, as `npm start` does) on a fresh embedded store, loads the demo day through the HTTP ingest
// path, waits for the diagnosis worker, adds an alert channel and a rule that fires, and takes the overview, a key
// page, a group page and /alerts at 1440 px wide in English and Simplified Chinese into docs/screenshots/.
// Debian's Chromium, as in the browser tests (CHROMIUM_PATH to use another); Chinese needs a CJK font
// (fonts-noto-cjk, which `npm run setup:test` installs).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { loadDemoDay } from "../lib/demo/load.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { buildIsFresh } from "./build-freshness.mjs";
import { buildSync, startServer } from "./next.mjs";

const OUT = path.resolve("docs/screenshots");
const VIEWPORT = { width: 1440, height: 900 };
const LANGS = ["en", "zh-CN"] as const;
// The demo day (seed 1) ends at the last full hour, and the pages show that day: the same incidents at other times
// in every run, and still within the alert rule's window, which counts back from the clock.
const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const SPAN = `from=${new Date(NOW - 24 * 3_600_000).toISOString()}&to=${new Date(NOW).toISOString()}`;
const RANGE = `range=custom&${SPAN}`;

/** A failure worth one line, not a stack; thrown so that the server and the browser are still closed. */
class Failure extends Error {}

function fail(message: string): never {
  throw new Failure(message);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free port"))));
    });
  });
}

async function until(what: string, seconds: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) fail(`${what} did not happen within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function json<T>(url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, body === undefined ? {} : { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  if (!response.ok) fail(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

if (spawnSync("fc-list", [":lang=zh", "family"], { encoding: "utf8" }).stdout?.trim() === "") {
  console.error("docs:screenshots: no CJK font: the Chinese pictures would show boxes. Install fonts-noto-cjk (npm run setup:test does, as root).");
  process.exit(1);
}
if (!buildIsFresh()) {
  console.log("docs:screenshots: building the dashboard (sources changed since the last build)…");
  buildSync();
}

const dir = mkdtempSync(path.join(tmpdir(), "dupscope-screenshots-"));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const server = startServer(["-p", String(port), "-H", "127.0.0.1"], {
  NODE_ENV: "production",
  LOG_LEVEL: "warn",
  DATABASE_URL: "",
  DUPSCOPE_DATA_DIR: path.join(dir, "data"),
  DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200",
  DUPSCOPE_ALERT_INTERVAL_MS: "500",
  DUPSCOPE_RETENTION_EVENTS: "3650d",
});
// Interrupted, the server goes too: it would otherwise keep serving a store whose directory is removed.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  });
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  await until("the server's start", 60, async () => (await fetch(`${url}/api/health`)).ok);
  const demo = await loadDemoDay({ now: NOW, seed: 1, sink: httpSink(url) });
  console.log(`docs:screenshots: loaded ${demo.accepted.toLocaleString("en")} events; diagnosing…`);
  let idle = 0;
  await until("the diagnosis", 600, async () => {
    idle = (await json<{ diagnosisQueue: number }>(`${url}/api/v1/demo`)).diagnosisQueue === 0 ? idle + 1 : 0;
    return idle >= 3;
  });

  // A key with the incident the README opens with: a rebalance, caught by the Redis marker.
  const listed = await json<{ items: { bizKey: string; group: string; cause: string; outcome: string; layer: string | null }[] }>(
    `${url}/api/v1/duplicates?${SPAN}&limit=500`,
  );
  const key = listed.items.find((d) => d.cause === "rebalance" && d.layer === "redis") ?? listed.items[0] ?? fail("the demo day has no duplicate");
  const leak = listed.items.find((d) => d.outcome === "leaked") ?? key;
  const channel = await json<{ id: string }>(`${url}/api/v1/alerts/channels`, { name: "oncall webhook", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } });
  await json(`${url}/api/v1/alerts/rules`, {
    name: `leaks in ${leak.group}`,
    condition: { kind: "leaked_duplicates", group: leak.group, threshold: 0, windowSeconds: 2 * 86_400 },
    forSeconds: 0,
    severity: "critical",
    channelIds: [channel.id],
  });
  await json(`${url}/api/v1/alerts/rules`, { name: "rebalance storm", condition: { kind: "cause_count", cause: "rebalance", threshold: 500, windowSeconds: 3600 }, forSeconds: 300, severity: "warning" });
  await until("the rule's firing", 30, async () => (await json<{ items: unknown[] }>(`${url}/api/v1/alerts/history`)).items.length > 0);

  const pages: [name: string, path: string][] = [
    ["overview", `/?${RANGE}`],
    ["key", `/keys/${encodeURIComponent(key.bizKey)}?`],
    ["group", `/groups/${encodeURIComponent(key.group)}?${RANGE}`],
    ["alerts", "/alerts?"],
  ];
  mkdirSync(OUT, { recursive: true });
  for (const lang of LANGS) {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: lang, colorScheme: "light" });
    const page: Page = await context.newPage();
    for (const [name, at] of pages) {
      await page.goto(`${url}${at}${at.endsWith("?") ? "" : "&"}lang=${lang}`);
      // Streamed widgets show "Loading…" first, and the charts draw after; the picture is of the page once they are in.
      await page.waitForFunction(() => !/Loading…|加载中…/.test(document.querySelector("main")?.textContent ?? ""));
      await page.waitForLoadState("networkidle").catch(() => {});
      const file = path.join(OUT, `${name}-${lang}.png`);
      await page.screenshot({ path: file });
      console.log(`docs:screenshots: ${path.relative(process.cwd(), file)}`);
    }
    await context.close();
  }
} catch (error) {
  if (!(error instanceof Failure)) throw error;
  console.error(`docs:screenshots: ${error.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  await new Promise<void>((resolve) => {
    if (server.exitCode !== null) return resolve();
    server.once("exit", () => resolve());
    server.kill("SIGTERM");
  });
  rmSync(dir, { recursive: true, force: true });
}
