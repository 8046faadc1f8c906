import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { runSimulate } from "../../../cli/simulate.ts";
import { UsageError } from "../../../cli/ingest.ts";
import { CAUSES, DEDUP_LAYERS, DEFECTS, OUTCOMES } from "../../../lib/diagnosis/vocabulary.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { SIM_EPOCH } from "../../../lib/simulator/clock.ts";
import { runSpanSimulation } from "../../../lib/simulator/otel/run.ts";
import { runSimulation, type SimulationResult } from "../../../lib/simulator/run.ts";
import { scenarioNames } from "../../../lib/simulator/scenarios.ts";
import { simulate } from "../../../lib/simulator/simulate.ts";
import { GROUPS } from "../../../lib/simulator/topology.ts";
import type { DuplicateTruth } from "../../../lib/simulator/truth.ts";
import { parseSimulation, type ParsedSimulation } from "../../helpers/simulated-events.ts";

type Parsed = ParsedSimulation;

/** Every data file of a run through the registry's parsers, with the --instance the manifest names. */
function parseRun(result: SimulationResult): Parsed {
  const parsed = parseSimulation(result);
  assert.ok(parsed.events.length > 0, "the simulation's files parse to events");
  return parsed;
}

const cache = new Map<string, Parsed>();
function run(scenario: string, keys: number, seed = 11, skewMs?: number): Parsed {
  const id = JSON.stringify([scenario, keys, seed, skewMs]);
  let parsed = cache.get(id);
  if (!parsed) {
    parsed = parseRun(runSimulation({ scenario, keys, seed, ...(skewMs === undefined ? {} : { skewMs }) }));
    cache.set(id, parsed);
  }
  return parsed;
}

/** Big enough for every episode kind to happen at least once in the mixed run. */
const MIXED_KEYS = 1200;

const DEFECT_SCENARIOS = DEFECTS.filter((d) => d !== "marker_not_released");
// invisible_timeout belongs to RocketMQ 5's leased consumption and commit_failed to Kafka's consumer groups; this
// simulator models a RocketMQ 4.x cluster, the span simulator (lib/simulator/otel) makes both.
const CAUSE_SCENARIOS = CAUSES.filter((c) => c !== "unknown" && c !== "invisible_timeout" && c !== "commit_failed");

function of(parsed: Parsed, cause: string): DuplicateTruth[] {
  return parsed.result.truth.duplicates.filter((d) => d.cause === cause);
}

function eventsOf(parsed: Parsed, msgId: string, kind?: string): NormalizedEvent[] {
  return parsed.events.filter((e) => e.msgId === msgId && (kind === undefined || e.kind === kind));
}

