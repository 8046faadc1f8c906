import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules, type RuleOutcome } from "../../lib/alerts/evaluator.ts";
import { resendFiring } from "../../lib/alerts/resend.ts";
import { createChannel, createRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { hasAlertmanager, MISSING_ALERTMANAGER, startAlertmanager, type RunningAlertmanager } from "../helpers/alertmanager.ts";
import { leakStory, startHttpReceiver, type HttpReceiver } from "../helpers/alerts-fixtures.ts";
import { backends } from "../helpers/stores.ts";

/**
 * dupscope's alerts in a real Alertmanager (Debian's prometheus-alertmanager), on the real clock: a rule split by
 * group posts one alert per group to /api/v2/alerts; Alertmanager, routing by (alertname, group), sends its webhook
 * one notification per group with dupscope's labels; an Alertmanager silence on one group keeps that group's
 * alert from notifying; the alert whose leak leaves the window resolves in Alertmanager too.
 */

const SETTINGS = { retryBaseMs: 1000, maxAttempts: 3, publicUrl: "https://dupscope.test" };
const WINDOW_S = 60;

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  status: { state: "active" | "suppressed" | "unprocessed"; silencedBy: string[] };
}
interface Notification {
  status: "firing" | "resolved";
  groupLabels: Record<string, string>;
  alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string>; generatorURL: string }[];
}

