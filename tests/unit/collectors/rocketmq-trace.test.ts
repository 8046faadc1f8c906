import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_TS, MIN_TS, type NormalizedEvent } from "../../../lib/events/model.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import {
  CONTENT_SPLITOR,
  FIELD_SPLITOR,
  formatTraceRecord,
  parseTraceRecord,
  splitTraceBody,
  TRACE_TYPES,
  type TraceRecord,
} from "../../../collectors/codecs/rocketmq-trace-body.ts";
import { pairConsumeAttempts, parse, parseTraceMessage } from "../../../collectors/rocketmq-trace/parse.ts";
import { MAX_LINE_BYTES, type ParseContext } from "../../../collectors/types.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("rocketmq-trace");
const ctx: ParseContext = { source: "rocketmq-trace:test" };
const T = Date.UTC(2026, 10, 30, 4, 0, 0); // 2026-11-30 12:00:00 +08:00
const t = (ms: number) => String(T + ms);

/** A record in the wire format, built from its fields as formats.md lists them (independent of formatTraceRecord). */
const rec = (...fields: (string | number)[]) => fields.join(CONTENT_SPLITOR) + FIELD_SPLITOR;
const messageLine = (body: string, extra: Record<string, unknown> = {}) => JSON.stringify({ bornHost: "10.0.1.21:40125", body, ...extra });

function eventsOf(body: string, extra: Record<string, unknown> = {}): NormalizedEvent[] {
  const result = parseTraceMessage(messageLine(body, extra), 1, ctx);
  assert.equal(result.issue, undefined, result.issue?.reason);
  return result.events;
}

function only<T>(items: readonly T[]): T {
  assert.equal(items.length, 1, `expected exactly one, got ${items.length}`);
  return items[0]!;
}

function recordOf<K extends TraceRecord["type"]>(type: K, fields: readonly string[]): Extract<TraceRecord, { type: K }> {
  const result = parseTraceRecord(fields);
  assert.ok(result.ok, result.ok ? "" : result.reason);
  assert.equal(result.record.type, type);
  return result.record as Extract<TraceRecord, { type: K }>;
}

function issueOf(fields: readonly string[]): { code: string; reason: string } {
  const result = parseTraceRecord(fields);
  assert.ok(!result.ok, "expected the record to be refused");
  return { code: result.code, reason: result.reason };
}

const M1 = "0A000005216C18B4AAC27A9E2A3F0001";
const OFF_A = "0A00000B00002A9F000000000003E8A0";
const OFF_B = "0A00000C00002A9F00000000001F7C40";
const REQ = "0A0001155C3A18B4AAC27A9E30000001";
const pubHead = ["Pub", t(0), "DefaultRegion", "order-producer-group", "ORDER_PAID", M1, "paid", "ORD-1 PAY-7", "10.0.0.11:10911", "412", "4", "0"];
const fields = (record: string) => splitTraceBody(record)[0]!;

describe("splitTraceBody", () => {
  it("splits a batched body into records and fields", () => {
    assert.deepEqual(splitTraceBody(rec("SubBefore", "1", "r") + rec("SubAfter", "2")), [
      ["SubBefore", "1", "r"],
      ["SubAfter", "2"],
    ]);
  });

  it("drops trailing empty fields the way Java's split does", () => {
    assert.deepEqual(splitTraceBody(`SubAfter${CONTENT_SPLITOR}0${CONTENT_SPLITOR}${CONTENT_SPLITOR}${FIELD_SPLITOR}`), [["SubAfter", "0"]]);
  });

  it("keeps an unterminated last record and gives nothing for an empty body", () => {
    assert.deepEqual(splitTraceBody(rec("Recall", "1") + "Pub"), [["Recall", "1"], ["Pub"]]);
    assert.deepEqual(splitTraceBody(""), []);
  });
});

