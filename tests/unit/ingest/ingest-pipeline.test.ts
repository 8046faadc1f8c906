import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { lineByLine, type LineResult } from "../../../collectors/types.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { readLines } from "../../../lib/ingest/line-reader.ts";
import { runIngest } from "../../../lib/ingest/pipeline.ts";
import { FatalSinkError, withRetry, type EventSink } from "../../../lib/ingest/sink.ts";

const event = (id: string): NormalizedEvent => ({
  id, kind: "dedup", ts: Date.UTC(2026, 10, 30), tsPrecision: "ms", bizKey: `K-${id}`, msgId: null, offsetMsgId: null, broker: "rocketmq", topic: null,
  group: "g", queue: null, queueOffset: null, instance: "i", retryTimes: null, redelivered: null, success: null, detail: {}, source: "test",
});

/** One event per line named by the line's text; "bad" lines are issues, "noise" lines match no template. */
function parseLine(line: string, lineNo: number): LineResult {
  if (line === "bad") return { events: [], issue: { line: lineNo, code: "malformed", reason: "bad line" } };
  if (line === "noise") return { events: [], skipped: true };
  return { events: [event(line)] };
}

function memorySink(options: { failOn?: string; refuse?: string; delayMs?: number } = {}) {
  const stored = new Set<string>();
  const commits: number[] = [];
  const sink: EventSink = {
    description: "memory",
    async write(events) {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
      if (events.some((e) => e.id === options.failOn)) throw new FatalSinkError("store is gone");
      let accepted = 0;
      const rejected: { index: number; reason: string }[] = [];
      events.forEach((e, index) => {
        if (e.id === options.refuse) rejected.push({ index, reason: "refused" });
        else if (!stored.has(e.id)) {
          stored.add(e.id);
          accepted++;
        }
      });
      return { accepted, duplicates: events.length - accepted - rejected.length, rejected };
    },
    async close() {},
  };
  return { sink, stored, commits };
}

const input = (lines: string[]) => readLines(Readable.from([Buffer.from(lines.join("\n") + "\n")]));

