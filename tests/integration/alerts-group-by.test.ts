import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules, type RuleOutcome } from "../../lib/alerts/evaluator.ts";
import { listFirings } from "../../lib/alerts/history.ts";
import { createChannel, createRule, getRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { backends, useReopenableStore } from "../helpers/stores.ts";
import { leakStory, useHttpReceiver, webhookAlerts } from "../helpers/alerts-fixtures.ts";

/**
 * A rule grouped by label fans out: `leaks > 0 by group` with leaks in two groups is two alerts, each with its own
 * state, firing and notices; one resolves while the other keeps firing; a restart in between changes nothing.
 */

const SETTINGS = { retryBaseMs: 1000, maxAttempts: 2, publicUrl: "https://dupscope.test" };
const minute = 60_000;

const brief = (outcomes: RuleOutcome[]) => outcomes.map((o) => [o.labels.group ?? "", o.state, o.notify]);

for (const backend of backends) {
  describe(`alerts per label set on ${backend.name}`, () => {
    const { store: current, reopen } = useReopenableStore(backend);
    const receiver = useHttpReceiver();
    const now = Date.now();

    const notices = () => webhookAlerts(receiver()).map((a) => [a.labels.group, a.event]);

    it("refuses a split the condition's rows cannot have", () => {
      const parsed = ruleInputSchema.safeParse({
        name: "by cause",
        condition: { kind: "cause_count", cause: "rebalance", threshold: 0, windowSeconds: 3600 },
        groupBy: ["cause"],
      });
      assert.equal(parsed.success, false);
      assert.match(parsed.error!.issues[0]!.message, /cause_count rule can be grouped by group, topic, defect, not by cause/);
    });

    it("fires one alert per group with a leak, each notified once with its group as a label", async () => {
      const hook = await createChannel(current(), channelInputSchema.parse({ name: "hook", type: "webhook", config: { url: `${receiver().url}/hook` } }));
      const rule = await createRule(
        current(),
        ruleInputSchema.parse({
          name: "leaks by group",
          condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 3600 },
          groupBy: ["group"],
          labels: { team: "payments" },
          channelIds: [hook.id],
        }),
      );
      assert.deepEqual(rule.groupBy, ["group"]);
      assert.deepEqual(rule.alerts, [], "nothing measured yet");
      await insertEvents(current().driver, [...leakStory("PAY-1", now - 40 * minute, "pay-consumer"), ...leakStory("CPN-1", now, "coupon-consumer")]);
      await drainQueue(current().driver);

      assert.deepEqual(brief(await evaluateRules(current().driver, now)), [
        ["coupon-consumer", "firing", "firing"],
        ["pay-consumer", "firing", "firing"],
      ]);
      assert.deepEqual(await dispatchDue(current().driver, SETTINGS, now), { sent: 2, retrying: 0, failed: 0, silenced: 0 });
      assert.equal(receiver().received.length, 1, "the rule's two alerts leave together, as one notice");
      assert.deepEqual(notices().sort(), [
        ["coupon-consumer", "firing"],
        ["pay-consumer", "firing"],
      ]);
      const coupon = webhookAlerts(receiver()).find((a) => a.labels.group === "coupon-consumer")!;
      assert.deepEqual(coupon.labels, { team: "payments", group: "coupon-consumer" });
      assert.match(coupon.summary, /\{group="coupon-consumer"\}: now 1$/);
      assert.deepEqual(coupon.keys.map((k) => k.bizKey), ["CPN-1"], "each alert names its own keys");
      assert.equal(coupon.links.group, "https://dupscope.test/groups/coupon-consumer");

      const view = await getRule(current(), rule.id);
      assert.equal(view.state, "firing");
      assert.deepEqual(view.alerts.map((a) => [a.labels, a.state]), [
        [{ group: "coupon-consumer" }, "firing"],
        [{ group: "pay-consumer" }, "firing"],
      ]);
    });

    it("after a restart, evaluating again sends nothing new", async () => {
      await reopen();
      assert.deepEqual(brief(await evaluateRules(current().driver, now + minute)), [
        ["coupon-consumer", "firing", null],
        ["pay-consumer", "firing", null],
      ]);
      assert.deepEqual(await dispatchDue(current().driver, SETTINGS, now + minute), { sent: 0, retrying: 0, failed: 0, silenced: 0 });
    });

    it("resolves the group whose leak left the window and keeps the other firing", async () => {
      const later = now + 25 * minute;
      assert.deepEqual(brief(await evaluateRules(current().driver, later)), [
        ["coupon-consumer", "firing", null],
        ["pay-consumer", "resolved", "resolved"],
      ]);
      await dispatchDue(current().driver, SETTINGS, later);
      assert.deepEqual(notices().slice(2), [["pay-consumer", "resolved"]]);
      const firings = await listFirings(current(), { limit: 10 });
      assert.deepEqual(
        firings.map((f) => [f.labels, f.resolvedAt === null]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
        [
          [{ group: "coupon-consumer" }, true],
          [{ group: "pay-consumer" }, false],
        ],
        "two firings, each with its label set; only pay-consumer's resolved",
      );
      // The resolved alert is pruned once it is quiet and unmeasured, so a rule split by group does not keep a row per group forever.
      assert.deepEqual(brief(await evaluateRules(current().driver, later + minute)), [["coupon-consumer", "firing", null]]);
    });
  });
}
