import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules } from "../../lib/alerts/evaluator.ts";
import { createChannel, createRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import type { Store } from "../../lib/store/open.ts";
import { leakStory, useHttpReceiver } from "../helpers/alerts-fixtures.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * A rule's notices to one channel are grouped as Alertmanager groups them: the first alert waits group_wait for
 * others to join; once a notice went out, the next waits until group_interval has passed and carries whatever
 * fired meanwhile.
 */

const SETTINGS = { retryBaseMs: 1000, maxAttempts: 2, publicUrl: "", groupWaitMs: 10_000, groupIntervalMs: 60_000 };
const second = 1000;

for (const backend of backends) {
  describe(`notice grouping on ${backend.name}`, () => {
    const store = useFreshStore(backend);
    const receiver = useHttpReceiver();
    const now = Date.now();
    const leak = async (s: Store, key: string, group: string) => {
      await insertEvents(s.driver, leakStory(key, now, group));
      await drainQueue(s.driver);
    };
    const groupsPerNotice = () => receiver().received.map((r) => (r.body.alerts as { labels: Record<string, string> }[]).map((a) => a.labels.group).sort());

    it("holds the first alert for group_wait and sends it with the one that joined meanwhile", async () => {
      const hook = await createChannel(store(), channelInputSchema.parse({ name: "hook", type: "webhook", config: { url: `${receiver().url}/hook` } }));
      await createRule(store(), ruleInputSchema.parse({ name: "leaks", condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 3600 }, groupBy: ["group"], channelIds: [hook.id] }));
      await leak(store(), "A-1", "group-a");
      await evaluateRules(store().driver, now);
      assert.deepEqual(await dispatchDue(store().driver, SETTINGS, now), { sent: 0, retrying: 0, failed: 0, silenced: 0 }, "waiting for others");
      await leak(store(), "B-1", "group-b");
      await evaluateRules(store().driver, now + 5 * second);
      assert.deepEqual(await dispatchDue(store().driver, SETTINGS, now + 5 * second), { sent: 0, retrying: 0, failed: 0, silenced: 0 });
      assert.deepEqual(await dispatchDue(store().driver, SETTINGS, now + 10 * second), { sent: 2, retrying: 0, failed: 0, silenced: 0 });
      assert.deepEqual(groupsPerNotice(), [["group-a", "group-b"]]);
    });

    it("holds the rule's next notice until group_interval after the last one", async () => {
      await leak(store(), "C-1", "group-c");
      await evaluateRules(store().driver, now + 20 * second);
      assert.deepEqual(await dispatchDue(store().driver, SETTINGS, now + 40 * second), { sent: 0, retrying: 0, failed: 0, silenced: 0 }, "past group_wait, inside group_interval");
      assert.deepEqual(await dispatchDue(store().driver, SETTINGS, now + 70 * second), { sent: 1, retrying: 0, failed: 0, silenced: 0 });
      assert.deepEqual(groupsPerNotice(), [["group-a", "group-b"], ["group-c"]]);
    });
  });
}
