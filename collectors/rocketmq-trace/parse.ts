import { canonicalInstance } from "../../lib/events/instance.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import {
  CONTEXT_CODES,
  FIELD_SPLITOR,
  isTraceType,
  MSG_TYPES,
  parseTraceRecord,
  splitTraceBody,
  textOrNull,
  timestampProblem,
  type EndTransactionRecord,
  type PubRecord,
  type RecallRecord,
  type SubAfterRecord,
  type SubBeforeRecord,
  type TraceRecord,
  type TraceType,
} from "../codecs/rocketmq-trace-body.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseIssue, type ParseIssueCode, type ParseResult } from "../types.ts";

/**
 * RocketMQ message-trace bodies (topic RMQ_SYS_TRACE_TOPIC; see README.md for the layouts and their sources). Input is NDJSON,
 * one trace message per line: `{bornHost, body, storeTimestamp?, msgId?}`. The bornHost travels with the body
 * because in Java clients 4.9+ it is the only consumer identity a trace has. The body's records are decoded by
 * ../codecs/rocketmq-trace-body.ts; this module maps them to normalized events.
 */

const FORMAT = "rocketmq-trace";

/** One line of the NDJSON input. */
export interface TraceMessage {
  /** `ip:port` of the client that wrote the trace records. */
  bornHost: string;
  body: string;
  /** When the broker stored the trace message (broker clock, epoch ms). */
  storeTimestamp?: number;
  /** The trace message's own id, not the traced message's. */
  msgId?: string;
}

interface Problem {
  code: ParseIssueCode;
  reason: string;
}

type MessageResult = { ok: true; message: TraceMessage; problems: Problem[] } | { ok: false; problem: Problem };

function readTraceMessage(line: string): MessageResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problem: { code: "malformed", reason: "not valid JSON (expected one trace message object per line)" } };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: { code: "malformed", reason: "not a JSON object (expected {bornHost, body, storeTimestamp?, msgId?})" } };
  }
  const raw = value as Record<string, unknown>;
  if (typeof raw.bornHost !== "string" || raw.bornHost.trim() === "") {
    return { ok: false, problem: { code: "malformed", reason: "bornHost is missing or not a non-empty string" } };
  }
  if (typeof raw.body !== "string") return { ok: false, problem: { code: "malformed", reason: "body is missing or not a string" } };
  const problems: Problem[] = [];
  const message: TraceMessage = { bornHost: raw.bornHost, body: raw.body };
  const storeTimestamp = readStoreTimestamp(raw.storeTimestamp, problems);
  if (storeTimestamp !== undefined) message.storeTimestamp = storeTimestamp;
  if (typeof raw.msgId === "string") message.msgId = raw.msgId;
  else if (raw.msgId !== undefined && raw.msgId !== null) problems.push({ code: "invalid_field", reason: "msgId is not a string; ignored" });
  return { ok: true, message, problems };
}

/** Exports differ in whether they write numbers as JSON numbers or strings; both are accepted. */
function readStoreTimestamp(raw: unknown, problems: Problem[]): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const value = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number") {
    problems.push({ code: "invalid_field", reason: "storeTimestamp is not epoch milliseconds; ignored" });
    return undefined;
  }
  const problem = timestampProblem(value);
  if (problem === undefined) return value;
  problems.push({ code: "invalid_field", reason: `storeTimestamp ${value} ${problem}; ignored` });
  return undefined;
}

/** What one record says, before it is multiplied by its business keys. */
interface RecordEvent {
  kind: EventKind;
  ts: number;
  msgId: string | null;
  offsetMsgId: string | null;
  topic: string | null;
  group: string | null;
  retryTimes: number | null;
  success: boolean | null;
  keys: string[];
  /** The record's own instance identity, which is more precise than bornHost (ip@instanceName). */
  clientHost: string | undefined;
  /** A new object for each record: expand adds the message's fields to it rather than copying it. */
  detail: { [key: string]: DetailValue };
}

function msgTypeName(ordinal: number): string {
  return MSG_TYPES[ordinal] ?? `unknown(${ordinal})`;
}