describe("parseTraceRecord reads every client layout", () => {
  it("Pub V1 (12 fields) has neither offsetMsgId nor success", () => {
    assert.deepEqual(recordOf("Pub", [...pubHead.slice(0, 6), "null", "null", ...pubHead.slice(8)]), {
      type: "Pub", timeStamp: T, regionId: "DefaultRegion", producerGroup: "order-producer-group", topic: "ORDER_PAID", msgId: M1,
      tags: null, keys: [], storeHost: "10.0.0.11:10911", bodyLength: 412, costTime: 4, msgType: 0,
    });
  });

  it("Pub from older clients (13 fields) has success at [12]", () => {
    const record = recordOf("Pub", [...pubHead, "false"]);
    assert.deepEqual([record.success, record.offsetMsgId, record.clientHost], [false, undefined, undefined]);
  });

  it("Pub from Java 4.9+ (14 fields) has offsetMsgId and success", () => {
    const record = recordOf("Pub", [...pubHead, OFF_A, "true"]);
    assert.deepEqual([record.keys, record.offsetMsgId, record.success, record.clientHost], [["ORD-1", "PAY-7"], OFF_A, true, undefined]);
  });

  it("Pub from Java 4.8.0 and Go (15 fields) adds clientHost", () => {
    assert.equal(recordOf("Pub", [...pubHead, OFF_A, "true", "10.0.2.31@8842"]).clientHost, "10.0.2.31@8842");
  });

  it("SubBefore with 8 fields, and 9 with clientHost", () => {
    const head = ["SubBefore", t(10), "DefaultRegion", "order-consumer-group", REQ, M1, "3", "ORD-1"];
    assert.deepEqual(recordOf("SubBefore", head), {
      type: "SubBefore", timeStamp: T + 10, regionId: "DefaultRegion", consumerGroup: "order-consumer-group", requestId: REQ, msgId: M1, retryTimes: 3, keys: ["ORD-1"],
    });
    assert.equal(recordOf("SubBefore", [...head, "10.0.2.31@8842"]).clientHost, "10.0.2.31@8842");
  });

  it("SubBefore whose empty keys were dropped by split (7 fields) reads as 8 with no keys", () => {
    assert.deepEqual(recordOf("SubBefore", fields(rec("SubBefore", t(10), "r", "g", REQ, M1, 0, ""))).keys, []);
  });

  it("SubAfter with 9 fields (end time and group), 7 (cloud channel) and 6 (old clients)", () => {
    const head = ["SubAfter", REQ, M1, "41", "true", "ORD-1"];
    assert.deepEqual(recordOf("SubAfter", [...head, "1", t(900), "order-consumer-group"]), {
      type: "SubAfter", requestId: REQ, msgId: M1, costTime: 41, success: true, keys: ["ORD-1"], contextCode: 1, timeStamp: T + 900, consumerGroup: "order-consumer-group",
    });
    assert.deepEqual(recordOf("SubAfter", fields(rec(...head, "0", ""))), { type: "SubAfter", requestId: REQ, msgId: M1, costTime: 41, success: true, keys: ["ORD-1"], contextCode: 0 });
    assert.deepEqual(recordOf("SubAfter", head), { type: "SubAfter", requestId: REQ, msgId: M1, costTime: 41, success: true, keys: ["ORD-1"] });
  });

  it("SubAfter whose empty group was dropped by split (8 fields) keeps its end time", () => {
    const record = recordOf("SubAfter", fields(rec("SubAfter", REQ, M1, 41, "true", "ORD-1", 0, t(900), "")));
    assert.deepEqual([record.timeStamp, record.consumerGroup], [T + 900, ""]);
  });

  it("EndTransaction (13 fields) and Recall (7 fields)", () => {
    assert.deepEqual(recordOf("EndTransaction", ["EndTransaction", t(5), "r", "tx-group", "ORDER_CREATED", M1, "created", "ORD-1", "10.0.0.11:10911", "2", "tx-1", "COMMIT_MESSAGE", "true"]), {
      type: "EndTransaction", timeStamp: T + 5, regionId: "r", producerGroup: "tx-group", topic: "ORDER_CREATED", msgId: M1, tags: "created", keys: ["ORD-1"],
      storeHost: "10.0.0.11:10911", msgType: 2, transactionId: "tx-1", transactionState: "COMMIT_MESSAGE", fromTransactionCheck: true,
    });
    assert.deepEqual(recordOf("Recall", ["Recall", t(7), "r", "pg", "ORDER_TIMER", M1, "false"]), {
      type: "Recall", timeStamp: T + 7, regionId: "r", producerGroup: "pg", topic: "ORDER_TIMER", msgId: M1, success: false,
    });
  });

  it("a wrong field count is malformed and names the count and the expected ones", () => {
    assert.deepEqual(parseTraceRecord(["SubBefore", t(0), "r", "g", REQ]), { ok: false, code: "malformed", reason: "SubBefore has 5 fields, expected 8 or 9" });
    assert.ok(parseTraceRecord([...pubHead, OFF_A, "true", "h", "extra"]).ok, "fields past the longest layout are ignored");
  });

  it("unknown record types and empty records are malformed", () => {
    assert.deepEqual(parseTraceRecord(["SubMiddle", "1"]), { ok: false, code: "malformed", reason: 'unknown record type "SubMiddle"' });
    assert.deepEqual(parseTraceRecord([]), { ok: false, code: "malformed", reason: "empty record" });
  });

  it("names every bad field of a record in one invalid_field result", () => {
    const issue = issueOf(["Pub", "12:00:01", ...pubHead.slice(2, 10), "4ms", "0", OFF_A, "yes"]);
    assert.equal(issue.code, "invalid_field");
    assert.match(issue.reason, /timeStamp "12:00:01" is not epoch milliseconds, costTime "4ms" is not a whole number$/);
  });

  it("reads success as Java's Boolean.parseBoolean does: true in any case, anything else false", () => {
    const read = (success: string) => {
      const result = parseTraceRecord([...pubHead, OFF_A, success]);
      assert.ok(result.ok);
      return result.record.type === "Pub" ? result.record.success : undefined;
    };
    assert.deepEqual(["true", "TRUE", "false", "yes", ""].map(read), [true, true, false, false, false]);
  });

  it("rejects timestamps in seconds or microseconds with a hint", () => {
    assert.deepEqual(issueOf(["Recall", String(Math.floor(T / 1000)), "r", "pg", "t", M1, "true"]), {
      code: "invalid_field",
      reason: `Recall: timeStamp ${Math.floor(T / 1000)} is outside 2000-01-01..2100-01-01 (looks like epoch seconds; traces carry milliseconds)`,
    });
    assert.match(issueOf(["Recall", String(T * 1000), "r", "pg", "t", M1, "true"]).reason, /looks like epoch microseconds/);
  });
});

