import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { lineShape, relevanceAnchor } from "../../../collectors/codecs/relevance.ts";
import { runIngest } from "../../../lib/ingest/pipeline.ts";
import type { RawLine } from "../../../lib/ingest/line-reader.ts";
import type { EventSink } from "../../../lib/ingest/sink.ts";
import { MAX_SHAPES, UnrecognisedTally, type UnrecognisedReport } from "../../../lib/ingest/unrecognised.ts";
import { findFormat } from "../../../collectors/registry.ts";

describe("relevance anchors and line shapes", () => {
  it("finds the anchor of lines that name a rebalance, a commit, an ack or an offset, and none in others", () => {
    assert.equal(relevanceAnchor("member consumer-1 is Rebalancing its partitions"), "rebalanc");
    assert.equal(relevanceAnchor("Basic.ack: (406) PRECONDITION_FAILED - unknown delivery tag 1"), "ack");
    assert.equal(relevanceAnchor("could not COMMIT the offsets"), "commit");
    assert.equal(relevanceAnchor("GET /health 200 3ms"), undefined);
    assert.equal(relevanceAnchor("the package was backed up"), undefined, "`ack` only as a word");
  });

  it("masks numbers, addresses, ids and quoted values, so one wording from two hosts has one shape", () => {
    const a = lineShape(`2026-12-07 10:15:02.118 WARN [t-1] lost 'orders-3' to 10.0.0.5:9092 member c0ffee1234567890ab gen 12`);
    const b = lineShape(`2026-12-08 23:01:59.007 WARN [t-7] lost 'payments-11' to 10.9.8.7:9093 member 0123456789abcdef00 gen 3`);
    assert.equal(a, b);
    assert.equal(a, "N-N-N N:N:N WARN [t-N] lost '…' to <addr> member <id> gen N");
  });

  it("costs a linear pass on pathological lines (1 MiB of one letter, 10,000 nested brackets)", () => {
    const lines = ["a".repeat(1 << 20), "[".repeat(10_000) + "rebalance" + "]".repeat(10_000), "consume".repeat(100_000), "'".repeat(1 << 20)];
    for (const line of lines) {
      const started = performance.now();
      relevanceAnchor(line);
      lineShape(line);
      // Generous: a quadratic scan of a 1 MiB line takes minutes, a linear one milliseconds.
      assert.ok(performance.now() - started < 2000, `${line.slice(0, 20)}… took ${performance.now() - started} ms`);
    }
  });

  it("keeps no digit of the line and never grows it (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        const shape = lineShape(text);
        assert.ok(!/\d/.test(shape), shape);
        assert.ok(shape.length <= 240);
      }),
    );
  });
});

describe("UnrecognisedTally", () => {
  it("counts every relevant skipped line but keeps at most MAX_SHAPES shapes, the most frequent first", () => {
    const tally = new UnrecognisedTally("kafka-client-log:/var/log/c.log", "kafka-client-log");
    for (let i = 0; i < MAX_SHAPES + 5; i++) tally.skipped(`${"x".repeat(i + 1)} rebalance ${i}`, i + 1, 1000 + i);
    tally.skipped("y rebalance 7", 99, 5000);
    tally.skipped("y rebalance 8", 100, 6000);
    tally.skipped("nothing to see", 101);
    tally.sawGroup("g1");
    const report = tally.drain()!;
    assert.equal(report.count, MAX_SHAPES + 7);
    assert.equal(report.shapes.length, MAX_SHAPES);
    assert.deepEqual(report.groups, ["g1"]);
    assert.equal(tally.drain(), undefined, "drained");
  });

  it("gets what the pipeline skipped, reaches the sink after the batch, and is in the summary", async () => {
    const text = [
      "2026-12-07 10:15:02,118 INFO [Consumer clientId=c-1, groupId=g] Revoke previously assigned partitions t-0",
      "2026-12-07 10:15:03,000 INFO acme: shard ownership rebalanced, giving up orders#3",
      "2026-12-07 10:15:04,000 INFO order 42 shipped",
    ];
    let offset = 0;
    async function* lines(): AsyncIterable<RawLine> {
      for (const [i, line] of text.entries()) {
        offset += line.length + 1;
        yield { text: line, lineNo: i + 1, bytes: line.length + 1, endOffset: offset };
      }
    }
    const received: UnrecognisedReport[] = [];
    const sink: EventSink = {
      description: "memory",
      write: async (events) => ({ accepted: events.length, duplicates: 0, rejected: [] }),
      unrecognised: async (report) => void received.push(report),
      close: async () => {},
    };
    const format = findFormat("kafka-client-log")!;
    const summary = await runIngest({ lines: lines(), parser: format.open({ source: "s", date: "2026-12-07" }), sink, unrecognised: new UnrecognisedTally("s", format.name) });
    assert.equal(summary.skipped, 2);
    assert.equal(summary.unrecognised?.count, 1);
    assert.equal(summary.unrecognised?.shapes[0]?.lastLine, 2);
    assert.deepEqual(summary.unrecognised?.groups, ["g"]);
    assert.equal(received.reduce((n, r) => n + r.count, 0), 1);
  });
});

describe("lineShape on what a store column cannot hold", () => {
  it("keeps no NUL, control character or lone surrogate", () => {
    assert.equal(lineShape("\u0000rebalance\u0007 of \ud800 and \udc00 ok"), "rebalance of and ok");
    assert.equal(lineShape("rebalance 😀"), "rebalance 😀", "a surrogate pair stays");
  });
});
