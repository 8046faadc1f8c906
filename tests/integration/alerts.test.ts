import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { dispatchDue } from "../../lib/alerts/dispatcher.ts";
import { evaluateRules } from "../../lib/alerts/evaluator.ts";
import { conditionSchema } from "../../lib/alerts/conditions.ts";
import { listFirings, listNotifications } from "../../lib/alerts/history.ts";
import { measure } from "../../lib/alerts/measure.ts";
import { createChannel, createRule, getRule } from "../../lib/alerts/repo.ts";
import { channelInputSchema, ruleInputSchema } from "../../lib/alerts/schema.ts";
import { validateEvent } from "../../lib/events/validate.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import type { StoreConfig } from "../../lib/store/config.ts";
import { freePort } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";
import { leakStory, startHttpReceiver, startSmtpReceiver, webhookAlerts, type HttpReceiver, type SmtpReceiver } from "../helpers/alerts-fixtures.ts";

/**
 * The alerting path end to end in one process, with a controlled clock: a leak is stored and diagnosed, the rule
 * goes pending, fires, and every channel type's notification reaches a real local receiver exactly once, signed;
 * the store is closed and reopened (a restart) without anything sent again; the leak leaves the window and each
 * channel gets exactly one resolved notice.
 */

const DINGTALK_SECRET = "SEC0123456789abcdef";
const FEISHU_SECRET = "feishu-secret";
const WEBHOOK_SECRET = "webhook-secret";
const SETTINGS = { retryBaseMs: 1000, maxAttempts: 2, publicUrl: "https://dupscope.test" };
const LEAK_KEY = "PAY-LEAK-0001";

const byPath = (receiver: HttpReceiver, path: string) => receiver.received.filter((r) => r.path === path);