describe("simulator: determinism", () => {
  it("writes byte-identical files for the same seed and different ones for another seed", async () => {
    const dirs = await Promise.all([1, 2, 3].map(() => mkdtemp(path.join(tmpdir(), "dupscope-sim-"))));
    try {
      const [a, b, c] = dirs as [string, string, string];
      await simulate({ scenario: "all", keys: 300, seed: 42, out: a });
      await simulate({ scenario: "all", keys: 300, seed: 42, out: b });
      await simulate({ scenario: "all", keys: 300, seed: 43, out: c });
      const names = (await readdir(a)).sort();
      assert.deepEqual((await readdir(b)).sort(), names);
      for (const name of names) assert.equal(await readFile(path.join(b, name), "utf8"), await readFile(path.join(a, name), "utf8"), name);
      assert.notEqual(await readFile(path.join(c, "trace.ndjson"), "utf8"), await readFile(path.join(a, "trace.ndjson"), "utf8"));
    } finally {
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });

  it("startAt and firstKey replay the same story later and under other keys, so runs can be laid end to end", () => {
    const base = run("all", 300);
    const baseEnd = Math.max(...base.events.map((e) => e.ts));
    const shiftMs = Math.ceil((baseEnd - SIM_EPOCH) / 3_600_000 + 1) * 3_600_000;
    const shifted = parseRun(runSimulation({ scenario: "all", keys: 300, seed: 11, startAt: SIM_EPOCH + shiftMs, firstKey: 301 }));
    assert.deepEqual(shifted.issues, []);
    assert.ok(Math.min(...shifted.events.map((e) => e.ts)) > baseEnd, "the second run starts after the first one ends");
    const baseKeys = new Set(base.events.map((e) => e.bizKey));
    assert.ok(!shifted.events.some((e) => e.bizKey !== null && baseKeys.has(e.bizKey)), "no key in both runs");
    assert.equal(shifted.events.length, base.events.length);
    const renumber = (key: string) => key.replace(/\d{6}$/, (n) => String(Number(n) + 300).padStart(6, "0"));
    const story = (d: DuplicateTruth, key = d.bizKey, shift = 0) => [key, d.group, d.cause, d.outcome, d.layer, d.gapMs, d.firstInstance, d.secondInstance, d.firstAt + shift];
    assert.deepEqual(
      shifted.result.truth.duplicates.map((d) => story(d)),
      base.result.truth.duplicates.map((d) => story(d, renumber(d.bizKey), shiftMs)),
    );
  });

  it("spanMs spreads the same keys over hours of steady traffic instead of a 10-minute burst", () => {
    const HOUR = 3_600_000;
    const publishHours = (p: Parsed) => p.events.filter((e) => e.kind === "publish" && e.bizKey !== null).map((e) => (e.ts - SIM_EPOCH) / HOUR);
    const burst = publishHours(run("clean", 300));
    const spread = parseRun(runSimulation({ scenario: "clean", keys: 300, seed: 11, spanMs: 3 * HOUR }));
    assert.deepEqual(spread.issues, []);
    const hours = publishHours(spread);
    assert.equal(hours.length, burst.length, "the same number of keys");
    assert.ok(Math.max(...burst) < 0.25, "by default the keys are sent within the first quarter hour");
    assert.ok(Math.max(...hours) > 2.5 && Math.max(...hours) <= 3.1, "with spanMs they reach the end of the span");
    for (let hour = 0; hour < 3; hour++) {
      const inHour = hours.filter((h) => h >= hour && h < hour + 1).length;
      assert.ok(inHour > 60 && inHour < 140, `hour ${hour} has about a third of the keys (${inHour})`);
    }
  });
});

describe("simulator: files", () => {
  for (const scenario of ["all", ...scenarioNames()]) {
    it(`${scenario}: writes trace, client logs, truth and a manifest that lists every data file`, () => {
      const { result, formats } = run(scenario, scenario === "all" ? MIXED_KEYS : 60);
      const paths = result.files.map((f) => f.path);
      assert.ok(paths.includes("trace.ndjson") && paths.includes("truth.json") && paths.includes("manifest.json"));
      assert.ok(formats.has("rocketmq-client-log") && formats.has("rocketmq-broker-log"));
      assert.deepEqual(Object.keys(result.truth.files).sort(), result.manifest.files.map((f) => f.path).sort());
      assert.equal(result.truth.keys, scenario === "all" ? MIXED_KEYS : 60);
      for (const entry of result.manifest.files) {
        if (entry.format === "rocketmq-client-log" || entry.format === "dedup-log") {
          assert.ok(entry.instance && path.basename(entry.path).includes(entry.instance), `${entry.path} names its instance`);
        }
      }
    });
  }

  it("names client and dedup logs after the instance and sets the 5.x prefix pid to it", () => {
    const { result } = run("rebalance", 60);
    const client = result.files.filter((f) => f.format === "rocketmq-client-log");
    for (const file of client) {
      const pid = file.instance?.split("@")[1];
      assert.ok(file.text.split("\n")[0]?.includes(` [${pid}] `), file.path);
    }
  });
});

describe("simulator: every output line parses with the collectors", () => {
  const runs: [string, () => Parsed][] = [
    ["all", () => run("all", MIXED_KEYS)],
    ["all, ±2 s clock skew", () => run("all", 600, 5, 2000)],
    ...scenarioNames().map((s): [string, () => Parsed] => [s, () => run(s, 60)]),
  ];
  for (const [name, get] of runs) {
    it(`${name}: zero issues`, () => {
      const parsed = get();
      assert.deepEqual(parsed.issues.slice(0, 3), []);
      assert.ok(parsed.events.length > 0);
    });
  }

  it("the mixed run gives every template the diagnosis engine needs", () => {
    const templates = new Set(run("all", MIXED_KEYS).events.map((e) => String(e.detail.template ?? e.detail.traceRecord ?? e.detail.decision)));
    for (const template of [
      "Pub",
      "SubBefore",
      "SubAfter",
      "EndTransaction",
      "rebalance_add_mq",
      "rebalance_remove_mq",
      "rebalance_result_changed",
      "rebalance_trigger",
      "process_queue_dropped",
      "send_expire_msg_back",
      "consume_exception",
      "producer_resend",
      "consume_directly",
      "consumer_start",
      "consumer_connected",
      "transaction_check",
      "pass",
      "hit",
      "executed",
      "failed",
      "released",
    ]) {
      assert.ok(templates.has(template), template);
    }
  });

  it("crashes leave channel_inactive (killed) or channel_expired (host down) lines and no shutdown", () => {
    const parsed = run("ack_lost", 240);
    const actions = new Set(parsed.events.filter((e) => e.kind === "instance_lifecycle").map((e) => e.detail.action));
    assert.ok(actions.has("channel_inactive") && actions.has("channel_expired"));
    for (const d of of(parsed, "ack_lost")) {
      const first = d.firstInstance;
      assert.ok(!parsed.events.some((e) => e.instance === first && e.detail.action === "shutdown"), `${first} never shut down`);
      assert.ok(parsed.events.some((e) => e.source.startsWith("rocketmq-broker-log") && (e.detail.action === "channel_inactive" || e.detail.action === "channel_expired") && e.instance?.split("@")[0] === first.split("@")[0]));
    }
  });
});

describe("simulator: truth labels", () => {
  it("use the diagnosis vocabulary, with a layer for every catch and a defect for every leak", () => {
    const { truth } = run("all", MIXED_KEYS).result;
    const noDedupLog = new Set(GROUPS.filter((g) => !g.dedupLog).map((g) => g.name));
    for (const d of truth.duplicates) {
      assert.ok(CAUSES.includes(d.cause) && d.cause !== "unknown", d.cause);
      assert.ok(OUTCOMES.includes(d.outcome));
      if (d.outcome === "caught") assert.ok(d.layer && DEDUP_LAYERS.includes(d.layer) && !d.defect);
      if (d.outcome === "leaked") assert.ok(d.defect && DEFECTS.includes(d.defect) && !d.layer);
      assert.equal(d.outcome === "unknown", noDedupLog.has(d.group), `${d.group} ${d.outcome}`);
      assert.ok(d.gapMs >= 0 && d.secondAt - d.firstAt === d.gapMs);
    }
  });

  for (const cause of CAUSE_SCENARIOS) {
    it(`the ${cause} scenario makes ${cause} duplicates`, () => {
      assert.ok(of(run(cause, 60), cause).length > 0);
    });
  }

  for (const defect of DEFECT_SCENARIOS) {
    it(`the ${defect} scenario leaks duplicates labelled ${defect}`, () => {
      assert.ok(run(defect, 60).result.truth.duplicates.some((d) => d.outcome === "leaked" && d.defect === defect));
    });
  }

  it("producer_retry: one msgId, two stored copies; both copies' Pubs carry them when the first attempt was stored but not OK", () => {
    const parsed = run("producer_retry", 60);
    const duplicates = of(parsed, "producer_retry");
    let withTwoPubs = 0;
    for (const d of duplicates) {
      assert.equal(d.msgIds[0], d.msgIds[1]);
      assert.notEqual(d.offsetMsgIds[0], d.offsetMsgIds[1]);
      assert.deepEqual(d.retryTimes, [0, 0]);
      const pubs = new Set(eventsOf(parsed, d.msgIds[0], "publish").map((e) => e.offsetMsgId));
      if (d.offsetMsgIds.every((id) => pubs.has(id))) withTwoPubs++;
    }
    assert.ok(withTwoPubs > 0, "some producer retries show both stored copies in the parsed trace events");
  });

  it("upstream_resend: a new msgId for the same key", () => {
    for (const d of of(run("upstream_resend", 60), "upstream_resend")) assert.notEqual(d.msgIds[0], d.msgIds[1]);
  });

  it("rebalance and ack_lost: the same stored copy delivered again with retryTimes 0", () => {
    for (const cause of ["rebalance", "ack_lost"] as const) {
      for (const d of of(run(cause, 60), cause)) {
        assert.equal(d.offsetMsgIds[0], d.offsetMsgIds[1]);
        assert.deepEqual(d.retryTimes, [0, 0]);
      }
    }
  });

  it("rebalance: the old owner logs a dropped process queue for in-flight messages", () => {
    assert.ok(run("rebalance", 60).events.some((e) => e.detail.template === "process_queue_dropped"));
  });

  it("consume_timeout: sent back as expired, redelivered with retryTimes 1 more than 15 min after the first start", () => {
    const parsed = run("consume_timeout", 60);
    for (const d of of(parsed, "consume_timeout")) {
      assert.deepEqual(d.retryTimes, [0, 1]);
      assert.ok(d.gapMs > 15 * 60_000);
      assert.ok(eventsOf(parsed, d.msgIds[0]).some((e) => e.detail.template === "send_expire_msg_back"));
      assert.ok(eventsOf(parsed, d.msgIds[0], "consume_end").some((e) => e.detail.contextCode === 1));
    }
  });

  it("retry_after_failure: the first attempt executed then failed; the retry is caught by the durable layer", () => {
    const parsed = run("retry_after_failure", 60);
    for (const d of of(parsed, "retry_after_failure")) {
      assert.equal(d.retryTimes[1], 1);
      const first = parsed.events.filter((e) => e.kind === "business_effect" && e.msgId === d.msgIds[0] && e.retryTimes === 0);
      assert.deepEqual(first.map((e) => e.success), [true, false]);
      assert.equal(d.layer, "db");
    }
  });

  it("dlq_replay: resent from the DLQ through consumeMessageDirectly, with no consume trace", () => {
    const parsed = run("dlq_replay", 60);
    for (const d of of(parsed, "dlq_replay")) {
      assert.equal(d.retryTimes[1], 16);
      const starts = eventsOf(parsed, d.msgIds[0], "consume_start").filter((e) => e.retryTimes === 16);
      // The 17th pulled attempt (traced) failed and dead-lettered the message; both resends left no trace.
      assert.equal(starts.filter((e) => e.detail.template === "consume_directly").length, 2);
      assert.equal(starts.filter((e) => e.detail.traceRecord === "SubBefore").length, 1);
    }
  });

  it("delayed_double_write: a Delay_Msg whose second copy came after a broker restart", () => {
    const parsed = run("delayed_double_write", 60);
    for (const d of of(parsed, "delayed_double_write")) {
      assert.ok(eventsOf(parsed, d.msgIds[0], "publish").every((e) => e.detail.msgType === "Delay_Msg"));
      assert.notEqual(d.offsetMsgIds[0], d.offsetMsgIds[1]);
    }
  });

  it("transaction_checkback: committed again after a check-back", () => {
    const parsed = run("transaction_checkback", 60);
    for (const d of of(parsed, "transaction_checkback")) {
      const events = eventsOf(parsed, d.msgIds[0]);
      assert.ok(events.some((e) => e.kind === "transaction" && e.detail.fromTransactionCheck === true));
      assert.ok(events.some((e) => e.detail.template === "transaction_check"));
    }
  });

  it("non_atomic_check leaks are two passes within a second on two instances", () => {
    for (const d of run("non_atomic_check", 60).result.truth.duplicates.filter((x) => x.defect === "non_atomic_check")) {
      assert.ok(d.gapMs < 1000 && !d.sameInstance);
    }
  });

  it("marker_not_released: keys are lost, never duplicates", () => {
    const { truth } = run("marker_not_released", 60).result;
    assert.ok(truth.lost.length > 0);
    const lost = new Set(truth.lost.map((l) => l.bizKey));
    assert.ok(truth.lost.every((l) => l.defect === "marker_not_released"));
    assert.ok(!truth.duplicates.some((d) => lost.has(d.bizKey)));
  });

  it("normal_retry: every key is a normal retry and none is a duplicate", () => {
    const { truth } = run("normal_retry", 60).result;
    assert.equal(truth.duplicates.length, 0);
    assert.equal(truth.normalRetries.length, 60);
  });

  it("clean: no duplicate, no loss, no retry", () => {
    const { truth } = run("clean", 60).result;
    assert.deepEqual([truth.duplicates.length, truth.lost.length, truth.normalRetries.length], [0, 0, 0]);
  });
});

describe("simulator: scale", () => {
  it("simulates 10,000 keys of every scenario well under a minute, with every cause present", () => {
    const started = performance.now();
    const { truth } = runSimulation({ scenario: "all", keys: 10_000, seed: 3 });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 30, `took ${seconds.toFixed(1)} s`);
    assert.equal(truth.keys, 10_000);
    const causes = new Set(truth.duplicates.map((d) => d.cause));
    for (const cause of CAUSE_SCENARIOS) assert.ok(causes.has(cause), cause);
  });
});