/** A leak in `group` whose second delivery is `ageMs` before now. */
function leakAged(key: string, group: string, ageMs: number): NormalizedEvent[] {
  const base = Date.now();
  const offset = Math.max(...leakStory(key, base, group).map((e) => e.ts)) - base;
  return leakStory(key, base - ageMs - offset, group);
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const brief = (outcomes: RuleOutcome[]) => outcomes.map((o) => [o.labels.group, o.state, o.notify]);

if (!hasAlertmanager()) {
  it("dupscope alerts in a real Alertmanager", () => {
    const error = new Error(MISSING_ALERTMANAGER);
    error.stack = `Error: ${MISSING_ALERTMANAGER}`;
    throw error;
  });
} else {
  // PostgreSQL when the tests have one; the store plays no part in what Alertmanager sees.
  const backend = backends.at(-1)!;
  describe(`dupscope alerts in a real Alertmanager (${backend.name})`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let hook: HttpReceiver;
    let am: RunningAlertmanager;
    let payExpiresAt = 0;

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      store = await openStore(created.config);
      hook = await startHttpReceiver();
      am = await startAlertmanager(`${hook.url}/am-hook`, ["alertname", "group"]);
    });
    after(async () => {
      await am?.stop();
      await store?.close();
      await hook?.close();
      await dispose?.();
    });

    const notifications = () => hook.received.filter((r) => r.path === "/am-hook").map((r) => r.body as unknown as Notification);
    const amAlerts = () => am.api<AmAlert[]>("GET", "/alerts");

    it("posts one alert per group, and Alertmanager notifies once per group with dupscope's labels", async () => {
      const channel = await createChannel(store, channelInputSchema.parse({ name: "am", type: "alertmanager", config: { url: am.url } }));
      await createRule(
        store,
        ruleInputSchema.parse({
          name: "LeakedDuplicates",
          condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: WINDOW_S },
          groupBy: ["group"],
          severity: "critical",
          labels: { team: "payments" },
          description: "a duplicate passed every dedup layer",
          channelIds: [channel.id],
        }),
      );
      // pay-consumer's leak leaves the one-minute window in ~8 s, coupon-consumer's stays in it for the test.
      const payAge = (WINDOW_S - 8) * 1000;
      const pay = leakAged("PAY-1", "pay-consumer", payAge);
      payExpiresAt = Math.max(...pay.map((e) => e.ts)) + WINDOW_S * 1000;
      await insertEvents(store.driver, [...pay, ...leakAged("CPN-1", "coupon-consumer", 0)]);
      await drainQueue(store.driver);

      assert.deepEqual(brief(await evaluateRules(store.driver)), [
        ["coupon-consumer", "firing", "firing"],
        ["pay-consumer", "firing", "firing"],
      ]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS), { sent: 2, retrying: 0, failed: 0, silenced: 0 });

      const alerts = await until("both alerts in Alertmanager", async () => {
        const found = await amAlerts();
        return found.length === 2 ? found : undefined;
      });
      const coupon = alerts.find((a) => a.labels.group === "coupon-consumer")!;
      assert.deepEqual(coupon.labels, { alertname: "LeakedDuplicates", severity: "critical", team: "payments", group: "coupon-consumer" });
      assert.equal(coupon.annotations.description, "a duplicate passed every dedup layer");
      assert.equal(coupon.annotations.keys, "CPN-1");
      assert.match(coupon.annotations.summary!, /\{group="coupon-consumer"\}: now 1$/);
      assert.match(coupon.generatorURL!, /^https:\/\/dupscope\.test\/alerts#rule-[0-9a-f-]+$/, "the alert on dupscope's alerts page");
      assert.equal(coupon.status.state, "active");
      assert.ok(Date.parse(coupon.endsAt) > Date.now() + 60_000, "a firing alert is valid for a few resends");

      const sent = await until("a notification per group", () => (notifications().length >= 2 ? notifications() : undefined));
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(notifications().length, 2, "one notification per group, not one per alert or per request");
      assert.deepEqual(sent.map((n) => [n.status, n.groupLabels]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
        ["firing", { alertname: "LeakedDuplicates", group: "coupon-consumer" }],
        ["firing", { alertname: "LeakedDuplicates", group: "pay-consumer" }],
      ]);
    });

    it("sends nothing for a group an Alertmanager silence matches", async () => {
      const now = Date.now();
      const { silenceID } = await am.api<{ silenceID: string }>("POST", "/silences", {
        matchers: [{ name: "group", value: "audit-.*", isRegex: true, isEqual: true }],
        startsAt: new Date(now).toISOString(),
        endsAt: new Date(now + 3_600_000).toISOString(),
        createdBy: "dupscope test",
        comment: "known incident in the audit consumers",
      });
      await insertEvents(store.driver, leakAged("AUD-1", "audit-consumer", 0));
      await drainQueue(store.driver);
      const outcomes = await evaluateRules(store.driver);
      assert.deepEqual(outcomes.find((o) => o.labels.group === "audit-consumer")?.notify, "firing", "dupscope fires; Alertmanager decides who hears of it");
      await dispatchDue(store.driver, SETTINGS);
      const audit = await until("the audit alert in Alertmanager", async () => (await amAlerts()).find((a) => a.labels.group === "audit-consumer"));
      assert.equal(audit.status.state, "suppressed");
      assert.deepEqual(audit.status.silencedBy, [silenceID]);
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual(
        notifications().filter((n) => n.groupLabels.group === "audit-consumer"),
        [],
        "the silenced group was not notified",
      );
    });

    it("keeps firing alerts alive by resending them, all of a channel's in one request", async () => {
      const before = (await amAlerts()).find((a) => a.labels.group === "coupon-consumer")!;
      assert.deepEqual(await resendFiring(store.driver, SETTINGS, Date.now() + 30_000), { channels: 1, alerts: 3, failed: 0 });
      const after = (await amAlerts()).find((a) => a.labels.group === "coupon-consumer")!;
      assert.ok(Date.parse(after.endsAt) > Date.parse(before.endsAt), "endsAt moved ahead");
      assert.equal(after.startsAt, before.startsAt, "the same alert, not a new one");
    });

    it("resolves in Alertmanager when the leak leaves the window, and Alertmanager sends the resolved notice", async () => {
      await new Promise((r) => setTimeout(r, Math.max(0, payExpiresAt - Date.now() + 500)));
      const outcomes = await evaluateRules(store.driver);
      assert.deepEqual(outcomes.find((o) => o.labels.group === "pay-consumer")?.notify, "resolved");
      assert.deepEqual(outcomes.find((o) => o.labels.group === "coupon-consumer")?.state, "firing");
      await dispatchDue(store.driver, SETTINGS);
      const resolved = await until("the resolved notice", () => notifications().find((n) => n.status === "resolved"));
      assert.deepEqual(resolved.groupLabels, { alertname: "LeakedDuplicates", group: "pay-consumer" });
      assert.equal(resolved.alerts[0]!.status, "resolved");
      const left = (await amAlerts()).map((a) => a.labels.group).sort();
      assert.deepEqual(left, ["audit-consumer", "coupon-consumer"], "Alertmanager lists only the alerts still firing");
    });
  });
}
