import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

const story = path.join(import.meta.dirname, "..", "fixtures", "rebalance-story");
const KEY = "ORDER-RB-20261130-0001";
const FILES: { file: string; format: string; instance?: string }[] = [
  { file: "trace.ndjson", format: "rocketmq-trace" },
  { file: "client-10.0.0.5.log", format: "rocketmq-client-log", instance: "10.0.0.5@4121" },
  { file: "client-10.0.0.7.log", format: "rocketmq-client-log", instance: "10.0.0.7@88" },
  { file: "broker.log", format: "rocketmq-broker-log", instance: "broker-a" },
  { file: "dedup.log", format: "dedup-log" },
];

interface Summary {
  lines: number;
  events: number;
  accepted: number;
  duplicates: number;
  rejected: number;
}

async function ingestAll(target: string[]): Promise<Summary[]> {
  const summaries: Summary[] = [];
  for (const { file, format, instance } of FILES) {
    const result = await runCli(["ingest", "--format", format, ...(instance ? ["--instance", instance] : []), ...target, "--json", path.join(story, file)]);
    assert.equal(result.code, 0, result.stderr);
    summaries.push(JSON.parse(result.stdout) as Summary);
  }
  return summaries;
}

for (const backend of backends) {
  describe(`dupscope ingest into a running server on ${backend.name}`, () => {
    let server: RunningServer;
    let dispose: () => Promise<void>;
    const TOKEN = "cli-token";

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      server = await startServer({ ...created.env, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200" });
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    it("stores a mixed set of files, and the key shows its publish, consumptions, dedup decisions and the rebalances around them", async () => {
      const summaries = await ingestAll(["--server", server.url, "--token", TOKEN]);
      assert.ok(summaries.every((s) => s.rejected === 0 && s.accepted === s.events && s.events > 0));
      const body = await (await fetch(`${server.url}/api/v1/keys/${KEY}`)).json();
      const kinds = body.events.map((e: { kind: string; instance: string }) => `${e.kind}@${e.instance}`);
      assert.deepEqual(kinds, [
        "publish@10.0.0.9",
        "consume_start@10.0.0.5",
        "dedup@10.0.0.5@4121",
        "business_effect@10.0.0.5@4121",
        "consume_end@10.0.0.5",
        "rebalance@10.0.0.5@4121",
        "consume_start@10.0.0.7",
        "dedup@10.0.0.7@88",
        "consume_end@10.0.0.7",
      ]);
      const moves = body.context
        .filter((e: { kind: string; queue: string | null }) => e.kind === "rebalance" && e.queue === "broker-a:3")
        .map((e: { instance: string; detail: { action: string } }) => `${e.detail.action}@${e.instance}`);
      assert.deepEqual(moves, ["add@10.0.0.5@4121", "remove@10.0.0.5@4121", "add@10.0.0.7@88"]);
      assert.ok(body.context.some((e: { kind: string; detail: { action: string } }) => e.kind === "instance_lifecycle" && e.detail.action === "connected"));
    });

    it("names the duplicate's cause, outcome and instances on read, in the API and in dupscope diagnose", async () => {
      const body = await (await fetch(`${server.url}/api/v1/keys/${KEY}`)).json();
      assert.equal(body.duplicates.length, 1);
      const [v] = body.duplicates;
      assert.deepEqual([v.cause, v.outcome, v.layer, v.instances.first, v.instances.second, v.gapClass], ["rebalance", "caught", "redis", "10.0.0.5@4121", "10.0.0.7@88", "seconds"]);
      assert.ok(v.evidence.some((e: { text: string }) => /queue PAY_SUCCESS@broker-a:3 moved from 10.0.0.5@4121 to 10.0.0.7@88/.test(e.text)));
      const cli = await runCli(["diagnose", KEY, "--server", server.url]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /rebalance \(confidence [\d.]+\), caught by the Redis marker/);
      const zh = await runCli(["diagnose", KEY, "--server", server.url, "--lang", "zh-CN"]);
      assert.match(zh.stdout, /重平衡/);
      const json = await runCli(["diagnose", KEY, "--server", server.url, "--json", "--context", "1"]);
      const report = JSON.parse(json.stdout);
      assert.ok(report.contextTotal > 1);
      assert.deepEqual(
        report.context.map((e: { id: string }) => e.id),
        body.context.map((c: { id: string }) => c.id).filter((id: string) => v.evidence.some((e: { eventIds: string[] }) => e.eventIds.includes(id))),
        "--context 1 keeps the cited context lines only",
      );
      const bad = await runCli(["diagnose", KEY, "--server", server.url, "--context", "few"]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--context.*must be all or a whole number/);
      const missing = await runCli(["diagnose", "NO-SUCH-KEY", "--server", server.url]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no events for bizKey "NO-SUCH-KEY"/);
    });

    it("keeps the stored verdicts current for lists and findings", async () => {
      let list = { items: [] as { bizKey: string; cause: string; outcome: string; layer: string }[], nextCursor: null };
      for (let i = 0; i < 100 && list.items.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        list = await (await fetch(`${server.url}/api/v1/duplicates?group=pay-consumer`)).json();
      }
      assert.deepEqual(list.items.map((v) => [v.bizKey, v.cause, v.outcome, v.layer]), [[KEY, "rebalance", "caught", "redis"]]);
      assert.equal((await (await fetch(`${server.url}/api/v1/duplicates?cause=ack_lost`)).json()).items.length, 0);
      assert.equal((await fetch(`${server.url}/api/v1/duplicates?cause=gremlins`)).status, 422);
      const found = await (await fetch(`${server.url}/api/v1/findings?group=pay-consumer`)).json();
      assert.equal(found.groups[0].duplicates, 1);
      assert.equal(found.groups[0].causes.rebalance, 1);
      assert.equal(found.groups[0].keysDelivered, 1);
    });

    it("re-ingesting the same files adds nothing", async () => {
      const summaries = await ingestAll(["--server", server.url, "--token", TOKEN]);
      assert.ok(summaries.every((s) => s.accepted === 0 && s.duplicates === s.events));
    });

    it("rejects each bad line (10 MB, not UTF-8, truncated record) with its number and reason and stores the good ones", async () => {
      const good = readFileSync(path.join(story, "trace.ndjson"), "utf8").trim().split("\n");
      const truncated = JSON.stringify({ bornHost: "10.0.0.5:53211", body: "SubBefore\u00011796040000450\u0001DefaultRegion\u0001pay-consumer" });
      const file = path.join(mkdtempSync(path.join(tmpdir(), "dupscope-bad-")), "trace.ndjson");
      writeFileSync(
        file,
        Buffer.concat([
          Buffer.from(`${good[0]}\n`),
          Buffer.from(`{"bornHost":"10.0.0.5:1","body":"${"x".repeat(10 * 1024 * 1024)}"}\n`),
          Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
          Buffer.from(`${truncated}\n`),
          Buffer.from(`${good[1]}\n`),
        ]),
      );
      const result = await runCli(["ingest", "--format", "rocketmq-trace", "--server", server.url, "--token", TOKEN, "--json", file]);
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.deepEqual(summary.rejections.map((r: { line: number; code: string }) => [r.line, r.code]), [[2, "too_long"], [3, "encoding"], [4, "malformed"]]);
      assert.equal(summary.lines, 5);
      assert.equal(summary.accepted + summary.duplicates, 3, "the Pub and the SubBefore/SubAfter pair of the good lines");
    });

    it("says so when the token is wrong, without retrying forever", async () => {
      const result = await runCli(["ingest", "--format", "dedup-log", "--server", server.url, "--token", "nope", path.join(story, "dedup.log")]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /answered 401: ingest token is not valid/);
    });

    it("takes raw log text over HTTP with the same answer", async () => {
      const response = await fetch(`${server.url}/api/v1/ingest/rocketmq-client-log?instance=10.0.0.7@88`, {
        method: "POST",
        body: readFileSync(path.join(story, "client-10.0.0.7.log")),
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { accepted: 0, duplicates: 3, rejected: [], skipped: 0, unrecognised: 0, format: "rocketmq-client-log" });
      const unknown = await fetch(`${server.url}/api/v1/ingest/syslog`, { method: "POST", body: "x", headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(unknown.status, 404);
    });

    it("tells each file's format from its first lines with --format auto, on the CLI and over HTTP", async () => {
      for (const { file, format, instance } of FILES) {
        const result = await runCli(["ingest", "--format", "auto", ...(instance ? ["--instance", instance] : []), "--server", server.url, "--token", TOKEN, "--json", path.join(story, file)]);
        assert.equal(result.code, 0, result.stderr);
        const summary = JSON.parse(result.stdout);
        assert.equal(summary.format, format, file);
        assert.equal(summary.accepted, 0, `${file} was stored by the first test already`);
        assert.ok(summary.duplicates > 0, file);
      }
      const response = await fetch(`${server.url}/api/v1/ingest/auto?instance=10.0.0.7@88`, {
        method: "POST",
        body: readFileSync(path.join(story, "client-10.0.0.7.log")),
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
      });
      assert.deepEqual(await response.json(), { accepted: 0, duplicates: 3, rejected: [], skipped: 0, unrecognised: 0, format: "rocketmq-client-log" });
      const nothing = await fetch(`${server.url}/api/v1/ingest/auto`, { method: "POST", body: "hello\nworld\n", headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(nothing.status, 400);
      assert.match((await nothing.json()).error.message, /cannot tell the format of the body/);
    });

    it("stores a file's good lines when others hold what the store cannot, and names those by line", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-hostile-"));
      const file = path.join(dir, "client.log");
      writeFileSync(
        file,
        [
          "2026-11-30 20:00:01,204 INFO RocketmqClient - the consumer [cg_hostile_a] start OK.",
          "2026-11-30 20:00:02,204 INFO RocketmqClient - the consumer [cg_hostile\u0000b] start OK.",
          "2026-11-30 20:00:03,204 INFO RocketmqClient - the consumer [cg_hostile_c] start OK.",
        ].join("\n") + "\n",
      );
      const result = await runCli(["ingest", "--format", "rocketmq-client-log", "--instance", "10.0.0.9@1", "--server", server.url, "--token", TOKEN, "--json", file]);
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.accepted, 2);
      assert.deepEqual(summary.rejections.map((r: { line: number }) => r.line), [2]);
      assert.match(summary.rejections[0].reason, /NUL character/);
    });

    it("dates time-only lines with --date, or else the file's modification date", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-date-"));
      const file = path.join(dir, "time-only.log");
      writeFileSync(file, "20:00:01.204 [RebalanceService] INFO  RocketmqClient - the consumer [cg_date] start OK.\n");
      const dated = await runCli(["ingest", "--format", "rocketmq-client-log", "--date", "2026-11-29", "--instance", "10.0.0.8@1", "--server", server.url, "--token", TOKEN, "--json", file]);
      assert.equal(dated.code, 0, dated.stderr);
      assert.equal(JSON.parse(dated.stdout).accepted, 1);
      const bad = await runCli(["ingest", "--format", "rocketmq-client-log", "--date", "29/11/2026", file]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--date must be a calendar date/);
    });
  });
}

describe("dupscope ingest --database", () => {
  it("refuses anything but a PostgreSQL URL and points at the server for the embedded store", async () => {
    const result = await runCli(["ingest", "--format", "dedup-log", "--database", "./.dupscope/data", path.join(story, "dedup.log")]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /embedded store belongs to the server process/);
  });

  it("reports an unknown format and a missing file as usage errors", async () => {
    assert.equal((await runCli(["ingest", "--format", "syslog", "x.log"])).code, 2);
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-auto-"));
    writeFileSync(path.join(dir, "notes.txt"), "nothing a collector knows\n");
    const unknown = await runCli(["ingest", "--format", "auto", "--server", "http://127.0.0.1:9", path.join(dir, "notes.txt")]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /cannot tell the format of notes.txt/);
    const missing = await runCli(["ingest", "--format", "dedup-log", "/nonexistent/dedup.log"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read \/nonexistent\/dedup.log: ENOENT/);
  });

  for (const backend of backends.filter((b) => b.name === "postgres")) {
    it("writes straight to PostgreSQL the same events a server would", async () => {
      const created = await backend.create();
      try {
        const url = created.env.DATABASE_URL!;
        const first = await ingestAll(["--database", url]);
        assert.equal(first.reduce((n, s) => n + s.accepted, 0), 17);
        const again = await ingestAll(["--database", url]);
        assert.equal(again.reduce((n, s) => n + s.accepted, 0), 0);
        const dir = mkdtempSync(path.join(tmpdir(), "dupscope-hostile-db-"));
        const file = path.join(dir, "client.log");
        writeFileSync(file, ["the consumer [cg_db_a] start OK.", "the consumer [cg_db\u0000b] start OK.", "the consumer [cg_db_c] start OK."].map((m, i) => `2026-11-30 20:00:0${i},204 INFO RocketmqClient - ${m}`).join("\n") + "\n");
        const hostile = await runCli(["ingest", "--format", "rocketmq-client-log", "--instance", "10.0.0.9@1", "--database", url, "--json", file]);
        assert.equal(hostile.code, 0, hostile.stderr);
        const summary = JSON.parse(hostile.stdout);
        assert.deepEqual([summary.accepted, summary.rejections.map((r: { line: number }) => r.line)], [2, [2]]);
      } finally {
        await created.dispose();
      }
    });
  }
});