function fromPub(record: PubRecord): RecordEvent {
  return {
    kind: "publish",
    ts: record.timeStamp,
    msgId: textOrNull(record.msgId),
    offsetMsgId: textOrNull(record.offsetMsgId),
    topic: textOrNull(record.topic),
    group: null,
    retryTimes: null,
    success: record.success ?? null,
    keys: record.keys,
    clientHost: record.clientHost,
    detail: {
      producerGroup: record.producerGroup,
      tags: record.tags,
      storeHost: record.storeHost,
      bodyLength: record.bodyLength,
      costTime: record.costTime,
      msgType: msgTypeName(record.msgType),
      regionId: record.regionId,
    },
  };
}

function fromSubBefore(record: SubBeforeRecord): RecordEvent {
  return {
    kind: "consume_start",
    ts: record.timeStamp,
    msgId: textOrNull(record.msgId),
    offsetMsgId: null,
    topic: null,
    group: textOrNull(record.consumerGroup),
    retryTimes: record.retryTimes,
    success: null,
    keys: record.keys,
    clientHost: record.clientHost,
    detail: { requestId: record.requestId, regionId: record.regionId },
  };
}

/** SubAfter has no end time in cloud and old layouts; the broker's store time is then the closest bound (a few seconds late: traces flush every 5 s). */
function fromSubAfter(record: SubAfterRecord, storeTimestamp: number | undefined): RecordEvent | Problem {
  const ts = record.timeStamp ?? storeTimestamp;
  if (ts === undefined) {
    return { code: "invalid_field", reason: "SubAfter has no end timeStamp (cloud or old client layout) and the trace message has no storeTimestamp" };
  }
  const contextCode = record.contextCode ?? null;
  return {
    kind: "consume_end",
    ts,
    msgId: textOrNull(record.msgId),
    offsetMsgId: null,
    topic: null,
    group: textOrNull(record.consumerGroup),
    retryTimes: null,
    success: record.success,
    keys: record.keys,
    clientHost: undefined,
    detail: {
      requestId: record.requestId,
      costTime: record.costTime,
      contextCode,
      contextName: contextCode === null ? null : (CONTEXT_CODES[contextCode] ?? `unknown(${contextCode})`),
      ...(record.timeStamp === undefined ? { tsSource: "storeTimestamp" } : {}),
    },
  };
}

function fromEndTransaction(record: EndTransactionRecord): RecordEvent {
  return {
    kind: "transaction",
    ts: record.timeStamp,
    msgId: textOrNull(record.msgId),
    offsetMsgId: null,
    topic: textOrNull(record.topic),
    group: null,
    retryTimes: null,
    success: null,
    keys: record.keys,
    clientHost: undefined,
    detail: {
      transactionId: record.transactionId,
      transactionState: record.transactionState,
      fromTransactionCheck: record.fromTransactionCheck,
      producerGroup: record.producerGroup,
      msgType: msgTypeName(record.msgType),
      tags: record.tags,
      storeHost: record.storeHost,
      regionId: record.regionId,
    },
  };
}

/** A recall withdraws a timer message; it is flagged so diagnosis does not count it as a second publish. */
function fromRecall(record: RecallRecord): RecordEvent {
  return {
    kind: "publish",
    ts: record.timeStamp,
    msgId: textOrNull(record.msgId),
    offsetMsgId: null,
    topic: textOrNull(record.topic),
    group: null,
    retryTimes: null,
    success: record.success,
    keys: [],
    clientHost: undefined,
    detail: { recall: true, producerGroup: record.producerGroup, regionId: record.regionId },
  };
}

function toRecordEvent(record: TraceRecord, message: TraceMessage): RecordEvent | Problem {
  switch (record.type) {
    case "Pub":
      return fromPub(record);
    case "SubBefore":
      return fromSubBefore(record);
    case "SubAfter":
      return fromSubAfter(record, message.storeTimestamp);
    case "EndTransaction":
      return fromEndTransaction(record);
    case "Recall":
      return fromRecall(record);
  }
}