describe("ingest pipeline", () => {
  it("stores every event once, counts duplicates, issues and skipped lines, and numbers rejections by source line", async () => {
    const { sink, stored } = memorySink({ refuse: "e4" });
    const lines = ["e1", "bad", "e2", "noise", "e2", "e3", "e4", "e5"];
    const summary = await runIngest({ lines: input(lines), parser: lineByLine(parseLine), sink, batchSize: 2 });
    assert.deepEqual([...stored].sort(), ["e1", "e2", "e3", "e5"]);
    assert.deepEqual(
      { lines: summary.lines, events: summary.events, accepted: summary.accepted, duplicates: summary.duplicates, rejected: summary.rejected, skipped: summary.skipped },
      { lines: 8, events: 6, accepted: 4, duplicates: 1, rejected: 2, skipped: 1 },
    );
    assert.deepEqual(summary.rejections.map((r) => [r.line, r.reason]), [[2, "bad line"], [7, "refused"]]);
    assert.equal(summary.committedLine, 8);
  });

  it("commits offsets in input order even when batches finish out of order", async () => {
    const commits: number[] = [];
    let calls = 0;
    const sink: EventSink = {
      description: "slow first",
      async write(events) {
        const delay = calls++ === 0 ? 30 : 0;
        await new Promise((resolve) => setTimeout(resolve, delay));
        return { accepted: events.length, duplicates: 0, rejected: [] };
      },
      async close() {},
    };
    await runIngest({ lines: input(["a", "b", "c", "d", "e", "f"]), parser: lineByLine(parseLine), sink, batchSize: 2, inFlight: 3, onCommit: (offset) => void commits.push(offset) });
    assert.deepEqual(commits, [...commits].sort((a, b) => a - b));
    assert.equal(commits.at(-1), 12);
  });

  it("hands a sink's own batch its events a few hundred at a time, and maps its rejections to their lines", async () => {
    const adds: number[] = [];
    const stored: string[] = [];
    const sink: EventSink = {
      description: "encoding",
      write: () => Promise.reject(new Error("a sink with batch() is written through it")),
      batch() {
        const ids: string[] = [];
        return {
          add(events) {
            adds.push(events.length);
            for (const e of events) ids.push(e.id);
          },
          async write() {
            const rejected = ids.flatMap((id, index) => (id === "e700" ? [{ index, reason: "refused" }] : []));
            stored.push(...ids.filter((id) => id !== "e700"));
            return { accepted: ids.length - rejected.length, duplicates: 0, rejected };
          },
        };
      },
      async close() {},
    };
    const lines = Array.from({ length: 1000 }, (_, i) => `e${i + 1}`);
    const summary = await runIngest({ lines: input(lines), parser: lineByLine(parseLine), sink, batchSize: 600 });
    assert.deepEqual(stored, lines.filter((l) => l !== "e700"));
    assert.ok(Math.max(...adds) <= 256, `events were handed over ${Math.max(...adds)} at a time`);
    assert.deepEqual(summary.rejections.map((r) => [r.line, r.reason]), [[700, "refused"]]);
    assert.equal(summary.accepted, 999);
  });

  it("starts the next batch at a line whose events would take this one past its size, unless the line alone does", async () => {
    // A trace message line gives one event per record and key: "e1*3" stands for a line of three events.
    const several = (line: string, lineNo: number): LineResult => {
      const [name, times] = line.split("*");
      return { events: Array.from({ length: Number(times ?? 1) }, (_, i) => event(`${name}.${i}`)) };
    };
    const sizes: number[] = [];
    const commits: number[] = [];
    const sink: EventSink = {
      description: "sizes",
      async write(events) {
        sizes.push(events.length);
        return { accepted: events.length, duplicates: 0, rejected: [] };
      },
      async close() {},
    };
    const lines = ["a*2", "b*2", "c*3", "d*1", "e*1", "f*7", "g*1"];
    const summary = await runIngest({ lines: input(lines), parser: lineByLine(several), sink, batchSize: 5, onCommit: (_, line) => void commits.push(line) });
    assert.deepEqual(sizes, [4, 5, 7, 1]);
    assert.deepEqual(commits, [2, 5, 6, 7]);
    assert.equal(summary.accepted, 17);
  });

  it("lets a write's round trips through while it parses, not only when it waits for a batch to finish", async () => {
    // A write to PostgreSQL is several round trips, each reply handled in a turn of the event loop. The lines come
    // from one chunk already read, so without turns given on purpose the parser would run on until the pipeline
    // blocked on a full set of batches in flight, and the write's connection would sit idle meanwhile.
    const ROUND_TRIPS = 4;
    const BATCH = 100;
    let parsed = 0;
    const lag: number[] = [];
    const sink: EventSink = {
      description: "round trips",
      async write(events) {
        const sentAt = parsed;
        for (let i = 0; i < ROUND_TRIPS; i++) await new Promise((resolve) => setImmediate(resolve));
        lag.push(parsed - sentAt);
        return { accepted: events.length, duplicates: 0, rejected: [] };
      },
      async close() {},
    };
    const slowParse = (line: string, lineNo: number): LineResult => {
      const until = performance.now() + 0.1;
      while (performance.now() < until);
      parsed++;
      return parseLine(line, lineNo);
    };
    const lines = Array.from({ length: 5 * BATCH }, (_, i) => `e${i}`);
    const summary = await runIngest({ lines: input(lines), parser: lineByLine(slowParse), sink, batchSize: BATCH, inFlight: 2 });
    assert.equal(summary.accepted, lines.length);
    assert.ok(lag.length >= 5);
    // Each write is done within a few turns (a turn every half millisecond, ~5 lines here), well before the parser
    // has filled the next batch.
    for (const lines of lag) assert.ok(lines < BATCH / 2, `a write finished only ${lines} lines after it was sent: ${lag.join(", ")}`);
  });

  it("stops at a fatal sink error and reports it", async () => {
    const { sink } = memorySink({ failOn: "e3" });
    await assert.rejects(runIngest({ lines: input(["e1", "e2", "e3", "e4"]), parser: lineByLine(parseLine), sink, batchSize: 1 }), /store is gone/);
  });
});

describe("retry with backoff", () => {
  it("retries transient failures and gives up on fatal ones at once", async () => {
    let attempts = 0;
    const value = await withRetry({ initialDelayMs: 1, maxDelayMs: 4, giveUpAfterMs: 1000 }, async () => {
      if (++attempts < 4) throw new Error("connection refused");
      return "ok";
    });
    assert.equal(value, "ok");
    assert.equal(attempts, 4);
    let fatal = 0;
    await assert.rejects(
      withRetry({ initialDelayMs: 1, maxDelayMs: 4, giveUpAfterMs: 1000 }, async () => {
        fatal++;
        throw new FatalSinkError("401");
      }),
      /401/,
    );
    assert.equal(fatal, 1);
  });

  it("gives up once the time budget is spent", async () => {
    await assert.rejects(withRetry({ initialDelayMs: 5, maxDelayMs: 5, giveUpAfterMs: 20 }, async () => Promise.reject(new Error("still down"))), /still down/);
  });
});