describe("simulator: CLI", () => {
  it("writes the files and prints a summary per cause", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "dupscope-sim-cli-"));
    try {
      const lines: string[] = [];
      await runSimulate({ scenario: "producer_retry", keys: 20, seed: 1, out: dir }, (line) => lines.push(line));
      assert.ok((await readdir(dir)).includes("manifest.json"));
      assert.match(lines.join("\n"), /by cause: producer_retry \d+/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("plays the Kafka and RocketMQ 5 causes through the span simulator: spans, each Kafka consumer's log, truth and manifest", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "dupscope-sim-cli-"));
    try {
      const lines: string[] = [];
      await runSimulate({ scenario: "commit_failed", keys: 1500, seed: 2, out: dir }, (line) => lines.push(line));
      const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as { scenario: string; files: { path: string; format: string; instance?: string }[] };
      assert.equal(manifest.scenario, "commit_failed");
      const logs = manifest.files.filter((f) => f.format === "kafka-client-log");
      assert.ok(logs.length >= 2 && logs.every((f) => f.instance !== undefined), "a log per consumer, with its process");
      for (const f of manifest.files) assert.ok((await readFile(path.join(dir, f.path), "utf8")).length > 0, f.path);
      assert.match(lines.join("\n"), /by cause: commit_failed \d+, rebalance \d+/);
      const rmq = runSpanSimulation({ scenario: "invisible_timeout", keys: 600, seed: 2 }).truth.duplicates;
      assert.deepEqual(new Set(rmq.map((d) => d.cause)), new Set(["invisible_timeout", "retry_after_failure"]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unknown scenario and bad numbers as usage errors", async () => {
    await assert.rejects(runSimulate({ scenario: "nope", keys: 1, seed: 1, out: tmpdir() }, () => {}), (e: unknown) => e instanceof UsageError && /one of: all, .*commit_failed, invisible_timeout/.test(e.message));
    await assert.rejects(runSimulate({ scenario: "all", keys: 0, seed: 1, out: tmpdir() }, () => {}), UsageError);
  });
});