/** Java prints an InetSocketAddress as `/ip:port`; exports that copy it verbatim keep the slash. */
function hostOf(bornHost: string): string {
  return canonicalInstance(bornHost.trim().replace(/^\//, "")).canonical;
}

/** One event per distinct business key (the store is keyed by them), or one keyless event found by msgId. */
function expand(recordEvent: RecordEvent, type: TraceType, message: TraceMessage, bornHostIp: string, messageId: string, recordIndex: number, ctx: ParseContext): NormalizedEvent[] {
  const { kind, ts, msgId, offsetMsgId, topic, group, retryTimes, success, keys, clientHost, detail } = recordEvent;
  const instanceRaw = clientHost ?? message.bornHost;
  const instance = clientHost === undefined ? bornHostIp : canonicalInstance(clientHost).canonical;
  const bizKeys = keys.length > 0 ? [...new Set(keys)] : [null];
  // Added in place: a copy made with a spread costs more than the rest of the record's parsing together.
  detail.instanceRaw = instanceRaw;
  detail.traceRecord = type;
  if (message.msgId !== undefined) detail.traceMsgId = message.msgId;
  return bizKeys.map((bizKey, keyIndex) => ({
    id: `${messageId}.${recordIndex}.${keyIndex}`,
    kind,
    ts,
    tsPrecision: "ms",
    bizKey,
    msgId,
    offsetMsgId,
    broker: "rocketmq",
    topic,
    group,
    queue: null,
    queueOffset: null,
    instance,
    retryTimes,
    redelivered: null,
    success,
    // Events of one record's keys share one detail: nothing changes a detail once parsed.
    detail,
    source: ctx.source,
  }));
}

function isProblem(value: RecordEvent | Problem): value is Problem {
  return "reason" in value;
}

function recordEvents(fields: readonly string[], recordIndex: number, message: TraceMessage, bornHostIp: string, messageId: string, ctx: ParseContext): NormalizedEvent[] | Problem {
  const parsed = parseTraceRecord(fields);
  if (!parsed.ok) return { code: parsed.code, reason: parsed.reason };
  const recordEvent = toRecordEvent(parsed.record, message);
  if (isProblem(recordEvent)) return recordEvent;
  if (recordEvent.msgId === null && recordEvent.keys.length === 0) {
    return { code: "invalid_field", reason: `${parsed.record.type} has neither a msgId nor a business key, so no message could be found by it` };
  }
  return expand(recordEvent, parsed.record.type, message, bornHostIp, messageId, recordIndex, ctx);
}

/** A line gets one issue, so all of its problems go into one reason; the code is the first problem's. */
function lineIssue(lineNo: number, problems: Problem[]): ParseIssue | undefined {
  const first = problems[0];
  if (first === undefined) return undefined;
  return { line: lineNo, code: first.code, reason: problems.map((p) => p.reason).join("; ") };
}

/** Records of the body, with a bad record reported and skipped while the good ones still give events. */
function bodyEvents(message: TraceMessage, lineNo: number, ctx: ParseContext, problems: Problem[]): NormalizedEvent[] {
  const records = splitTraceBody(message.body);
  if (records.length === 0) {
    problems.push({ code: "malformed", reason: "body holds no trace record" });
    return [];
  }
  // Every encoder terminates every record, so an unterminated last record may have been cut off. The Java decoder
  // reads it all the same; so does this, when it reads as a whole record of its layout.
  const terminated = message.body.endsWith(FIELD_SPLITOR);
  // One hash per trace message, not per event: ids are `<message digest>.<record>.<key>`, stable because a body's
  // records and keys keep their order. The canonical host, not the raw bornHost, goes in: a trace producer's
  // retry resends the same body from another port.
  const bornHostIp = hostOf(message.bornHost);
  const messageId = recordFingerprint(FORMAT, bornHostIp, message.body);
  const events: NormalizedEvent[] = [];
  records.forEach((fields, index) => {
    // The Java decoder passes over records of a type it does not know (a newer client's) and empty ones.
    if (!isTraceType(fields[0] ?? "")) return;
    const result = recordEvents(fields, index, message, bornHostIp, messageId, ctx);
    if (Array.isArray(result)) {
      for (const event of result) events.push(event);
      return;
    }
    const cut = !terminated && index === records.length - 1 ? " (the last record is not terminated by \\u0002: a truncated body?)" : "";
    problems.push({ code: result.code, reason: `line ${lineNo}, record ${index + 1} of ${records.length}: ${result.reason}${cut}` });
  });
  return events;
}

/** One NDJSON line (one trace message) → its events, and at most one issue describing whatever was wrong. */
export function parseTraceMessage(line: string, lineNo: number, ctx: ParseContext): LineResult {
  const read = readTraceMessage(line);
  if (!read.ok) return { events: [], issue: lineIssue(lineNo, [read.problem]) };
  const problems = [...read.problems];
  const events = bodyEvents(read.message, lineNo, ctx, problems);
  const issue = lineIssue(lineNo, problems);
  if (issue !== undefined) return { events, issue };
  // Only records of types the decoder does not know: not an error, as for the Java decoder, but counted.
  return events.length === 0 ? { events, skipped: true } : { events };
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseTraceMessage(line, lineNo, ctx));
}

interface AttemptFacts {
  msgId: string;
  bizKey: string | null;
  group: string | null;
  instance: string | null;
  requestId: string;
  /** From SubBefore; null when only the end was traced. */
  retryTimes: number | null;
  /** From SubAfter; null when no end was traced (or, for contextCode, an old client that does not write it). */
  costTime: number | null;
  success: boolean | null;
  contextCode: number | null;
}

/** A consume attempt seen from one or both sides: trace records can be dropped, so either may be missing, never both. */
export type ConsumeAttempt = AttemptFacts & ({ start: NormalizedEvent; end?: NormalizedEvent } | { start?: undefined; end: NormalizedEvent });

function detailNumber(event: NormalizedEvent | undefined, key: string): number | null {
  const value = event?.detail[key];
  return typeof value === "number" ? value : null;
}

function attemptFacts(key: PairKey, start: NormalizedEvent | undefined, end: NormalizedEvent | undefined): AttemptFacts {
  return {
    ...key,
    group: start?.group ?? end?.group ?? null,
    instance: start?.instance ?? end?.instance ?? null,
    retryTimes: start?.retryTimes ?? null,
    costTime: detailNumber(end, "costTime"),
    success: end?.success ?? null,
    contextCode: detailNumber(end, "contextCode"),
  };
}

function attempt(key: PairKey, start: NormalizedEvent | undefined, end: NormalizedEvent | undefined): ConsumeAttempt | undefined {
  if (start !== undefined) {
    const facts = attemptFacts(key, start, end);
    return end === undefined ? { ...facts, start } : { ...facts, start, end };
  }
  return end === undefined ? undefined : { ...attemptFacts(key, undefined, end), end };
}

interface PairKey {
  requestId: string;
  msgId: string;
  bizKey: string | null;
}

interface Sides {
  key: PairKey;
  starts: NormalizedEvent[];
  ends: NormalizedEvent[];
}

function consumeSides(events: readonly NormalizedEvent[]): Map<string, Sides> {
  const sides = new Map<string, Sides>();
  const seen = new Set<string>();
  for (const event of events) {
    const record = event.detail.traceRecord;
    const requestId = event.detail.requestId;
    if ((record !== "SubBefore" && record !== "SubAfter") || typeof requestId !== "string" || event.msgId === null || seen.has(event.id)) continue;
    seen.add(event.id);
    const key: PairKey = { requestId, msgId: event.msgId, bizKey: event.bizKey };
    const id = JSON.stringify([requestId, event.msgId, event.bizKey]);
    const entry = sides.get(id) ?? { key, starts: [], ends: [] };
    (record === "SubBefore" ? entry.starts : entry.ends).push(event);
    sides.set(id, entry);
  }
  return sides;
}

const byTs = (a: NormalizedEvent, b: NormalizedEvent) => a.ts - b.ts;

/**
 * Pairs SubBefore/SubAfter events (consume_start/consume_end from this parser) into attempts by requestId, msgId
 * and bizKey. Two copies of one msgId in the same consume batch (a producer retry landing in one queue) share all
 * three, so starts and ends are paired in time order rather than merged. The same event given twice counts once.
 */
export function pairConsumeAttempts(events: readonly NormalizedEvent[]): ConsumeAttempt[] {
  const attempts: ConsumeAttempt[] = [];
  for (const { key, starts, ends } of consumeSides(events).values()) {
    starts.sort(byTs);
    ends.sort(byTs);
    for (let i = 0; i < Math.max(starts.length, ends.length); i++) {
      const paired = attempt(key, starts[i], ends[i]);
      if (paired !== undefined) attempts.push(paired);
    }
  }
  return attempts.sort((a, b) => (a.start ?? a.end).ts - (b.start ?? b.end).ts);
}
