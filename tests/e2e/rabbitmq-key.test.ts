import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { causeName } from "../../lib/i18n/diagnosis-text.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The key page of RabbitMQ keys in a real browser against `next start` on a fresh embedded store. The input is
 * what `dupscope rabbitmq collect --record` wrote while a real broker played the duplicate stories
 * (collectors/rabbitmq-firehose/testdata), sent raw to the server's own parser through
 * POST /api/v1/ingest/rabbitmq-firehose, as an operator replays a recording.
 */

const pglite = backends.find((b) => b.name === "pglite")!;
const FIXTURES = path.resolve("collectors", "rabbitmq-firehose", "testdata");

/** Lines of the recordings: every one is a received message the parser turns into an event or skips. */
const RECORDED = { "ack-lost-socket.ndjson": 21, "dlq-replay.ndjson": 38 } as const;

async function ingest(url: string, fixture: keyof typeof RECORDED): Promise<void> {
  const response = await fetch(`${url}/api/v1/ingest/rabbitmq-firehose`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: readFileSync(path.join(FIXTURES, fixture), "utf8"),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const result = (await response.json()) as { accepted: number; duplicates: number; rejected: unknown[]; skipped: number };
  assert.deepEqual(result.rejected, []);
  assert.equal(result.accepted + result.skipped, RECORDED[fixture], JSON.stringify(result));
}

interface ShownLane {
  instance: string;
  role: string;
  name: string;
}

async function lanesOf(page: Page, role: string): Promise<ShownLane[]> {
  return page.locator(`[data-testid="timeline"] [data-lane="${role}"]`).evaluateAll((els) =>
    els.map((e) => ({
      instance: e.getAttribute("data-instance") ?? "",
      role: e.querySelector(".tl-label .role")?.textContent ?? "",
      name: e.querySelector(".tl-label .mono")?.textContent ?? "",
    })),
  );
}

const marksOf = (page: Page, role: string) => page.locator(`[data-testid="timeline"] [data-lane="${role}"] a.tl-mark`).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));

describe("RabbitMQ key page in Chromium", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let browser: TestBrowser;

  before(async () => {
    const created = await pglite.create();
    dispose = created.dispose;
    server = await startServer({ ...created.env });
    await ingest(server.url, "ack-lost-socket.ndjson");
    await ingest(server.url, "dlq-replay.ndjson");
    browser = await launchBrowser();
  });

  afterEach(() => browser?.closePages());

  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("ack_lost: a lane per consuming channel named by its connection, the broker's delivery, close and redelivery, the gap and the verdict", async () => {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}/keys/ORD-20261130-000143`);

    const headline = (await page.locator('[data-testid="verdict-headline"]').allTextContents()).join("\n");
    assert.match(headline, new RegExp(`^Duplicate caused by ${causeName("ack_lost")}: invoice-worker-a closed at .* \\(connection closed\\) with the delivery unacknowledged`));

    assert.deepEqual(await lanesOf(page, "consumer"), [
      { instance: "127.0.0.1:34170 -> 127.0.0.1:5672@1", role: "consumer · dupscope-it-ack-lost-f1577479", name: "invoice-worker-a · 127.0.0.1:34170 · channel 1" },
      { instance: "127.0.0.1:34178 -> 127.0.0.1:5672@1", role: "consumer · dupscope-it-ack-lost-f1577479", name: "invoice-worker-b · 127.0.0.1:34178 · channel 1" },
    ]);
    assert.deepEqual(
      (await lanesOf(page, "producer")).map((l) => l.name),
      ["order-api · 127.0.0.1:34156 · channel 1"],
    );
    assert.deepEqual(
      (await lanesOf(page, "broker")).map((l) => l.name),
      ["rabbit@localhost"],
    );
    const broker = await marksOf(page, "broker");
    assert.deepEqual(
      broker.slice(0, 3),
      [
        "delivered (dupscope-it-ack-lost-f1577479 → invoice-worker-a (1)) · 08:00:38.573 UTC",
        "channel or connection closed (connection_closed invoice-worker-a) · 08:00:38.574 UTC",
        "redelivered (dupscope-it-ack-lost-f1577479 → invoice-worker-b (1)) · 08:00:38.585 UTC",
      ],
    );
    const secondSpan = await page.locator('[data-testid="timeline"] [data-instance="127.0.0.1:34178 -> 127.0.0.1:5672@1"] a.tl-span').getAttribute("aria-label");
    assert.match(secondSpan ?? "", /^consumption d2 · invoice-worker-b · 127\.0\.0\.1:34178 · channel 1 · redelivered · /);
    assert.deepEqual(await page.locator('[data-testid="timeline-gap"] .tl-gap-label').allTextContents(), ["d1 → d2: 12 ms"]);
    await screenshot(page, "key-rabbitmq-ack-lost");

    await page.goto(`${server.url}/keys/ORD-20261130-000143?lang=zh-CN`);
    assert.deepEqual(
      (await lanesOf(page, "consumer")).map((l) => l.name),
      ["invoice-worker-a · 127.0.0.1:34170 · 通道 1", "invoice-worker-b · 127.0.0.1:34178 · 通道 1"],
    );
    assert.deepEqual(await browser.problems.slice(seen), []);
  });

  it("dlq_replay: the copy's way through the dead-letter queue and the shovel on the broker lane, no lane for the shovel", async () => {
    const seen = browser.problems.length;
    const page = await browser.newPage();
    await page.goto(`${server.url}/keys/ORD-20261130-000146`);

    const headline = (await page.locator('[data-testid="verdict-headline"]').allTextContents()).join("\n");
    assert.match(headline, new RegExp(`^Duplicate caused by ${causeName("dlq_replay")}: the copy had been dead-lettered from dupscope-it-work-424f6cc5 \\(rejected, 1×\\)`));

    assert.deepEqual(
      (await lanesOf(page, "consumer")).map((l) => [l.instance, l.name]),
      [
        ["127.0.0.1:34246 -> 127.0.0.1:5672@1", "invoice-worker-a · 127.0.0.1:34246 · channel 1"],
        ["127.0.0.1:34254 -> 127.0.0.1:5672@1", "invoice-worker-b · 127.0.0.1:34254 · channel 1"],
      ],
      "the shovel consuming the dead-letter queue is the broker's doing, not a consumer's",
    );
    const q = "dupscope-it-work-424f6cc5";
    assert.deepEqual(
      (await marksOf(page, "broker")).map((label) => label.replace(/ · \d\d:\d\d:\d\d\.\d{3} UTC$/, "")),
      [
        `delivered (${q} → invoice-worker-a (1))`,
        "channel or connection closed (channel_closed invoice-worker-a (1))",
        `dead-lettered (x-death) (rejected ${q} → ${q}.dlq)`,
        `shovelled back (x-shovelled) (${q}-replay ${q}.dlq → ${q})`,
        `delivered (${q} → invoice-worker-b (1))`,
      ],
    );
    assert.deepEqual(await page.locator('[data-testid="timeline-gap"] .tl-gap-label').allTextContents(), ["d1 → d3: 3.2 s"]);
    const legend = await page.locator(".tl-legend li").allTextContents();
    for (const entry of ["↓ delivered", "☠ dead-lettered (x-death)", "↪ shovelled back (x-shovelled)", "⊗ channel or connection closed"]) assert.ok(legend.includes(entry), `${entry} in ${legend.join(" | ")}`);
    await screenshot(page, "key-rabbitmq-dlq-replay");
    assert.deepEqual(await browser.problems.slice(seen), []);
  });
});
