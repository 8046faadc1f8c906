import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ackAlert, ackSigningKey, readAck } from "../../lib/alerts/acks.ts";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules, type RuleOutcome } from "../../lib/alerts/evaluator.ts";
import { createChannel, createRule, getRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { createSilence, expireSilence, listSilences, silenceInputSchema } from "../../lib/alerts/silences.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { backends, useReopenableStore } from "../helpers/stores.ts";
import { leakStory, useHttpReceiver, webhookAlerts } from "../helpers/alerts-fixtures.ts";

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
    const { store: current, reopen } = useReopenableStore(backend);
    const receiver = useHttpReceiver();
    let ruleId = "";
    let silenceId = "";
    const now = Date.now();

    const notices = () => webhookAlerts(receiver()).map((a) => [a.labels.group, a.event]);

    it("sends the silenced group nothing while its alert fires, and the other group its notice", async () => {
      const hook = await createChannel(current(), channelInputSchema.parse({ name: "hook", type: "webhook", config: { url: `${receiver().url}/hook` } }));
      ruleId = (
        await createRule(
          current(),
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
        current().driver,
        silenceInputSchema.parse({ matchers: [{ name: "group", value: "coupon-consumer" }], durationMinutes: 30, createdBy: "ana", comment: "coupon replay, known" }),
        now - minute,
      );
      silenceId = silence.id;
      assert.equal(silence.state, "active");
      await insertEvents(current().driver, [...leakStory("PAY-1", now - 30 * minute, "pay-consumer"), ...leakStory("CPN-1", now, "coupon-consumer")]);
      await drainQueue(current().driver);

      assert.deepEqual(brief(await evaluateRules(current().driver, now)), [
        ["coupon-consumer", "firing", "firing"],
        ["pay-consumer", "firing", "firing"],
      ]);
      assert.deepEqual(await dispatchDue(current().driver, SETTINGS, now), { sent: 1, retrying: 0, failed: 0, silenced: 1 });
      assert.deepEqual(notices(), [["pay-consumer", "firing"]]);
      const view = await getRule(current(), ruleId);
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
      const ack = await ackAlert(current().driver, { ruleId, labels: { group: "pay-consumer" }, by: "bo", comment: "replaying the ledger" }, now + minute);
      assert.deepEqual([ack.by, ack.comment, ack.until], ["bo", "replaying the ledger", null]);
      const t1 = now + 11 * minute;
      assert.deepEqual(brief(await evaluateRules(current().driver, t1)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "firing", null],
      ]);
      assert.deepEqual(await dispatchDue(current().driver, SETTINGS, t1), { sent: 0, retrying: 0, failed: 0, silenced: 1 });

      await reopen();
      const t2 = now + 22 * minute;
      assert.deepEqual(brief(await evaluateRules(current().driver, t2)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "firing", null],
      ]);
      await expireSilence(current().driver, silenceId, t2);
      assert.deepEqual(await dispatchDue(current().driver, SETTINGS, t2), { sent: 1, retrying: 0, failed: 0, silenced: 0 }, "the silence ended before this notice left");
      assert.deepEqual(notices(), [
        ["pay-consumer", "firing"],
        ["coupon-consumer", "repeat"],
      ]);
      const [expired] = await listSilences(current().driver, t2);
      assert.deepEqual([expired?.id, expired?.state], [silenceId, "expired"], "an ended silence stays in the history");
    });

    it("ends the acknowledgement when the alert resolves, and a link for that firing acknowledges nothing after", async () => {
      const key = await ackSigningKey(current().driver);
      assert.deepEqual(await ackSigningKey(current().driver), key, "one key per store, for every process");
      const link = webhookAlerts(receiver()).find((a) => a.labels.group === "pay-consumer")!.links.acknowledge!;
      assert.match(link, /^https:\/\/dupscope\.test\/alerts\/ack\?token=/);
      const claim = readAck(key, new URL(link).searchParams.get("token")!, now + 2 * minute);
      assert.deepEqual(claim.labels, { group: "pay-consumer" });

      const t3 = now + 35 * minute;
      assert.deepEqual(brief(await evaluateRules(current().driver, t3)), [
        ["coupon-consumer", "firing", "repeat"],
        ["pay-consumer", "resolved", "resolved"],
      ]);
      await dispatchDue(current().driver, SETTINGS, t3);
      assert.deepEqual(
        notices().slice(2).sort(),
        [
          ["coupon-consumer", "repeat"],
          ["pay-consumer", "resolved"],
        ],
        "an acknowledgement stops reminders, not the resolution",
      );
      const [state] = await current().driver.query<{ acked_by: string | null }>(`SELECT acked_by FROM alert_states WHERE rule_id = $1 AND labels->>'group' = 'pay-consumer'`, [ruleId]);
      assert.equal(state?.acked_by ?? null, null);
      await assert.rejects(
        ackAlert(current().driver, { ruleId, labels: claim.labels, by: "cy", comment: "" }, t3, claim.firingId),
        /resolved|not firing/,
      );
    });
  });
}
