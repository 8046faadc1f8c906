import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import { readStoredMetrics } from "../../lib/metrics/stored.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { foldJournal } from "../../lib/store/ingest-journal.ts";
import { orderStory, toNdjson, validated } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * /api/metrics on the built server: scraped around an ingest it shows exactly what was stored and diagnosed,
 * re-ingesting the same data adds nothing but the duplicate count, a restart keeps every counter, and promtool
 * accepts the scrape and the exported rules.
 */

const DEDUP_LOG = readFileSync(path.join(import.meta.dirname, "..", "fixtures", "rebalance-story", "dedup.log"), "utf8");
const BAD_LINE = `{"ts":"2026-11-30T12:00:02Z","bizKey":"X","group":"pay-consumer","instance":"i","layer":"redis","decision":"maybe"}\n`;

/** Runs promtool; the test fails (not skips) without it, because CI installs it (.ci/run). */
function promtool(args: string[], input?: string): { status: number; output: string } {
  const result = spawnSync("promtool", args, { input, encoding: "utf8" });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw new Error("promtool is not installed: apt-get install prometheus (Debian's package ships it; .ci/run installs it)");
  }
  return { status: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

type Series = Map<string, number>;

/** dupscope's own series of a scrape, keyed by name and labels as printed. */
function parse(text: string): Series {
  const series: Series = new Map();
  for (const line of text.split("\n")) {
    if (!line.startsWith("dupscope_")) continue;
    const at = line.lastIndexOf(" ");
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

const sumOf = (s: Series, prefix: string) => [...s].filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
const delta = (before: Series, after: Series, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
/** Without the gauges that move with the clock and the workers: the lag, and the backlog of keys marks keep settling. */
const withoutGauges = (s: Series) => new Map([...s].filter(([k]) => !/^dupscope_(ingest_lag_seconds|diagnosis_)/.test(k)));

for (const backend of backends) {
  describe(`the diagnosis backlog on ${backend.name}`, () => {
    const store = useFreshStore(backend);

    it("counts what waits in the journal, then in the queue, and nothing once diagnosed", async () => {
      const driver = store().driver;
      assert.deepEqual((await readStoredMetrics(driver)).diagnosis, { ready: 0, settling: 0, unfolded: 0, oldestSince: null });
      const keys = ["ORDER-BACKLOG-1", "ORDER-BACKLOG-2", "ORDER-BACKLOG-3"];
      const before = Date.now();
      await insertEvents(driver, validated(keys.flatMap((k) => orderStory(k))));
      const written = (await readStoredMetrics(driver)).diagnosis;
      assert.equal(written.unfolded, keys.length, "each batch names its keys until a worker folds it");
      assert.ok(written.oldestSince !== null && written.oldestSince >= before - 1000 && written.oldestSince <= Date.now(), `waiting since the write: ${written.oldestSince}`);
      while ((await foldJournal(driver)).rows > 0);
      const folded = (await readStoredMetrics(driver)).diagnosis;
      assert.equal(folded.unfolded, 0);
      assert.equal(folded.ready + folded.settling, keys.length);
      await drainQueue(driver);
      assert.deepEqual((await readStoredMetrics(driver)).diagnosis, { ready: 0, settling: 0, unfolded: 0, oldestSince: null });
    });
  });

  describe(`/api/metrics on ${backend.name}`, () => {
    let server: RunningServer;
    let env: Record<string, string>;
    let dispose: () => Promise<void>;
    let empty: Series;
    let ingested: Series;
    let reingested: Series;
    let scrapeText = "";

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      env = { ...created.env, DUPSCOPE_METRICS_SETTLE_MS: "0", DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200", DUPSCOPE_ALERT_INTERVAL_MS: "0" };
      server = await startServer(env);
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    const scrape = async () => {
      const response = await fetch(`${server.url}/api/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      scrapeText = await response.text();
      return parse(scrapeText);
    };
    const ingestAll = async () => {
      const events = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: toNdjson(orderStory()), headers: { "content-type": "application/x-ndjson" } });
      const dedup = await fetch(`${server.url}/api/v1/ingest/dedup-log`, { method: "POST", body: DEDUP_LOG + BAD_LINE });
      return [await events.json(), await dedup.json()];
    };
    /** The worker diagnoses within a few 200 ms ticks; each scrape counts what settled. */
    const scrapeUntil = async (done: (s: Series) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const s = await scrape();
        if (done(s)) return s;
        if (Date.now() > deadline) throw new Error(`metrics did not settle:\n${scrapeText}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };

    it("shows the stored events, decisions, rebalances, keys and diagnosed duplicates as deltas between two scrapes", async () => {
      empty = await scrape();
      assert.equal(sumOf(empty, "dupscope_duplicates_total"), 0);
      const [events, dedup] = await ingestAll();
      assert.deepEqual([events.accepted, dedup.accepted, dedup.rejected.length], [7, 3, 1]);
      const verdicts = async () => ((await (await fetch(`${server.url}/api/v1/duplicates`)).json()) as { items: unknown[] }).items.length;
      ingested = await scrapeUntil((s) => sumOf(s, "dupscope_keys_total") === 2 && sumOf(s, "dupscope_duplicates_total") > 0);
      const diagnosed = await verdicts();
      ingested = await scrapeUntil((s) => sumOf(s, "dupscope_duplicates_total") === diagnosed);

      const d = (key: string) => delta(empty, ingested, key);
      assert.equal(d(`dupscope_ingest_events_total{format="events",result="accepted"}`), 7);
      assert.equal(d(`dupscope_ingest_events_total{format="dedup-log",result="accepted"}`), 3);
      assert.equal(d(`dupscope_ingest_events_total{format="dedup-log",result="rejected"}`), 1);
      assert.equal(d(`dupscope_dedup_decisions_total{group="pay-consumer",layer="redis",decision="pass"}`), 2);
      assert.equal(d(`dupscope_dedup_decisions_total{group="pay-consumer",layer="redis",decision="hit"}`), 2);
      assert.equal(d(`dupscope_dedup_decisions_total{group="pay-consumer",layer="db",decision="executed"}`), 1);
      assert.equal(d(`dupscope_rebalances_total{group="pay-consumer",topic="PAY_SUCCESS"}`), 1);
      assert.equal(d(`dupscope_keys_total{group="pay-consumer"}`), 2);
      assert.equal(d(`dupscope_duplicates_total{group="pay-consumer",topic="PAY_SUCCESS",cause="rebalance",outcome="caught"}`), 1, "the order story's rebalance");
      assert.equal(sumOf(ingested, "dupscope_duplicate_gap_seconds_count"), diagnosed);
      assert.equal(d(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="1"}`), 0, "1.24 s apart");
      assert.equal(d(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="5"}`), 1);
      assert.ok((ingested.get(`dupscope_ingest_lag_seconds{format="events"}`) ?? -1) > 0);
      assert.ok(![...ingested.keys()].some((k) => k.includes("ORDER-")), "no business key in any label");
    });

    it("adds nothing when the same data is ingested again, except the counts of duplicate and refused records", async () => {
      const [events, dedup] = await ingestAll();
      assert.deepEqual([events.accepted, events.duplicates, dedup.accepted, dedup.duplicates], [0, 7, 0, 3]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      reingested = await scrape();
      const changed = [...withoutGauges(reingested)].filter(([k, v]) => ingested.get(k) !== v).map(([k, v]) => `${k} ${(ingested.get(k) ?? 0)}→${v}`);
      assert.deepEqual(changed.sort(), [
        `dupscope_ingest_events_total{format="dedup-log",result="duplicate"} 0→3`,
        `dupscope_ingest_events_total{format="dedup-log",result="rejected"} 1→2`,
        `dupscope_ingest_events_total{format="events",result="duplicate"} 0→7`,
      ]);
    });

    it("keeps every counter across a restart", async () => {
      await server.stop();
      server = await startServer(env);
      const restarted = await scrape();
      assert.deepEqual(withoutGauges(restarted), withoutGauges(reingested));
    });

    it("passes promtool check metrics", () => {
      const result = promtool(["check", "metrics"], scrapeText);
      assert.equal(result.status, 0, result.output);
      assert.match(scrapeText, /^process_cpu_user_seconds_total /m, "process metrics are there too");
    });

    it("exports the alert rules as a rules file promtool accepts", async () => {
      const post = (url: string, body: unknown) => fetch(`${server.url}${url}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      const conditions = [
        { kind: "leaked_duplicates", group: "pay-consumer", threshold: 0, windowSeconds: 600 },
        { kind: "duplicate_rate", group: "pay-consumer", thresholdPercent: 2.5, minKeys: 50, windowSeconds: 3600 },
        { kind: "cause_count", cause: "ack_lost", topic: "PAY_SUCCESS", threshold: 3, windowSeconds: 900 },
        { kind: "rebalances", group: "pay-consumer", threshold: 10, windowSeconds: 3600 },
        { kind: "dedup_miss_rate", group: "pay-consumer", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 },
        { kind: "ingest_silent", source: "rocketmq-client-log:", silentSeconds: 900 },
        { kind: "ingest_silent", source: "rocketmq-client-log:/var/log/app-1/", silentSeconds: 900 },
      ];
      for (const [i, condition] of conditions.entries()) {
        const response = await post("/api/v1/alerts/rules", { name: `rule ${i} ${condition.kind}`, condition, forSeconds: 120, severity: "critical", labels: { team: "payments" } });
        assert.equal(response.status, 201, await response.text());
      }
      // Split rules: by labels the metric has (sum by), with the annotation templates Prometheus fills in itself.
      const split = await post("/api/v1/alerts/rules", {
        name: "leaks by group and topic",
        condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 },
        groupBy: ["topic", "group"],
        summary: "{{ $labels.group }} leaked {{ $value }} on {{ $labels.topic }}: {{ $keys }}",
        runbookUrl: "https://wiki.example/runbooks/{{ $labels.group }}",
      });
      assert.equal(split.status, 201, await split.text());
      const byDefect = await post("/api/v1/alerts/rules", { name: "rebalance by defect", condition: { kind: "cause_count", cause: "rebalance", threshold: 0, windowSeconds: 600 }, groupBy: ["defect"] });
      assert.equal(byDefect.status, 201, await byDefect.text());
      const response = await fetch(`${server.url}/api/v1/alerts/prometheus-rules`);
      assert.equal(response.status, 200);
      const yaml = await response.text();
      assert.match(yaml, /^# Rules Prometheus cannot express with these metrics/m);
      assert.match(yaml, /rule 6 ingest_silent: ingest_silent for source "rocketmq-client-log:\/var\/log\/app-1\/"/);
      assert.match(yaml, /rebalance by defect: cause_count by defect: the metric it reads has no such label/);
      assert.equal(yaml.match(/- alert: /g)?.length, 7);
      assert.match(yaml, /expr: sum by \(group, topic\)\(max by \(group, topic, defect\) \(increase\(dupscope_leaks_total\[10m\]\)\)\) > 0/);
      assert.match(yaml, /summary: "\{\{ \$labels.group \}\} leaked \{\{ \$value \}\} on \{\{ \$labels.topic \}\}: \(the keys are on dupscope's alerts page\)"/);
      assert.match(yaml, /runbook_url: https:\/\/wiki.example\/runbooks\/\{\{ \$labels.group \}\}/);
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-rules-"));
      try {
        writeFileSync(path.join(dir, "dupscope.rules.yml"), yaml);
        const result = promtool(["check", "rules", path.join(dir, "dupscope.rules.yml")]);
        assert.equal(result.status, 0, `${result.output}\n${yaml}`);
        assert.match(result.output, /SUCCESS: 7 rules found/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("answers bad alert API requests with the error contract", async () => {
      const send = (method: string, url: string, body: string) => fetch(`${server.url}${url}`, { method, body, headers: { "content-type": "application/json" } });
      const cases: [Response, number, string, RegExp][] = [
        [await send("POST", "/api/v1/alerts/rules", "{nope"), 400, "bad_request", /not valid JSON/],
        [await send("POST", "/api/v1/alerts/rules", JSON.stringify({ name: "x", condition: { kind: "rebalances", threshold: 1, windowSeconds: 600 } })), 422, "unprocessable", /condition\.group/],
        [
          await send("POST", "/api/v1/alerts/rules", JSON.stringify({ name: "x", condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 }, channelIds: ["nope"] })),
          422,
          "unprocessable",
          /no channel nope/,
        ],
        [await send("POST", "/api/v1/alerts/channels", JSON.stringify({ name: "d", type: "dingtalk", config: { url: "ftp://x" } })), 422, "unprocessable", /config\.url/],
        [await fetch(`${server.url}/api/v1/alerts/rules/does-not-exist`), 404, "not_found", /no alert rule/],
        [await fetch(`${server.url}/api/v1/alerts/notifications?status=lost`), 422, "unprocessable", /status/],
      ];
      for (const [response, status, code, message] of cases) {
        assert.equal(response.status, status);
        const body = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, code);
        assert.match(body.error.message, message);
      }
    });
  });
}