describe("parseTraceMessage maps records to normalized events", () => {
  it("Pub becomes a publish per business key, with the producer group in detail", () => {
    const events = eventsOf(rec(...pubHead, OFF_A, "true"));
    assert.deepEqual(events.map((e) => e.bizKey), ["ORD-1", "PAY-7"]);
    assert.notEqual(events[0]!.id, events[1]!.id);
    const { id: _a, bizKey: _b, ...first } = events[0]!;
    const { id: _c, bizKey: _d, ...second } = events[1]!;
    assert.deepEqual(first, second);
    assert.deepEqual(first, {
      kind: "publish", ts: T, tsPrecision: "ms", msgId: M1, offsetMsgId: OFF_A, broker: "rocketmq", topic: "ORDER_PAID", group: null, queue: null, queueOffset: null,
      instance: "10.0.1.21", retryTimes: null, redelivered: null, success: true, source: ctx.source,
      detail: {
        producerGroup: "order-producer-group", tags: "paid", storeHost: "10.0.0.11:10911", bodyLength: 412, costTime: 4, msgType: "Normal_Msg", regionId: "DefaultRegion",
        instanceRaw: "10.0.1.21:40125", traceRecord: "Pub",
      },
    });
  });

  it('keys "null" give one event with no bizKey, still found by msgId', () => {
    const event = only(eventsOf(rec(...pubHead.slice(0, 7), "null", ...pubHead.slice(8))));
    assert.deepEqual([event.bizKey, event.msgId, event.offsetMsgId, event.success], [null, M1, null, null]);
  });

  it("a repeated business key in one record gives one event", () => {
    assert.equal(eventsOf(rec(...pubHead.slice(0, 7), "ORD-1 ORD-1", ...pubHead.slice(8), OFF_A, "true")).length, 1);
  });

  it("a record's clientHost names the instance more precisely than bornHost", () => {
    const event = eventsOf(rec(...pubHead, OFF_A, "true", "10.0.2.32@23011#1796011190123456789"))[0]!;
    assert.equal(event.instance, "10.0.2.32@23011");
    assert.equal(event.detail.instanceRaw, "10.0.2.32@23011#1796011190123456789");
  });

  it("a bornHost written as Java prints it (/ip:port) gives the same instance", () => {
    const event = only(parseTraceMessage(JSON.stringify({ bornHost: "/10.0.1.21:40125", body: rec("Recall", t(0), "r", "pg", "t", M1, "true") }), 1, ctx).events);
    assert.equal(event.instance, "10.0.1.21");
  });

  it("retry and DLQ topics are kept as written", () => {
    const event = eventsOf(rec(...pubHead.slice(0, 4), "%DLQ%order-consumer-group", ...pubHead.slice(5), OFF_A, "true"))[0]!;
    assert.equal(event.topic, "%DLQ%order-consumer-group");
  });

  it("SubBefore becomes consume_start with group, retryTimes and requestId", () => {
    const event = only(eventsOf(rec("SubBefore", t(10), "DefaultRegion", "order-consumer-group", REQ, M1, 2, "ORD-1")));
    assert.deepEqual([event.kind, event.ts, event.group, event.retryTimes, event.instance, event.bizKey], ["consume_start", T + 10, "order-consumer-group", 2, "10.0.1.21", "ORD-1"]);
    assert.deepEqual(event.detail, { requestId: REQ, regionId: "DefaultRegion", instanceRaw: "10.0.1.21:40125", traceRecord: "SubBefore" });
  });

  it("SubAfter becomes consume_end at its end time, with contextCode named", () => {
    const event = only(eventsOf(rec("SubAfter", REQ, M1, 900230, "false", "ORD-1", 1, t(904640), "order-consumer-group"), { storeTimestamp: T + 905100 }));
    assert.deepEqual([event.kind, event.ts, event.tsPrecision, event.success, event.group], ["consume_end", T + 904640, "ms", false, "order-consumer-group"]);
    assert.deepEqual(event.detail, { requestId: REQ, costTime: 900230, contextCode: 1, contextName: "TIME_OUT", instanceRaw: "10.0.1.21:40125", traceRecord: "SubAfter" });
  });

  it("SubAfter without an end time takes the store time and says so", () => {
    const event = only(eventsOf(rec("SubAfter", REQ, M1, 15, "true", "null"), { storeTimestamp: T + 14008 }));
    assert.deepEqual([event.ts, event.group, event.detail.tsSource, event.detail.contextCode, event.detail.contextName], [T + 14008, null, "storeTimestamp", null, null]);
  });

  it("EndTransaction becomes a transaction event", () => {
    const event = only(eventsOf(rec("EndTransaction", t(5), "r", "tx-group", "ORDER_CREATED", M1, "created", "ORD-1", "10.0.0.11:10911", 2, "tx-1", "COMMIT_MESSAGE", "true")));
    assert.deepEqual([event.kind, event.topic, event.group, event.success], ["transaction", "ORDER_CREATED", null, null]);
    assert.deepEqual(event.detail, {
      transactionId: "tx-1", transactionState: "COMMIT_MESSAGE", fromTransactionCheck: true, producerGroup: "tx-group", msgType: "Trans_msg_Commit",
      tags: "created", storeHost: "10.0.0.11:10911", regionId: "r", instanceRaw: "10.0.1.21:40125", traceRecord: "EndTransaction",
    });
  });

  it("Recall becomes a publish flagged as a recall", () => {
    const event = only(eventsOf(rec("Recall", t(7), "r", "pg", "ORDER_TIMER", M1, "true")));
    assert.deepEqual([event.kind, event.success, event.detail.recall, event.detail.traceRecord], ["publish", true, true, "Recall"]);
  });

  it("ids are stable across a trace producer's resend from another port, and differ per record", () => {
    const body = rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1");
    const first = parseTraceMessage(JSON.stringify({ bornHost: "10.0.1.21:40125", body }), 1, ctx).events;
    const resent = parseTraceMessage(JSON.stringify({ bornHost: "10.0.1.21:40999", body, msgId: "X" }), 9, ctx).events;
    assert.deepEqual(resent.map((e) => e.id), first.map((e) => e.id));
    assert.notEqual(first[0]!.id, first[1]!.id);
  });

  it("the trace message's own msgId is kept in detail", () => {
    assert.equal(only(eventsOf(rec("Recall", t(7), "r", "pg", "t", M1, "true"), { msgId: "TRACE-1" })).detail.traceMsgId, "TRACE-1");
  });
});

