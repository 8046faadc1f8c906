import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ackAlert, ackSigningKey, readAck } from "../../lib/alerts/acks.ts";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules, type RuleOutcome } from "../../lib/alerts/evaluator.ts";
import { createChannel, createRule, getRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { createSilence, expireSilence, listSilences, silenceInputSchema } from "../../lib/alerts/silences.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import type { StoreConfig } from "../../lib/store/config.ts";
import { backends } from "../helpers/stores.ts";
import { leakStory, startHttpReceiver, webhookAlerts, type HttpReceiver } from "../helpers/alerts-fixtures.ts";

/**
 * Silences and acknowledgements on a rule split by group, with a controlled clock: a silence on one group stops
 * exactly that group's notices while its alert keeps firing; an acknowledgement stops the other group's reminders,
 * survives a restart, and ends when the alert resolves; the signed link acknowledges only the firing it names.
 */

const SETTINGS = { retryBaseMs: 1000, maxAttempts: 2, publicUrl: "https://dupscope.test" };
const minute = 60_000;
const brief = (outcomes: RuleOutcome[]) => outcomes.map((o) => [o.labels.group, o.state, o.notify]);

for (const backend of backends) {
  describe(`silences and acknowledgements on ${backend.name}`, () => {
    let config: StoreConfig;
    let store: Store;
    let dispose: () => Promise<void>;
    let http: HttpReceiver;
    let ruleId = "";
    let silenceId = "";
    const now = Date.now();

    before(async () => {
      const created = await backend.create();
      config = created.config;
      dispose = created.dispose;
      store = await openStore(config);
      http = await startHttpReceiver();
    });
    after(async () => {
      await store?.close();
      await http?.close();
      await dispose?.();
    });

    const notices = () => webhookAlerts(http).map((a) => [a.labels.group, a.event]);

    it("sends the silenced group nothing while its alert fires, and the other group its notice", async () => {
      const hook = await createChannel(store, channelInputSchema.parse({ name: "hook", type: "webhook", config: { url: `${http.url}/hook` } }));
      ruleId = (
        await createRule(
          store,
          ruleInputSchema.parse({
            name: "LeaksByGroup",
            condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 3600 },
            groupBy: ["group"],
            repeatSeconds: 600,
            channelIds: [hook.id],
          }),
        )
      ).id;
      const silence = await createSilence(
        store.driver,
        silenceInputSchema.parse({ matchers: [{ name: "group", value: "coupon-consumer" }], durationMinutes: 30, createdBy: "ana", comment: "coupon replay, known" }),
        now - minute,
      );
      silenceId = silence.id;
      assert.equal(silence.state, "active");
      await insertEvents(store.driver, [...leakStory("PAY-1", now - 30 * minute, "pay-consumer"), ...leakStory("CPN-1", now, "coupon-consumer")]);
      await drainQueue(store.driver);

      assert.deepEqual(brief(await evaluateRules(store.driver, now)), [
        ["coupon-consumer", "firing", "firing"],
        ["pay-consumer", "firing", "firing"],
      ]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, now), { sent: 1, retrying: 0, failed: 0, silenced: 1 });
      assert.deepEqual(notices(), [["pay-consumer", "firing"]]);
      const view = await getRule(store, ruleId);
      assert.deepEqual(
        view.alerts.map((a) => [a.labels.group, a.state, a.silencedBy?.createdBy ?? null]),
        [
          ["coupon-consumer", "firing", "ana"],
          ["pay-consumer", "firing", null],
        ],
        "the silenced alert keeps its state, and the page can say who silenced it",
      );
    });

    it("stops the acknowledged alert's reminders, across a restart, while the other's are due", async () => {
      const ack = await ackAlert(store.driver, { ruleId, labels: { group: "pay-consumer" }, by: "bo", comment: "replaying the ledger" }, now + minute);
      assert.deepEqual([ack.by, ack.comment, ack.until], ["bo", "replaying the ledger", null]);
      const t1 = now + 11 * minute;
      assert.deepEqual(brief(await evaluateRules(store.driver, t1)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "firing", null],
      ]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, t1), { sent: 0, retrying: 0, failed: 0, silenced: 1 });

      await store.close();
      store = await openStore(config);
      const t2 = now + 22 * minute;
      assert.deepEqual(brief(await evaluateRules(store.driver, t2)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "firing", null],
      ]);
      await expireSilence(store.driver, silenceId, t2);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, t2), { sent: 1, retrying: 0, failed: 0, silenced: 0 }, "the silence ended before this notice left");
      assert.deepEqual(notices(), [
        ["pay-consumer", "firing"],
        ["coupon-consumer", "repeat"],
      ]);
      const [expired] = await listSilences(store.driver, t2);
      assert.deepEqual([expired?.id, expired?.state], [silenceId, "expired"], "an ended silence stays in the history");
    });

    it("ends the acknowledgement when the alert resolves, and a link for that firing acknowledges nothing after", async () => {
      const key = await ackSigningKey(store.driver);
      assert.deepEqual(await ackSigningKey(store.driver), key, "one key per store, for every process");
      const link = webhookAlerts(http).find((a) => a.labels.group === "pay-consumer")!.links.acknowledge!;
      assert.match(link, /^https:\/\/dupscope\.test\/alerts\/ack\?token=/);
      const claim = readAck(key, new URL(link).searchParams.get("token")!, now + 2 * minute);
      assert.deepEqual(claim.labels, { group: "pay-consumer" });

      const t3 = now + 35 * minute;
      assert.deepEqual(brief(await evaluateRules(store.driver, t3)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "resolved", "resolved"],
      ]);
      await dispatchDue(store.driver, SETTINGS, t3);
      assert.deepEqual(
        notices().slice(2).sort(),
        [
          ["coupon-consumer", "repeat"],
          ["pay-consumer", "resolved"],
        ],
        "an acknowledgement stops reminders, not the resolution",
      );
      const [state] = await store.driver.query<{ acked_by: string | null }>(`SELECT acked_by FROM alert_states WHERE rule_id = $1 AND labels->>'group' = 'pay-consumer'`, [ruleId]);
      assert.equal(state?.acked_by ?? null, null);
      await assert.rejects(
        ackAlert(store.driver, { ruleId, labels: claim.labels, by: "cy", comment: "" }, t3, claim.firingId),
        /resolved|not firing/,
      );
    });
  });
}