for (const backend of backends) {
  describe(`alerting on ${backend.name}`, () => {
    let config: StoreConfig;
    let store: Store;
    let dispose: () => Promise<void>;
    let http: HttpReceiver;
    let smtp: SmtpReceiver;
    let ruleId: string;
    const now = Date.now();
    const minute = 60_000;

    before(async () => {
      const created = await backend.create();
      config = created.config;
      dispose = created.dispose;
      store = await openStore(config);
      http = await startHttpReceiver();
      smtp = await startSmtpReceiver();
    });
    after(async () => {
      await store?.close();
      await http?.close();
      await smtp?.close();
      await dispose?.();
    });

    const restart = async () => {
      await store.close();
      store = await openStore(config);
    };

    it("creates one channel of every type and a leak rule", async () => {
      const channels = [
        { name: "hook", type: "webhook", config: { url: `${http.url}/webhook`, secret: WEBHOOK_SECRET } },
        { name: "am", type: "alertmanager_webhook", config: { url: `${http.url}/alertmanager` } },
        { name: "ding", type: "dingtalk", config: { url: `${http.url}/dingtalk/robot/send?access_token=tok`, secret: DINGTALK_SECRET } },
        { name: "lark", type: "feishu", config: { url: `${http.url}/feishu/open-apis/bot/v2/hook/abc`, secret: FEISHU_SECRET } },
        { name: "wecom", type: "wecom", config: { url: `${http.url}/wecom/cgi-bin/webhook/send?key=k` } },
        { name: "slack", type: "slack", config: { url: `${http.url}/slack/services/T/B/X` } },
        { name: "mail", type: "email", config: { host: "127.0.0.1", port: smtp.port, from: "dupscope@example.com", to: ["oncall@example.com"] } },
        { name: "nowhere", type: "webhook", config: { url: `http://127.0.0.1:${await freePort()}/unreachable` } },
      ];
      const ids = [];
      for (const channel of channels) ids.push((await createChannel(store, channelInputSchema.parse(channel))).id);
      const rule = await createRule(
        store,
        ruleInputSchema.parse({
          name: "payment leak",
          condition: { kind: "leaked_duplicates", group: "pay-consumer", threshold: 0, windowSeconds: 3600 },
          forSeconds: 60,
          repeatSeconds: 600,
          severity: "critical",
          labels: { team: "payments" },
          channelIds: ids,
        }),
      );
      ruleId = rule.id;
      assert.equal(rule.state, "inactive");
    });

    it("stays inactive without a leak", async () => {
      const [outcome] = await evaluateRules(store.driver, now);
      assert.deepEqual([outcome?.state, outcome?.notify, outcome?.value], ["inactive", null, 0]);
    });

    it("goes pending on a leak and fires once it held for `for`, notifying every channel exactly once", async () => {
      await insertEvents(store.driver, leakStory(LEAK_KEY, now));
      await drainQueue(store.driver);
      assert.deepEqual((await evaluateRules(store.driver, now)).map((o) => [o.state, o.notify, o.value]), [["pending", null, 1]]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, now), { sent: 0, retrying: 0, failed: 0, silenced: 0 });

      http.failNext("/wecom/cgi-bin/webhook/send", 1);
      const fired = now + minute + 1000;
      assert.deepEqual((await evaluateRules(store.driver, fired)).map((o) => [o.state, o.notify]), [["firing", "firing"]]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, fired), { sent: 6, retrying: 2, failed: 0, silenced: 0 });
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, fired + 1000), { sent: 1, retrying: 0, failed: 1, silenced: 0 }, "WeCom retried after the backoff; the unreachable one gives up");

      const failed = await listNotifications(store, { status: "failed", limit: 10 });
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.channelName, "nowhere");
      assert.match(failed[0]!.lastError ?? "", /ECONNREFUSED/);
      assert.equal(failed[0]!.attempts, 2);

      for (const path of ["/webhook", "/alertmanager", "/dingtalk/robot/send", "/feishu/open-apis/bot/v2/hook/abc", "/wecom/cgi-bin/webhook/send", "/slack/services/T/B/X"]) {
        assert.equal(byPath(http, path).length, 1, `one notification at ${path}`);
      }
      assert.equal(smtp.mails.length, 1);
    });

    it("measures every condition kind against the stored data", async () => {
      const hit = validateEvent({ kind: "dedup", ts: now - 30_000, broker: "rocketmq", bizKey: "PAY-MISS-1", group: "pay-consumer", instance: "10.0.0.7@88", detail: { layer: "db", decision: "hit" }, source: "test:miss" });
      assert.ok(hit.ok);
      await insertEvents(store.driver, [hit.event]);
      await drainQueue(store.driver);
      const m = async (condition: unknown) => {
        const measured = await measure(store.driver, conditionSchema.parse(condition), now, now - 10 * minute);
        assert.equal(measured.length, 1, "a rule without group_by has one alert");
        const { labels, value, active, keys } = measured[0]!;
        assert.deepEqual(labels, {});
        return [value, active, keys];
      };
      const w = { windowSeconds: 3600 };
      assert.deepEqual(await m({ kind: "leaked_duplicates", group: "pay-consumer", threshold: 0, ...w }), [1, true, [LEAK_KEY]]);
      assert.deepEqual(await m({ kind: "leaked_duplicates", topic: "OTHER", threshold: 0, ...w }), [0, false, []]);
      assert.deepEqual(await m({ kind: "cause_count", cause: "rebalance", group: "pay-consumer", topic: "PAY_SUCCESS", threshold: 0, ...w }), [1, true, [LEAK_KEY]]);
      assert.deepEqual(await m({ kind: "cause_count", cause: "ack_lost", threshold: 0, ...w }), [0, false, []]);
      assert.deepEqual(await m({ kind: "duplicate_rate", group: "pay-consumer", thresholdPercent: 40, ...w }), [50, true, [LEAK_KEY]], "1 duplicate over 2 keys");
      assert.deepEqual(await m({ kind: "duplicate_rate", topic: "PAY_SUCCESS", thresholdPercent: 40, minKeys: 5, ...w }), [100, false, [LEAK_KEY]], "too few keys to judge");
      assert.deepEqual(await m({ kind: "rebalances", group: "pay-consumer", threshold: 0, ...w }), [1, true, []]);
      assert.deepEqual(await m({ kind: "rebalances", group: "pay-consumer", topic: "OTHER", threshold: 0, ...w }), [0, false, []]);
      assert.deepEqual(await m({ kind: "dedup_miss_rate", group: "pay-consumer", layer: "redis", thresholdPercent: 50, ...w }), [100, true, ["PAY-MISS-1"]], "Redis passed it, the DB caught it");
      assert.deepEqual(await m({ kind: "dedup_miss_rate", group: "pay-consumer", layer: "db", thresholdPercent: 50, ...w }), [0, false, []]);
      const [silent, silentActive] = await m({ kind: "ingest_silent", source: "test:", silentSeconds: 60 });
      assert.ok((silent as number) < 60 && silentActive === false, `stored moments ago, silent ${silent}`);
      assert.deepEqual(await m({ kind: "ingest_silent", source: "never:", silentSeconds: 300 }), [600, true, []], "silent since the rule was created");
    });

    it("counts a group's rebalances and dedup hits from the partial indexes of those lines", async () => {
      // events has no index over every row's group (…_alert_group_indexes): these two measures must stay on theirs.
      const conditions = [
        { kind: "rebalances", group: "pay-consumer", threshold: 0, windowSeconds: 3600 },
        { kind: "dedup_miss_rate", group: "pay-consumer", layer: "redis", thresholdPercent: 50, windowSeconds: 3600 },
      ];
      const expected = ["events_rebalance_group_ts_idx", "events_dedup_hit_group_ts_idx"];
      for (const [i, condition] of conditions.entries()) {
        await store.driver.transaction(async (tx) => {
          const statements: { sql: string; params: unknown[] }[] = [];
          const recorder = { ...store.driver, query: async <Row,>(sql: string, params: unknown[] = []) => (statements.push({ sql, params }), (await tx.query<Row>(sql, params))) };
          await tx.exec("SET LOCAL enable_seqscan = off");
          await measure(recorder, conditionSchema.parse(condition), now);
          assert.equal(statements.length, 1);
          const plan = (await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${statements[0]!.sql}`, statements[0]!.params)).map((r) => r["QUERY PLAN"]).join("\n");
          const used = [...plan.matchAll(/ using (\S+) on /g)].map((m) => m[1]!);
          assert.ok(used.length > 0, plan);
          const parents = await tx.query<{ parent: string }>(
            `SELECT DISTINCT p.relname AS parent FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid JOIN pg_class p ON p.oid = i.inhparent WHERE c.relname = ANY($1::text[])`,
            [used],
          );
          assert.deepEqual(parents.map((r) => r.parent), [expected[i]], plan);
        });
      }
    });

    it("sends each channel its own payload with the right signature", () => {
      const [hook] = byPath(http, "/webhook");
      assert.equal(hook!.headers["x-dupscope-signature"], `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(hook!.raw).digest("hex")}`);
      assert.equal(hook!.body.status, "firing");
      const [alert0] = webhookAlerts(http, "/webhook");
      assert.deepEqual(alert0!.keys, [{ bizKey: LEAK_KEY, url: `https://dupscope.test/keys/${LEAK_KEY}` }]);
      assert.deepEqual(alert0!.labels, { team: "payments" });

      const [am] = byPath(http, "/alertmanager");
      const alert = (am!.body.alerts as Record<string, Record<string, string>>[])[0]!;
      assert.equal(am!.body.version, "4");
      assert.equal(am!.body.status, "firing");
      assert.deepEqual([alert.labels!.alertname, alert.labels!.severity, alert.labels!.team], ["payment leak", "critical", "payments"]);
      assert.equal(alert.endsAt, "0001-01-01T00:00:00Z");
      assert.match(alert.annotations!.summary!, /leaked duplicates in group pay-consumer > 0 in 1 h: now 1/);

      const [ding] = byPath(http, "/dingtalk/robot/send");
      const timestamp = ding!.query.get("timestamp")!;
      assert.equal(ding!.query.get("access_token"), "tok");
      assert.equal(ding!.query.get("sign"), createHmac("sha256", DINGTALK_SECRET).update(`${timestamp}\n${DINGTALK_SECRET}`).digest("base64"));
      assert.equal(Number(timestamp), now + minute + 1000, "the signing time is the sending time, in ms");
      assert.equal(ding!.body.msgtype, "markdown");
      assert.match((ding!.body.markdown as { text: string }).text, new RegExp(`\\[FIRING\\] payment leak[\\s\\S]*\\[${LEAK_KEY}\\]\\(https://dupscope.test/keys/${LEAK_KEY}\\)`));

      const [lark] = byPath(http, "/feishu/open-apis/bot/v2/hook/abc");
      const seconds = lark!.body.timestamp as string;
      assert.equal(seconds, String(Math.floor((now + minute + 1000) / 1000)));
      assert.equal(lark!.body.sign, createHmac("sha256", `${seconds}\n${FEISHU_SECRET}`).update("").digest("base64"));
      assert.equal(lark!.body.msg_type, "interactive");

      const [wecom] = byPath(http, "/wecom/cgi-bin/webhook/send");
      assert.equal(wecom!.body.msgtype, "markdown");
      assert.match((wecom!.body.markdown as { content: string }).content, new RegExp(LEAK_KEY));

      const [slack] = byPath(http, "/slack/services/T/B/X");
      assert.match(slack!.body.text as string, /^\[FIRING\] payment leak \(critical\)$/);
      assert.match(JSON.stringify(slack!.body.blocks), new RegExp(`<https://dupscope.test/keys/${LEAK_KEY}\\|${LEAK_KEY}>`));

      const [mail] = smtp.mails;
      assert.deepEqual(mail!.to, ["<oncall@example.com>"]);
      assert.match(mail!.data, /Subject: \[FIRING\] payment leak \(critical\)/);
      assert.match(mail!.data, new RegExp(LEAK_KEY));
    });

    it("sends nothing more after a restart while the leak keeps firing", async () => {
      await restart();
      const later = now + 2 * minute;
      assert.deepEqual((await evaluateRules(store.driver, later)).map((o) => [o.state, o.notify]), [["firing", null]]);
      assert.deepEqual(await dispatchDue(store.driver, SETTINGS, later + 5 * minute), { sent: 0, retrying: 0, failed: 0, silenced: 0 });
      assert.equal(http.received.length, 6);
      assert.equal(smtp.mails.length, 1);
    });

    it("reminds once per repeat interval while firing", async () => {
      const repeat = now + minute + 1000 + 600_000;
      assert.deepEqual((await evaluateRules(store.driver, repeat)).map((o) => o.notify), ["repeat"]);
      assert.deepEqual((await evaluateRules(store.driver, repeat + 1000)).map((o) => o.notify), [null]);
      await dispatchDue(store.driver, SETTINGS, repeat);
      assert.equal(webhookAlerts(http).filter((a) => a.event === "repeat").length, 1, "the generic webhook says it is a reminder");
      assert.equal(byPath(http, "/slack/services/T/B/X").length, 2);
    });

    it("resolves once the leak leaves the window: one resolved notice per channel, none again after a restart", async () => {
      const before = http.received.length;
      const resolved = now + 61 * minute;
      assert.deepEqual((await evaluateRules(store.driver, resolved)).map((o) => [o.state, o.notify, o.value]), [["resolved", "resolved", 0]]);
      await dispatchDue(store.driver, SETTINGS, resolved);
      const notices = http.received.slice(before);
      assert.equal(notices.length, 6);
      assert.deepEqual([...new Set(notices.map((r) => r.path))].length, 6, "one per channel");
      const am = notices.find((r) => r.path === "/alertmanager")!;
      assert.equal(am.body.status, "resolved");
      assert.equal((am.body.alerts as { endsAt: string }[])[0]!.endsAt, new Date(resolved).toISOString());
      assert.match(JSON.stringify(notices.find((r) => r.path === "/slack/services/T/B/X")!.body), /RESOLVED/);
      assert.equal(smtp.mails.length, 3);

      await restart();
      assert.deepEqual((await evaluateRules(store.driver, resolved + minute)).map((o) => [o.state, o.notify]), [["resolved", null]]);
      await dispatchDue(store.driver, SETTINGS, resolved + 10 * minute);
      assert.equal(http.received.length, before + 6);
      assert.equal(smtp.mails.length, 3);
      const rule = await getRule(store, ruleId);
      assert.equal(rule.state, "resolved");
    });

    it("keeps the firing in the history with the key that triggered it", async () => {
      const firings = await store.prisma.alertFiring.findMany({ where: { ruleId } });
      assert.equal(firings.length, 1);
      assert.deepEqual(firings[0]!.keys, [LEAK_KEY]);
      assert.ok(firings[0]!.resolvedAt);
      const [view] = await listFirings(store, { ruleId, limit: 1 });
      assert.deepEqual(view!.condition, (await getRule(store, ruleId)).condition, "the condition it fired on, to word it in any language");
    });
  });
}