describe("fixtures match their golden files", () => {
  const fixtures = testdata.fixtures(".ndjson");

  it("has fixtures", () => assert.ok(fixtures.length >= 2));

  for (const name of fixtures) {
    it(`${name} parses to ${name.replace(/\.ndjson$/, ".golden.json")}`, () => {
      const result = parse(testdata.read(name), { source: `rocketmq-trace:testdata/${name}` });
      testdata.assertGolden(name, result);
    });
  }

  it("every fixture event is accepted by the event schema", () => {
    for (const name of fixtures) {
      for (const event of parse(testdata.read(name), ctx).events) {
        const validated = validateEvent(event);
        assert.ok(validated.ok, validated.ok ? "" : `${name}: ${validated.reason}`);
      }
    }
  });

  it("the main fixture covers every record kind and field-count variant", () => {
    const counts = new Set<string>();
    for (const line of testdata.read("trace-messages.ndjson").trim().split("\n")) {
      const body = (JSON.parse(line) as { body: string }).body;
      for (const record of body.split(FIELD_SPLITOR).slice(0, -1)) {
        const parts = record.split(CONTENT_SPLITOR);
        counts.add(`${parts[0]}/${parts.length}`);
      }
    }
    // The cloud SubAfter is written with a trailing separator: 8 pieces on the wire, 7 fields.
    const expected = ["Pub/12", "Pub/13", "Pub/14", "Pub/15", "SubBefore/8", "SubBefore/9", "SubAfter/9", "SubAfter/8", "SubAfter/6", "EndTransaction/13", "Recall/7"];
    assert.deepEqual([...counts].sort(), expected.sort());
  });

  it("the producer retry shows one msgId with two offsetMsgIds, both consumed with retryTimes 0", () => {
    const { events } = parse(testdata.read("trace-messages.ndjson"), ctx);
    const retried = events.filter((e) => e.msgId === "0A000005216C18B4AAC27A9E2B100002");
    const pubs = retried.filter((e) => e.kind === "publish");
    assert.deepEqual(pubs.map((e) => [e.offsetMsgId, e.success]), [["0A00000B00002A9F000000000003EB10", false], [OFF_B, true]]);
    const starts = retried.filter((e) => e.kind === "consume_start");
    assert.deepEqual(starts.map((e) => [e.instance, e.retryTimes]), [["10.0.1.21", 0], ["10.0.1.22", 0]]);
  });
});

