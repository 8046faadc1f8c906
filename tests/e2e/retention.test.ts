import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { validateEvent } from "../../lib/events/validate.ts";
import { runRetentionOnce } from "../../lib/retention/job.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { openStore } from "../../lib/store/open.ts";
import { DAY_MS } from "../../lib/store/partitions.ts";
import { acceptedTs } from "../../lib/store/retention-config.ts";
import { assertAccessible } from "../helpers/axe.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser.ts";
import { orderStory } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * What the on-call engineer sees once the retention job has dropped a key's raw events: the key page keeps the
 * verdict diagnosed while they existed and says so, and the overview says from when raw events are gone. The
 * store is prepared as the server would have left it a week on (events nine days old, diagnosed, then a retention
 * run), and the server then runs with the default 7-day retention.
 */

const KEY = "ORDER-EXPIRED-0001";
const pglite = backends.find((b) => b.name === "pglite")!;

describe("a key whose raw events expired, in Chromium", () => {
  let server: RunningServer;
  let browser: TestBrowser;
  let dispose: () => Promise<void>;

  before(async () => {
    const created = await pglite.create();
    dispose = created.dispose;
    const store = await openStore(created.config);
    const story = orderStory(KEY);
    const shift = Date.now() - 9 * DAY_MS - Number(story[0]!.ts);
    const events = story.map((e) => {
      const checked = validateEvent({ ...e, ts: Number(e.ts) + shift });
      assert.ok(checked.ok);
      return checked.event;
    });
    await insertEvents(store.driver, events, acceptedTs({ eventsMs: 30 * DAY_MS, verdictsMs: 90 * DAY_MS }));
    await drainQueue(store.driver);
    await runRetentionOnce(store.driver, { eventsMs: 7 * DAY_MS, verdictsMs: 90 * DAY_MS });
    await store.close();
    server = await startServer({ ...created.env, DUPSCOPE_RETENTION_EVENTS: "7d" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dispose?.();
  });

  it("shows the stored verdict on the key page, with a note that its raw events expired", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/keys/${KEY}`);
    const note = page.getByTestId("raw-events-expired");
    assert.match((await note.textContent()) ?? "", /^The raw events of this key have expired: the store keeps none before \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(DUPSCOPE_RETENTION_EVENTS\)\. The verdict below is the one diagnosed at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC while they were stored\.$/);
    assert.match((await page.getByTestId("verdict-headline").first().textContent()) ?? "", /Duplicate caused by/);
    await screenshot(page, "key-expired");
    await assertAccessible(page, "the key page of a key whose raw events expired");
    await page.close();
  });

  it("says on the overview, over a range reaching back to them, that raw events before a time are gone", async () => {
    const page = await browser.newPage();
    const now = Date.now();
    await page.goto(`${server.url}/?range=custom&from=${now - 10 * DAY_MS}&to=${now}`);
    assert.match((await page.getByTestId("raw-events-expired").textContent()) ?? "", /^Raw events before .+ UTC have expired \(DUPSCOPE_RETENTION_EVENTS\)\./);
    await assertAccessible(page, "the overview with expired raw events");
    // Raw events are kept from the start of today's partition (UTC): a range inside it reaches none of the gone ones.
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    await page.goto(`${server.url}/?range=custom&from=${Math.max(today, now - 60_000)}&to=${now}`);
    assert.equal(await page.getByTestId("raw-events-expired").count(), 0, "not over a range that holds only fresh events");
    await page.close();
  });
});
