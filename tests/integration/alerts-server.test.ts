import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toNdjson } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";
import { leakStory, startHttpReceiver, webhookAlerts, type HttpReceiver } from "../helpers/alerts-fixtures.ts";

/**
 * The built server's own alerting loop: rules and channels made through the API, a leak ingested over HTTP fires
 * within a few evaluation intervals, restarting the server sends nothing again, and an edit that clears the
 * condition sends one resolved notice per channel.
 */

const LEAK_KEY = "PAY-LEAK-SERVER-1";
const INTERVAL_MS = 400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of backends) {
  describe(`alerting server on ${backend.name}`, () => {
    let server: RunningServer;
    let env: Record<string, string>;
    let dispose: () => Promise<void>;
    let receiver: HttpReceiver;
    let ruleId: string;
    let channelIds: string[];

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      receiver = await startHttpReceiver();
      env = {
        ...created.env,
        DUPSCOPE_ALERT_INTERVAL_MS: String(INTERVAL_MS),
        DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200",
        DUPSCOPE_PUBLIC_URL: "https://dupscope.example",
        // The resolution follows the firing within seconds here; grouping would hold it for a minute.
        DUPSCOPE_ALERT_GROUP_INTERVAL_MS: "0",
      };
      server = await startServer(env);
    });
    after(async () => {
      await server?.stop();
      await receiver?.close();
      await dispose?.();
    });

    const api = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${server.url}${url}`, { method, ...(body ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}) });
      const text = await response.text();
      assert.ok(response.ok, `${method} ${url}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    };
    const waitFor = async (what: string, done: () => boolean | Promise<boolean>, ms = 30_000) => {
      const deadline = Date.now() + ms;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; server output:\n${server.output()}`);
        await sleep(100);
      }
    };
    const restart = async () => {
      await server.stop();
      server = await startServer(env);
    };
    const rule = (group: string) => ({
      name: "payment leak",
      condition: { kind: "leaked_duplicates", group, threshold: 0, windowSeconds: 600 },
      severity: "critical",
      channelIds,
    });

    it("fires on an ingested leak and notifies each channel once", async () => {
      channelIds = [
        (await api("POST", "/api/v1/alerts/channels", { name: "hook", type: "webhook", config: { url: `${receiver.url}/webhook` } })).id,
        (await api("POST", "/api/v1/alerts/channels", { name: "am", type: "alertmanager_webhook", config: { url: `${receiver.url}/alertmanager` } })).id,
      ];
      ruleId = (await api("POST", "/api/v1/alerts/rules", rule("pay-consumer"))).id;
      const response = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: toNdjson(leakStory(LEAK_KEY, Date.now())), headers: { "content-type": "application/x-ndjson" } });
      assert.equal((await response.json()).accepted, 7);
      await waitFor("two notifications", () => receiver.received.length >= 2);
      await sleep(4 * INTERVAL_MS);
      assert.deepEqual(receiver.received.map((r) => r.path).sort(), ["/alertmanager", "/webhook"]);
      const hook = receiver.received.find((r) => r.path === "/webhook")!;
      assert.equal(hook.body.status, "firing");
      assert.deepEqual(webhookAlerts(receiver, "/webhook")[0]!.keys, [{ bizKey: LEAK_KEY, url: `https://dupscope.example/keys/${LEAK_KEY}` }]);
      assert.equal((await api("GET", `/api/v1/alerts/rules/${ruleId}`)).state, "firing");
      const history = await api("GET", `/api/v1/alerts/history?ruleId=${ruleId}`);
      assert.deepEqual(history.items.map((f: { keys: string[]; resolvedAt: string | null }) => [f.keys, f.resolvedAt]), [[[LEAK_KEY], null]]);
    });

    it("sends nothing again after a restart", async () => {
      await restart();
      await sleep(5 * INTERVAL_MS);
      assert.equal(receiver.received.length, 2);
      assert.equal((await api("GET", `/api/v1/alerts/rules/${ruleId}`)).state, "firing");
    });

    it("resolves with one notice per channel when an edit clears the condition, and stays quiet after another restart", async () => {
      await api("PUT", `/api/v1/alerts/rules/${ruleId}`, rule("another-group"));
      await waitFor("two resolved notices", () => receiver.received.length >= 4);
      await sleep(4 * INTERVAL_MS);
      const resolved = receiver.received.slice(2);
      assert.deepEqual(resolved.map((r) => [r.path, r.body.status]).sort(), [["/alertmanager", "resolved"], ["/webhook", "resolved"]]);
      await restart();
      await sleep(5 * INTERVAL_MS);
      assert.equal(receiver.received.length, 4);
      const notifications = await api("GET", `/api/v1/alerts/notifications?ruleId=${ruleId}`);
      assert.deepEqual(notifications.items.map((n: { status: string }) => n.status), ["sent", "sent", "sent", "sent"]);
    });
  });
}