describe("bad input gives an issue and never throws", () => {
  function lineResult(line: string) {
    return parseTraceMessage(line, 7, ctx);
  }

  it("a truncated record is reported with line and record index while the good records still give events", () => {
    const body = rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + rec("SubAfter", REQ, M1, 41) + rec("Recall", t(7), "r", "pg", "t", M1, "true");
    const result = lineResult(messageLine(body));
    assert.deepEqual(result.events.map((e) => e.detail.traceRecord), ["SubBefore", "Recall"]);
    assert.deepEqual(result.issue, { line: 7, code: "malformed", reason: "line 7, record 2 of 3: SubAfter has 4 fields, expected 6, 7 or 9" });
  });

  it("a record with fewer fields than any layout", () => {
    const result = lineResult(messageLine(rec("EndTransaction", t(5), "r", "tx-group", "T", M1, "created", "K", "h", 2, "tx-1")));
    assert.deepEqual([result.events.length, result.issue?.code], [0, "malformed"]);
    assert.match(result.issue!.reason, /EndTransaction has 11 fields, expected 13/);
  });

  it("reads extra trailing fields as the Java decoder does: ignored", () => {
    const result = lineResult(messageLine(rec("EndTransaction", t(5), "r", "tx-group", "T", M1, "created", "K", "h", 2, "tx-1", "COMMIT_MESSAGE", "true", "extra")));
    assert.equal(result.issue, undefined);
    assert.deepEqual(result.events.map((e) => e.kind), ["transaction"]);
  });

  it("reads a last record not terminated by \\u0002 when it is whole, and names the cut when it is not", () => {
    const whole = rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + ["SubAfter", REQ, M1, 41, "true", "ORD-1", 0, t(900), "g"].join(CONTENT_SPLITOR);
    const read = lineResult(messageLine(whole));
    assert.deepEqual(read.events.map((e) => e.kind), ["consume_start", "consume_end"]);
    assert.equal(read.issue, undefined);
    const cut = rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + ["SubAfter", REQ, M1, "4"].join(CONTENT_SPLITOR);
    const result = lineResult(messageLine(cut));
    assert.deepEqual(result.events.map((e) => e.kind), ["consume_start"]);
    assert.match(result.issue!.reason, /record 2 of 2: SubAfter has 4 fields, expected 6, 7 or 9 \(the last record is not terminated by \\u0002: a truncated body\?\)/);
  });

  it("passes over records of a type it does not know, as the Java decoder does", () => {
    const body = rec("SubMiddle", t(10), "x") + rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1");
    const result = lineResult(messageLine(body));
    assert.deepEqual([result.events.map((e) => e.kind), result.issue], [["consume_start"], undefined]);
    assert.deepEqual(lineResult(messageLine(rec("SubMiddle", t(10), "x"))), { events: [], skipped: true });
  });

  it("a non-numeric timestamp", () => {
    const result = lineResult(messageLine(rec("SubBefore", "2026-11-30 12:00:00", "r", "g", REQ, M1, 0, "ORD-1")));
    assert.deepEqual([result.events.length, result.issue?.code], [0, "invalid_field"]);
    assert.match(result.issue!.reason, /record 1 of 1: SubBefore: timeStamp "2026-11-30 12:00:00" is not epoch milliseconds/);
  });

  it("an absurd timestamp (seconds instead of milliseconds)", () => {
    const result = lineResult(messageLine(rec("SubBefore", Math.floor(T / 1000), "r", "g", REQ, M1, 0, "ORD-1")));
    assert.deepEqual([result.events.length, result.issue?.code], [0, "invalid_field"]);
    assert.match(result.issue!.reason, /looks like epoch seconds/);
  });

  it("an invalid JSON line, a JSON value that is not an object, a missing bornHost or body", () => {
    for (const line of ["{bornHost: 10.0.0.1}", "[1,2]", "null", JSON.stringify({ body: rec("Recall", t(0), "r", "p", "t", M1, "true") }), JSON.stringify({ bornHost: "10.0.0.1:1" }), JSON.stringify({ bornHost: " ", body: "" })]) {
      const result = lineResult(line);
      assert.deepEqual([result.events.length, result.issue?.code, result.issue?.line], [0, "malformed", 7], line);
    }
  });

  it("an empty body", () => {
    assert.deepEqual(lineResult(messageLine("")).issue, { line: 7, code: "malformed", reason: "body holds no trace record" });
  });

  it("a SubAfter with no end time in a message without storeTimestamp", () => {
    const result = lineResult(messageLine(rec("SubAfter", REQ, M1, 15, "true", "ORD-1")));
    assert.deepEqual([result.events.length, result.issue?.code], [0, "invalid_field"]);
    assert.match(result.issue!.reason, /no end timeStamp .* no storeTimestamp/);
  });

  it("a bad storeTimestamp or msgId is ignored with an issue; the records still count", () => {
    const result = lineResult(messageLine(rec("Recall", t(0), "r", "p", "t", M1, "true"), { storeTimestamp: Math.floor(T / 1000), msgId: 42 }));
    assert.equal(result.events.length, 1);
    assert.equal(result.issue?.code, "invalid_field");
    assert.match(result.issue!.reason, /storeTimestamp \d+ is outside .*looks like epoch seconds.*; ignored; msgId is not a string; ignored/);
  });

  it("a record with neither msgId nor business key", () => {
    const result = lineResult(messageLine(rec("Recall", t(0), "r", "p", "t", "", "true")));
    assert.deepEqual([result.events.length, result.issue?.code], [0, "invalid_field"]);
  });

  it("a 2 MB line is too_long (via parseLines) and the lines around it still parse", () => {
    const good = messageLine(rec("Recall", t(0), "r", "p", "t", M1, "true"));
    const huge = messageLine(rec("Recall", t(0), "r", "p", "t", M1, "true") + "x".repeat(2 * 1024 * 1024));
    const result = parse([good, huge, good].join("\n"), ctx);
    assert.equal(result.events.length, 2);
    assert.deepEqual(result.issues, [{ line: 2, code: "too_long", reason: `line is longer than ${MAX_LINE_BYTES} bytes` }]);
  });
});

