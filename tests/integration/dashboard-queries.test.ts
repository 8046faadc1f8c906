import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadDemoDay, type DemoResult } from "../../lib/demo/load.ts";
import { CAUSES } from "../../lib/diagnosis/vocabulary.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { parseFilters } from "../../lib/queries/filters.ts";
import { dedupFunnel, duplicatesByCause, filterChoices, gapHistogram, latestLeaks, outcomesOverTime, storeState, topByRate, totals } from "../../lib/queries/overview.ts";
import { instancesOverTime } from "../../lib/groups/membership.ts";
import { rebalanceHistory } from "../../lib/groups/rebalance-history.ts";
import { groupActivity, groupKnown, groupNames, groupSummaries } from "../../lib/queries/groups.ts";
import { lostKeys } from "../../lib/queries/lost.ts";
import { keysStartingWith, resolveSearch } from "../../lib/queries/search.ts";
import { newestDuplicates } from "../../lib/queries/live.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { backends } from "../helpers/stores.ts";

const NOW = Date.UTC(2026, 11, 1, 9, 30);
const HOUR = 3_600_000;

for (const backend of backends) {
  describe(`dashboard queries on ${backend.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let demo: DemoResult;
    let stored: { duplicates: number; leaked: number; keys: number };

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      store = await openStore(created.config);
      assert.deepEqual(await storeState(store.driver), { hasEvents: false, newestDuplicate: null, oldestKeyLastTs: null });
      demo = await loadDemoDay({ now: NOW, hours: 6, runs: 2, scale: 0.5, sink: driverSink(store.driver) });
      await drainQueue(store.driver);
      const [row] = await store.driver.query<{ d: unknown; l: unknown; k: unknown }>(
        `SELECT (SELECT count(*) FROM verdicts) AS d, (SELECT count(*) FROM verdicts WHERE outcome = 'leaked') AS l, (SELECT count(*) FROM key_diagnoses) AS k`,
      );
      stored = { duplicates: Number(row!.d), leaked: Number(row!.l), keys: Number(row!.k) };
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    const day = () => parseFilters({}, NOW);

    it("the demo loads two runs through the parsers, keeps nothing from after now, and leaves duplicates to find", () => {
      assert.equal(demo.runs.length, 2);
      assert.equal(demo.rejected, 0);
      assert.ok(demo.accepted > 5000, `${demo.accepted} events`);
      assert.ok(demo.future > 0, "the second run's late retries and DLQ resends lie after now");
      assert.ok(stored.duplicates > 100 && stored.leaked > 0, JSON.stringify(stored));
    });

    it("totals count every stored verdict and key of the day", async () => {
      const t = await totals(store.driver, day());
      assert.equal(t.duplicates, stored.duplicates);
      assert.equal(t.leaked, stored.leaked);
      assert.equal(t.caught + t.leaked + t.unknown, t.duplicates);
      assert.ok(t.keys > 0 && t.keys <= stored.keys);
      assert.equal((await storeState(store.driver)).hasEvents, true);
    });

    it("duplicates by cause: dense buckets that add up to the total, with the rebalances of the same buckets", async () => {
      const f = day();
      const points = await duplicatesByCause(store.driver, f);
      assert.equal(f.bucketMs, 15 * 60_000);
      assert.ok(points.length >= 96 && points.length <= 97);
      assert.ok(points.every((p, i) => i === 0 || p.t - points[i - 1]!.t === f.bucketMs));
      const sum = points.reduce((s, p) => s + CAUSES.reduce((n, c) => n + p[c], 0), 0);
      assert.equal(sum, stored.duplicates);
      assert.ok(points.reduce((s, p) => s + p.rebalances, 0) > 0, "the runs' rebalance episodes are counted");
      assert.ok(points.slice(0, 70).every((p) => p.rebalances === 0), "nothing happened before the demo's six hours");
    });

    it("a cause filter narrows the charts to that cause", async () => {
      const f = parseFilters({ cause: "rebalance" }, NOW);
      const points = await duplicatesByCause(store.driver, f);
      assert.ok(points.every((p) => CAUSES.every((c) => c === "rebalance" || p[c] === 0)));
      const outcomes = await outcomesOverTime(store.driver, f);
      const all = (await totals(store.driver, f)).duplicates;
      assert.equal(outcomes.reduce((s, p) => s + p.caught + p.leaked + p.unknown, 0), all);
    });

    it("the funnel starts with every checked duplicate, loses each layer's catches and ends with the leaks", async () => {
      const stages = await dedupFunnel(store.driver, day());
      assert.deepEqual(stages.map((s) => s.stage), ["checked", "bloom", "redis", "db", "state", "leaked"]);
      const [checked, ...rest] = stages;
      const caught = rest.reduce((s, x) => s + x.caught, 0);
      assert.equal(checked!.reached - caught, stages.at(-1)!.reached);
      assert.equal(stages.at(-1)!.reached, stored.leaked);
    });

    it("gap bins cover every duplicate once, with the band of each bin", async () => {
      const bins = await gapHistogram(store.driver, day());
      assert.equal(bins.reduce((s, b) => s + CAUSES.reduce((n, c) => n + b[c], 0), 0), stored.duplicates);
      assert.deepEqual([bins[0]!.band, bins[6]!.band, bins[7]!.band, bins[10]!.band, bins[11]!.band], ["ms", "ms", "seconds", "seconds", "minutes"]);
      assert.ok(bins.some((b) => b.band === "minutes" && CAUSES.some((c) => b[c] > 0)), "DLQ replays and upstream resends come minutes later");
    });

    it("top groups and topics by duplicate rate", async () => {
      const groups = await topByRate(store.driver, day(), "group");
      assert.ok(groups.length > 3);
      assert.ok(groups.every((g, i) => g.rate >= 0 && g.rate <= 1 && (i === 0 || g.rate <= groups[i - 1]!.rate)));
      assert.ok(groups.some((g) => g.name === "cg_order_paid" && g.keys > 100));
      const topics = await topByRate(store.driver, day(), "topic");
      assert.ok(topics.some((t) => t.name === "order_paid"));
      const one = await topByRate(store.driver, parseFilters({ group: "cg_ledger" }, NOW), "group");
      assert.deepEqual(one.map((g) => g.name), ["cg_ledger"]);
    });

    it("latest leaks, newest first, and the filter menus", async () => {
      const leaks = await latestLeaks(store.driver, day(), 5);
      assert.equal(leaks.length, 5);
      assert.ok(leaks.every((l, i) => i === 0 || l.at <= leaks[i - 1]!.at));
      const choices = await filterChoices(store.driver, day());
      assert.ok(choices.groups.includes("cg_order_paid") && choices.topics.includes("order_paid"));
    });

    it("an hour before the demo day has nothing", async () => {
      const f = parseFilters({ range: "custom", from: String(NOW - 30 * HOUR), to: String(NOW - 29 * HOUR) }, NOW);
      assert.equal((await totals(store.driver, f)).duplicates, 0);
    });

    it("groups: rates and rebalance counts per group, and one group's membership and queue moves", async () => {
      const groups = await groupSummaries(store.driver, day());
      const paid = groups.find((g) => g.group === "cg_order_paid");
      assert.ok(paid && paid.keys > 100 && paid.rebalances > 0 && paid.duplicates > 0, JSON.stringify(paid));
      assert.equal(groups.reduce((s, g) => s + g.duplicates, 0), stored.duplicates, "every duplicate belongs to one group");
      const activity = await groupActivity(store.driver, "cg_order_paid", day());
      assert.equal(activity.truncated, false);
      assert.ok(activity.events.every((e) => e.group === "cg_order_paid" && (e.kind === "rebalance" || e.kind === "instance_lifecycle")));
      assert.ok(rebalanceHistory(activity.events).some((e) => e.moves.some((m) => m.from.length > 0 && m.to.length > 0)), "a queue moved from one instance to another");
      assert.ok(instancesOverTime(activity.events).length >= 6, "the instances of both runs");
    });

    it("search resolves a key, a msgId and an offsetMsgId to the business key", async () => {
      const [row] = await store.driver.query<{ biz_key: string; msg_id: string; offset_msg_id: string }>(
        `SELECT biz_key, msg_id, offset_msg_id FROM events WHERE kind = 'publish' AND biz_key IS NOT NULL AND offset_msg_id IS NOT NULL LIMIT 1`,
      );
      assert.deepEqual(await resolveSearch(store.driver, row!.biz_key), { bizKey: row!.biz_key, via: "bizKey" });
      assert.deepEqual(await resolveSearch(store.driver, row!.msg_id), { bizKey: row!.biz_key, via: "msgId" });
      assert.deepEqual(await resolveSearch(store.driver, row!.offset_msg_id.toLowerCase()), { bizKey: row!.biz_key, via: "offsetMsgId" });
      assert.equal(await resolveSearch(store.driver, "NO-SUCH-KEY"), null);
    });

    it("a partial key offers the keys that start with it, in key order, reading % and _ as themselves", async () => {
      const [row] = await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses WHERE biz_key LIKE 'PAY-%' ORDER BY biz_key LIMIT 1`);
      const prefix = row!.biz_key.slice(0, -2);
      const expected = (await store.driver.query<{ biz_key: string }>(`SELECT biz_key FROM key_diagnoses WHERE left(biz_key, length($1)) = $1 ORDER BY biz_key`, [prefix])).map(
        (r) => r.biz_key,
      );
      assert.ok(expected.length > 1, `${prefix}: ${expected.length} keys`);
      assert.deepEqual(await keysStartingWith(store.driver, prefix, 1000), expected);
      assert.deepEqual(await keysStartingWith(store.driver, prefix, 2), expected.slice(0, 2));
      assert.deepEqual(await keysStartingWith(store.driver, "", 10), []);
      // A key written with LIKE's wildcards: as a prefix they match only themselves.
      await store.driver.run(
        `INSERT INTO key_diagnoses (biz_key, groups, topics, first_ts, last_ts, duplicates, leaked, lost, normal_retries)
         VALUES ('100%_OFF-1', '{}', '{}', $1, $1, 0, 0, 0, 0), ('100XYOFF-2', '{}', '{}', $1, $1, 0, 0, 0, 0)`,
        [NOW - 40 * HOUR],
      );
      assert.deepEqual(await keysStartingWith(store.driver, "100%_", 10), ["100%_OFF-1"]);
      assert.deepEqual(await keysStartingWith(store.driver, "100", 10), ["100%_OFF-1", "100XYOFF-2"]);
    });

    it("the keys that lost a message add up to the overview's count, newest first, page by page", async () => {
      const f = day();
      const all: Awaited<ReturnType<typeof lostKeys>> = [];
      for (let page = await lostKeys(store.driver, f, 7); page.length > 0; ) {
        all.push(...page);
        const last = page.at(-1)!;
        page = await lostKeys(store.driver, f, 7, { lastTs: last.lastTs, bizKey: last.bizKey });
      }
      const [row] = await store.driver.query<{ n: unknown; keys: unknown }>(
        `SELECT coalesce(sum(lost), 0) AS n, count(*) AS keys FROM key_diagnoses WHERE lost > 0 AND last_ts BETWEEN $1 AND $2`,
        [f.from, f.to],
      );
      assert.ok(all.length > 0, "the demo day loses messages");
      assert.equal(all.length, Number(row!.keys));
      assert.equal(new Set(all.map((k) => k.bizKey)).size, all.length, "no key on two pages");
      assert.equal(all.reduce((s, k) => s + k.lost, 0), Number(row!.n));
      assert.ok(all.every((k, i) => i === 0 || k.lastTs <= all[i - 1]!.lastTs), "newest first");
      const group = all[0]!.groups[0]!;
      assert.ok((await lostKeys(store.driver, { ...f, group }, 1000)).every((k) => k.groups.includes(group)));
    });

    it("knows a group by its keys, members or lines, and lists the names it knows", async () => {
      const names = await groupNames(store.driver);
      assert.ok(names.includes("cg_order_paid"), names.join(", "));
      assert.deepEqual(names, [...names].sort());
      assert.equal(await groupKnown(store.driver, "cg_order_paid"), true);
      assert.equal(await groupKnown(store.driver, "does_not_exist"), false);
      assert.equal(await groupKnown(store.driver, "CG_ORDER_PAID"), false, "names are case-sensitive");
    });

    it("the live feed reads the newest duplicates, optionally for one cause", async () => {
      const newest = await newestDuplicates(store.driver, {}, 10);
      assert.equal(newest.length, 10);
      assert.ok(newest.every((d, i) => i === 0 || d.at <= newest[i - 1]!.at), "newest first");
      assert.ok((await newestDuplicates(store.driver, { cause: "ack_lost" }, 5)).every((d) => d.cause === "ack_lost"), "filtered by cause");
    });
  });
}