describe("pairConsumeAttempts", () => {
  const fixture = () => parse(testdata.read("trace-messages.ndjson"), ctx).events;

  it("pairs each message of a batch by requestId and msgId", () => {
    const batch = pairConsumeAttempts(fixture()).filter((a) => a.requestId === REQ);
    assert.deepEqual(
      batch.map((a) => [a.msgId, a.bizKey, a.start?.kind, a.end?.kind, a.costTime, a.success, a.contextCode, a.retryTimes, a.instance, a.group]),
      [
        [M1, "ORD-20261130-0001", "consume_start", "consume_end", 41, true, 0, 0, "10.0.1.21", "order-consumer-group"],
        [M1, "PAY-7781", "consume_start", "consume_end", 41, true, 0, 0, "10.0.1.21", "order-consumer-group"],
        ["0A000005216C18B4AAC27A9E2B8C0003", "ORD-20261130-0003", "consume_start", "consume_end", 41, true, 0, 0, "10.0.1.21", "order-consumer-group"],
        ["0A000005216C18B4AAC27A9E2B8C0004", "ORD-20261130-0004", "consume_start", "consume_end", 41, true, 0, 0, "10.0.1.21", "order-consumer-group"],
      ],
    );
  });

  it("shows the timed-out attempt and its retry", () => {
    const attempts = pairConsumeAttempts(fixture()).filter((a) => a.msgId === "0A000005216C18B4AAC27A9E2C010005");
    assert.deepEqual(attempts.map((a) => [a.instance, a.retryTimes, a.success, a.contextCode]), [["10.0.1.22", 0, false, 1], ["10.0.1.21", 1, true, 0]]);
  });

  it("every start and end of the fixture lands in exactly one attempt, all of them complete", () => {
    const events = fixture();
    const attempts = pairConsumeAttempts(events);
    const consumeEvents = events.filter((e) => e.kind === "consume_start" || e.kind === "consume_end");
    assert.equal(attempts.length * 2, consumeEvents.length);
    assert.ok(attempts.every((a) => a.start !== undefined && a.end !== undefined));
  });

  it("a start whose SubAfter was dropped has no end and no outcome", () => {
    const [attempt] = pairConsumeAttempts(eventsOf(rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1")));
    assert.deepEqual([attempt?.start?.kind, attempt?.end, attempt?.costTime, attempt?.success, attempt?.contextCode], ["consume_start", undefined, null, null, null]);
  });

  it("an end whose SubBefore was dropped has no start and unknown retryTimes", () => {
    const [attempt] = pairConsumeAttempts(eventsOf(rec("SubAfter", REQ, M1, 41, "false", "ORD-1", 4, t(900), "g")));
    assert.deepEqual([attempt?.start, attempt?.end?.kind, attempt?.retryTimes, attempt?.group, attempt?.contextCode], [undefined, "consume_end", null, "g", 4]);
  });

  it("two copies of one msgId in one batch stay two attempts, paired in time order", () => {
    const events = eventsOf(
      rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") +
        rec("SubAfter", REQ, M1, 20, "true", "ORD-1", 0, t(50), "g") + rec("SubAfter", REQ, M1, 20, "false", "ORD-1", 2, t(50), "g"),
    );
    const attempts = pairConsumeAttempts(events);
    assert.deepEqual(attempts.map((a) => [a.start?.id, a.end?.id, a.success]), [[events[0]!.id, events[2]!.id, true], [events[1]!.id, events[3]!.id, false]]);
  });

  it("counts an event given twice once and ignores events that are not consume traces", () => {
    const events = eventsOf(rec("SubBefore", t(10), "r", "g", REQ, M1, 0, "ORD-1") + rec("Recall", t(7), "r", "pg", "t", M1, "true"));
    assert.equal(pairConsumeAttempts([...events, ...events]).length, 1);
  });
});

const noSeparators = (s: string) => !s.includes(CONTENT_SPLITOR) && !s.includes(FIELD_SPLITOR);

/** Records of every layout, with text fields drawn from `text`; optional tails only in the combinations clients write. */
function recordArbitrary(text: fc.Arbitrary<string>, host: fc.Arbitrary<string>): fc.Arbitrary<TraceRecord> {
  const ts = fc.integer({ min: MIN_TS, max: MAX_TS - 1 });
  const count = fc.nat({ max: 2_000_000_000 });
  const keys = fc.uniqueArray(text.filter((k) => k !== "" && k !== "null" && !k.includes(" ")), { maxLength: 3 });
  const tags = fc.option(text.filter((s) => s.trim() !== "" && s !== "null"), { nil: null });
  const pubFields = fc.record({ timeStamp: ts, regionId: text, producerGroup: text, topic: text, msgId: text, tags, keys, storeHost: text, bodyLength: count, costTime: count, msgType: fc.nat({ max: 9 }) });
  const pubTail = fc.oneof(
    fc.constant({}),
    fc.record({ success: fc.boolean() }),
    fc.record({ offsetMsgId: text, success: fc.boolean() }),
    fc.record({ offsetMsgId: text, success: fc.boolean(), clientHost: host }),
  );
  const pub = fc.tuple(pubFields, pubTail).map(([f, tail]) => ({ type: "Pub" as const, ...f, ...tail }) as TraceRecord);
  const subBefore = fc
    .tuple(fc.record({ timeStamp: ts, regionId: text, consumerGroup: text, requestId: text, msgId: text, retryTimes: fc.nat({ max: 16 }), keys }), fc.option(host, { nil: undefined }))
    .map(([f, clientHost]) => ({ type: "SubBefore" as const, ...f, ...(clientHost === undefined ? {} : { clientHost }) }));
  const subAfterTail = fc.oneof(
    fc.constant({}),
    fc.record({ contextCode: fc.nat({ max: 4 }) }),
    fc.record({ contextCode: fc.nat({ max: 4 }), timeStamp: ts, consumerGroup: text }),
  );
  const subAfter = fc
    .tuple(fc.record({ requestId: text, msgId: text, costTime: count, success: fc.boolean(), keys }), subAfterTail)
    .map(([f, tail]) => ({ type: "SubAfter" as const, ...f, ...tail }) as TraceRecord);
  const endTransaction = fc
    .record({ timeStamp: ts, regionId: text, producerGroup: text, topic: text, msgId: text, tags, keys, storeHost: text, msgType: fc.constant(2), transactionId: text, transactionState: fc.constantFrom("COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW"), fromTransactionCheck: fc.boolean() })
    .map((f) => ({ type: "EndTransaction" as const, ...f }));
  const recall = fc.record({ timeStamp: ts, regionId: text, producerGroup: text, topic: text, msgId: text, success: fc.boolean() }).map((f) => ({ type: "Recall" as const, ...f }));
  return fc.oneof(pub, subBefore, subAfter, endTransaction, recall);
}

// Empty text is weighted up: empty last fields are what Java's split drops and the parser must restore.
const anyText = fc.oneof(fc.constant(""), fc.string({ unit: "binary", maxLength: 12 }).filter(noSeparators));
const anyHost = anyText.filter((s) => s !== "");
const token = fc.stringMatching(/^[A-Za-z0-9_%-]{1,24}$/);
const realisticHost = fc.tuple(fc.ipV4(), fc.integer({ min: 1, max: 65535 })).map(([ip, pid]) => `${ip}@${pid}`);

describe("properties", () => {
  it("parse never throws on arbitrary text, and every issue points at a line of it", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (text) => {
        const result = parse(text, ctx);
        assert.ok(result.issues.every((issue) => issue.line >= 1 && issue.line <= result.lines));
      }),
    );
  });

  it("parse never throws on arbitrary field arrays joined into a body", () => {
    const field = fc.oneof(fc.string({ unit: "binary", maxLength: 16 }), fc.constantFrom(...TRACE_TYPES), fc.integer().map(String), fc.constantFrom("true", "false", "null", ""));
    const records = fc.array(fc.array(field, { maxLength: 17 }), { maxLength: 5 });
    fc.assert(
      fc.property(records, fc.boolean(), fc.option(fc.integer(), { nil: undefined }), (fieldArrays, terminated, storeTimestamp) => {
        const body = fieldArrays.map((f) => f.join(CONTENT_SPLITOR)).join(FIELD_SPLITOR) + (terminated ? FIELD_SPLITOR : "");
        const result = parseTraceMessage(messageLine(body, { storeTimestamp }), 3, ctx);
        assert.ok(result.issue === undefined || result.issue.line === 3);
        for (const fields of fieldArrays) parseTraceRecord(fields);
      }),
    );
  });

  it("parse never throws on arbitrary JSON values", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => void parseTraceMessage(JSON.stringify(value) ?? "", 1, ctx)));
  });

  it("formatTraceRecord then parse gives back the same records", () => {
    fc.assert(
      fc.property(fc.array(recordArbitrary(anyText, anyHost), { minLength: 1, maxLength: 6 }), (records) => {
        const body = records.map(formatTraceRecord).join("");
        const parsed = splitTraceBody(body).map(parseTraceRecord);
        assert.deepEqual(parsed, records.map((record) => ({ ok: true, record })));
      }),
      { numRuns: 300 },
    );
  });

  it("every event of a realistic record is accepted by the event schema", () => {
    fc.assert(
      fc.property(recordArbitrary(token, realisticHost), fc.ipV4(), (record, ip) => {
        const result = parseTraceMessage(JSON.stringify({ bornHost: `${ip}:40125`, body: formatTraceRecord(record), storeTimestamp: T }), 1, ctx);
        assert.equal(result.issue, undefined, result.issue?.reason);
        for (const event of result.events) {
          const validated = validateEvent(event);
          assert.ok(validated.ok, validated.ok ? "" : validated.reason);
        }
      }),
    );
  });
});
