import { canonicalInstance } from "../../lib/events/instance.ts";
import { LIMITS } from "../../lib/events/limits.ts";
import { MAX_TS, MIN_TS, type DetailValue, type EventKind, type NormalizedEvent } from "../../lib/events/model.ts";
import { recordFingerprint } from "../fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseIssue, type ParseIssueCode, type ParseResult } from "../types.ts";

/**
 * RocketMQ message-trace bodies (topic RMQ_SYS_TRACE_TOPIC; see README.md for the layouts and their sources). Input is NDJSON,
 * one trace message per line: `{bornHost, body, storeTimestamp?, msgId?}`. The bornHost travels with the body
 * because in Java clients 4.9+ it is the only consumer identity a trace has.
 */

const FORMAT = "rocketmq-trace";
export const CONTENT_SPLITOR = "\u0001";
export const FIELD_SPLITOR = "\u0002";

/** Ordinals of the Java MessageType enum, as written in Pub/EndTransaction field msgType. */
export const MSG_TYPES = ["Normal_Msg", "Trans_Msg_Half", "Trans_msg_Commit", "Delay_Msg", "Order_Msg"] as const;
/** Ordinals of ConsumeReturnType, as written in SubAfter field contextCode. */
export const CONTEXT_CODES = ["SUCCESS", "TIME_OUT", "EXCEPTION", "RETURNNULL", "FAILED"] as const;

export const TRACE_TYPES = ["Pub", "SubBefore", "SubAfter", "EndTransaction", "Recall"] as const;
export type TraceType = (typeof TRACE_TYPES)[number];

/** Field counts each client generation writes (after Java's split has dropped trailing empty fields). */
export const FIELD_COUNTS: Record<TraceType, readonly number[]> = {
  Pub: [12, 13, 14, 15],
  SubBefore: [8, 9],
  SubAfter: [6, 7, 9],
  EndTransaction: [13],
  Recall: [7],
};

/**
 * Counts that only arise when the record's last field was an empty text field that Java's split dropped
 * (SubBefore/SubAfter with empty keys, SubAfter with an empty consumer group), mapped to the layout they came from.
 */
const SHORT_BY_EMPTY_TAIL: Partial<Record<TraceType, Readonly<Record<number, number>>>> = {
  SubBefore: { 7: 8 },
  SubAfter: { 5: 6, 8: 9 },
};

interface PubFields {
  type: "Pub";
  timeStamp: number;
  regionId: string;
  producerGroup: string;
  topic: string;
  msgId: string;
  tags: string | null;
  keys: string[];
  storeHost: string;
  bodyLength: number;
  costTime: number;
  msgType: number;
}

/** The tail depends on the client: V1 (12 fields) has none, older clients (13) only success, 4.9+ (14) offsetMsgId and success, 4.8.0/Go (15) also clientHost. */
type PubTail =
  | { offsetMsgId?: undefined; success?: undefined; clientHost?: undefined }
  | { offsetMsgId?: undefined; success: boolean; clientHost?: undefined }
  | { offsetMsgId: string; success: boolean; clientHost?: string };

export type PubRecord = PubFields & PubTail;

export interface SubBeforeRecord {
  type: "SubBefore";
  timeStamp: number;
  regionId: string;
  consumerGroup: string;
  requestId: string;
  msgId: string;
  retryTimes: number;
  keys: string[];
  /** Only Java 4.8.0 and the Go client write it (their clientId, `ip@instanceName`). */
  clientHost?: string;
}

interface SubAfterFields {
  type: "SubAfter";
  requestId: string;
  msgId: string;
  /** Batch total divided by batch size. */
  costTime: number;
  success: boolean;
  keys: string[];
}

/** Old clients (6 fields) stop after keys; the cloud channel (7) adds contextCode; the rest (9) also the end time and group. */
type SubAfterTail =
  | { contextCode?: undefined; timeStamp?: undefined; consumerGroup?: undefined }
  | { contextCode: number; timeStamp?: undefined; consumerGroup?: undefined }
  | { contextCode: number; timeStamp: number; consumerGroup: string };

export type SubAfterRecord = SubAfterFields & SubAfterTail;

export interface EndTransactionRecord {
  type: "EndTransaction";
  timeStamp: number;
  regionId: string;
  producerGroup: string;
  topic: string;
  msgId: string;
  tags: string | null;
  keys: string[];
  storeHost: string;
  msgType: number;
  transactionId: string;
  /** COMMIT_MESSAGE, ROLLBACK_MESSAGE or UNKNOW, kept as written. */
  transactionState: string;
  fromTransactionCheck: boolean;
}

export interface RecallRecord {
  type: "Recall";
  timeStamp: number;
  regionId: string;
  producerGroup: string;
  topic: string;
  msgId: string;
  success: boolean;
}

export type TraceRecord = PubRecord | SubBeforeRecord | SubAfterRecord | EndTransactionRecord | RecallRecord;

export type TraceRecordResult = { ok: true; record: TraceRecord } | { ok: false; code: ParseIssueCode; reason: string };

/**
 * Records of a body as field arrays, split the way the Java decoder splits them: trailing empty fields are
 * dropped, so field counts match the layouts clients are known to write. Text after the last `\u0002` is kept as
 * a final record; callers decide whether an unterminated record is trustworthy.
 */
export function splitTraceBody(body: string): string[][] {
  const chunks = body.split(FIELD_SPLITOR);
  if (chunks[chunks.length - 1] === "") chunks.pop();
  return chunks.map((chunk) => dropTrailingEmpty(chunk.split(CONTENT_SPLITOR)));
}

function dropTrailingEmpty(fields: string[]): string[] {
  let end = fields.length;
  while (end > 0 && fields[end - 1] === "") end--;
  return fields.slice(0, end);
}

/** Reads typed fields by position and collects every bad one, so one issue names all of a record's problems. */
class FieldReader {
  readonly problems: string[] = [];

  constructor(private readonly fields: readonly string[]) {}

  text(index: number): string {
    return this.fields[index] ?? "";
  }

  count(index: number, name: string): number {
    const raw = this.text(index);
    const value = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(value)) return value;
    this.problems.push(`${name} "${clip(raw)}" is not a whole number`);
    return 0;
  }

  timestamp(index: number, name: string): number {
    const raw = this.text(index);
    if (!/^\d+$/.test(raw)) {
      this.problems.push(`${name} "${clip(raw)}" is not epoch milliseconds`);
      return 0;
    }
    const problem = timestampProblem(Number(raw));
    if (problem !== undefined) this.problems.push(`${name} ${clip(raw)} ${problem}`);
    return Number(raw);
  }

  /** As Java's Boolean.parseBoolean reads it: `true` in any case is true, anything else false. */
  bool(index: number): boolean {
    return this.text(index).toLowerCase() === "true";
  }
}

/** Why an epoch-ms value cannot be a trace time, with a hint for the usual unit mistakes; undefined when it can. */
function timestampProblem(value: number): string | undefined {
  if (!Number.isSafeInteger(value)) return "is not a whole number of milliseconds";
  if (value >= MIN_TS && value < MAX_TS) return undefined;
  if (value >= MIN_TS / 1000 && value < MAX_TS / 1000) return "is outside 2000-01-01..2100-01-01 (looks like epoch seconds; traces carry milliseconds)";
  if (value >= MIN_TS * 1000 && value < MAX_TS * 1000) return "is outside 2000-01-01..2100-01-01 (looks like epoch microseconds; traces carry milliseconds)";
  return "is outside 2000-01-01..2100-01-01";
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** `keys` is space separated (MessageConst.KEY_SEPARATOR); Java writes a missing value as the text "null". */
function splitKeys(raw: string): string[] {
  return raw.split(" ").filter((key) => key !== "" && key !== "null");
}

/** Java writes an unset value as the text "null"; blank text says as little. */
function textOrNull(raw: string | undefined): string | null {
  return raw === undefined || raw.trim() === "" || raw === "null" ? null : raw;
}

function isTraceType(value: string): value is TraceType {
  return (TRACE_TYPES as readonly string[]).includes(value);
}

function readPub(r: FieldReader, count: number): PubRecord {
  const fields: PubFields = {
    type: "Pub",
    timeStamp: r.timestamp(1, "timeStamp"),
    regionId: r.text(2),
    producerGroup: r.text(3),
    topic: r.text(4),
    msgId: r.text(5),
    tags: textOrNull(r.text(6)),
    keys: splitKeys(r.text(7)),
    storeHost: r.text(8),
    bodyLength: r.count(9, "bodyLength"),
    costTime: r.count(10, "costTime"),
    msgType: r.count(11, "msgType"),
  };
  if (count === 12) return fields;
  if (count === 13) return { ...fields, success: r.bool(12) };
  const withOffset = { ...fields, offsetMsgId: r.text(12), success: r.bool(13) };
  return count === 15 ? { ...withOffset, clientHost: r.text(14) } : withOffset;
}

function readSubBefore(r: FieldReader, count: number): SubBeforeRecord {
  const record: SubBeforeRecord = {
    type: "SubBefore",
    timeStamp: r.timestamp(1, "timeStamp"),
    regionId: r.text(2),
    consumerGroup: r.text(3),
    requestId: r.text(4),
    msgId: r.text(5),
    retryTimes: r.count(6, "retryTimes"),
    keys: splitKeys(r.text(7)),
  };
  return count === 9 ? { ...record, clientHost: r.text(8) } : record;
}

function readSubAfter(r: FieldReader, count: number): SubAfterRecord {
  const fields: SubAfterFields = {
    type: "SubAfter",
    requestId: r.text(1),
    msgId: r.text(2),
    costTime: r.count(3, "costTime"),
    success: r.bool(4),
    keys: splitKeys(r.text(5)),
  };
  if (count === 6) return fields;
  const contextCode = r.count(6, "contextCode");
  if (count === 7) return { ...fields, contextCode };
  return { ...fields, contextCode, timeStamp: r.timestamp(7, "timeStamp"), consumerGroup: r.text(8) };
}

function readEndTransaction(r: FieldReader): EndTransactionRecord {
  return {
    type: "EndTransaction",
    timeStamp: r.timestamp(1, "timeStamp"),
    regionId: r.text(2),
    producerGroup: r.text(3),
    topic: r.text(4),
    msgId: r.text(5),
    tags: textOrNull(r.text(6)),
    keys: splitKeys(r.text(7)),
    storeHost: r.text(8),
    msgType: r.count(9, "msgType"),
    transactionId: r.text(10),
    transactionState: r.text(11),
    fromTransactionCheck: r.bool(12),
  };
}

function readRecall(r: FieldReader): RecallRecord {
  return {
    type: "Recall",
    timeStamp: r.timestamp(1, "timeStamp"),
    regionId: r.text(2),
    producerGroup: r.text(3),
    topic: r.text(4),
    msgId: r.text(5),
    success: r.bool(6),
  };
}

function readRecord(type: TraceType, r: FieldReader, count: number): TraceRecord {
  switch (type) {
    case "Pub":
      return readPub(r, count);
    case "SubBefore":
      return readSubBefore(r, count);
    case "SubAfter":
      return readSubAfter(r, count);
    case "EndTransaction":
      return readEndTransaction(r);
    case "Recall":
      return readRecall(r);
  }
}

/**
 * The layout a record of `length` fields was written in. As the Java decoder does, fields past the longest layout are
 * ignored (a newer client's additions).
 */
function layoutOf(type: TraceType, length: number): number | undefined {
  const counts = FIELD_COUNTS[type];
  if (counts.includes(length)) return length;
  const longest = counts[counts.length - 1]!;
  if (length > longest) return longest;
  return SHORT_BY_EMPTY_TAIL[type]?.[length];
}

function expectedCounts(type: TraceType): string {
  const counts = FIELD_COUNTS[type].map(String);
  return counts.length === 1 ? counts[0]! : `${counts.slice(0, -1).join(", ")} or ${counts[counts.length - 1]}`;
}

/** One record's fields (as splitTraceBody gives them) → a typed record, or why it is not one. */
export function parseTraceRecord(fields: readonly string[]): TraceRecordResult {
  const type = fields[0] ?? "";
  if (!isTraceType(type)) {
    return { ok: false, code: "malformed", reason: type === "" ? "empty record" : `unknown record type "${clip(type)}"` };
  }
  if (fields.length > LIMITS.fieldsPerRecord) {
    return { ok: false, code: "malformed", reason: `${type} has ${fields.length} fields; the limit is ${LIMITS.fieldsPerRecord}` };
  }
  const count = layoutOf(type, fields.length);
  if (count === undefined) {
    return { ok: false, code: "malformed", reason: `${type} has ${fields.length} fields, expected ${expectedCounts(type)}` };
  }
  const reader = new FieldReader(fields);
  const record = readRecord(type, reader, count);
  if ("keys" in record && record.keys.length > LIMITS.keysPerRecord) {
    reader.problems.push(`keys holds ${record.keys.length} business keys; the limit is ${LIMITS.keysPerRecord}`);
  }
  if (reader.problems.length > 0) return { ok: false, code: "invalid_field", reason: `${type}: ${reader.problems.join(", ")}` };
  return { ok: true, record };
}

function keysText(keys: readonly string[]): string {
  return keys.length > 0 ? keys.join(" ") : "null";
}

/** The fields of a record in the order its layout writes them; optional tails pick the matching client layout. */
function recordFields(record: TraceRecord): (string | number | boolean)[] {
  switch (record.type) {
    case "Pub": {
      const head = [record.type, record.timeStamp, record.regionId, record.producerGroup, record.topic, record.msgId, record.tags ?? "null", keysText(record.keys), record.storeHost, record.bodyLength, record.costTime, record.msgType];
      if (record.offsetMsgId !== undefined) return [...head, record.offsetMsgId, record.success, ...(record.clientHost ? [record.clientHost] : [])];
      return record.success === undefined ? head : [...head, record.success];
    }
    case "SubBefore": {
      const head = [record.type, record.timeStamp, record.regionId, record.consumerGroup, record.requestId, record.msgId, record.retryTimes, keysText(record.keys)];
      return record.clientHost ? [...head, record.clientHost] : head;
    }
    case "SubAfter": {
      const head = [record.type, record.requestId, record.msgId, record.costTime, record.success, keysText(record.keys)];
      if (record.contextCode === undefined) return head;
      // The cloud channel leaves a separator after contextCode, as the Java encoder does.
      if (record.timeStamp === undefined) return [...head, record.contextCode, ""];
      return [...head, record.contextCode, record.timeStamp, record.consumerGroup];
    }
    case "EndTransaction":
      return [record.type, record.timeStamp, record.regionId, record.producerGroup, record.topic, record.msgId, record.tags ?? "null", keysText(record.keys), record.storeHost, record.msgType, record.transactionId, record.transactionState, record.fromTransactionCheck];
    case "Recall":
      return [record.type, record.timeStamp, record.regionId, record.producerGroup, record.topic, record.msgId, record.success];
  }
}

/** A typed record as trace-body text, terminator included; concatenate several for a batched body. */
export function formatTraceRecord(record: TraceRecord): string {
  return recordFields(record).map(String).join(CONTENT_SPLITOR) + FIELD_SPLITOR;
}

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
function expand(recordEvent: RecordEvent, type: TraceType, message: TraceMessage, messageId: string, recordIndex: number, ctx: ParseContext): NormalizedEvent[] {
  const { kind, ts, msgId, offsetMsgId, topic, group, retryTimes, success, keys, clientHost, detail } = recordEvent;
  const bornHostIp = hostOf(message.bornHost);
  const instanceRaw = clientHost ?? message.bornHost;
  const instance = clientHost === undefined ? bornHostIp : canonicalInstance(clientHost).canonical;
  const bizKeys = keys.length > 0 ? [...new Set(keys)] : [null];
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
    detail: { ...detail, instanceRaw, traceRecord: type, ...(message.msgId === undefined ? {} : { traceMsgId: message.msgId }) },
    source: ctx.source,
  }));
}

function isProblem(value: RecordEvent | Problem): value is Problem {
  return "reason" in value;
}

function recordEvents(fields: readonly string[], recordIndex: number, message: TraceMessage, messageId: string, ctx: ParseContext): NormalizedEvent[] | Problem {
  const parsed = parseTraceRecord(fields);
  if (!parsed.ok) return { code: parsed.code, reason: parsed.reason };
  const recordEvent = toRecordEvent(parsed.record, message);
  if (isProblem(recordEvent)) return recordEvent;
  if (recordEvent.msgId === null && recordEvent.keys.length === 0) {
    return { code: "invalid_field", reason: `${parsed.record.type} has neither a msgId nor a business key, so no message could be found by it` };
  }
  return expand(recordEvent, parsed.record.type, message, messageId, recordIndex, ctx);
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
  const messageId = recordFingerprint(FORMAT, hostOf(message.bornHost), message.body);
  const events: NormalizedEvent[] = [];
  records.forEach((fields, index) => {
    const where = `line ${lineNo}, record ${index + 1} of ${records.length}`;
    // The Java decoder passes over records of a type it does not know (a newer client's) and empty ones.
    if (!isTraceType(fields[0] ?? "")) return;
    const result = recordEvents(fields, index, message, messageId, ctx);
    const cut = !terminated && index === records.length - 1 ? " (the last record is not terminated by \\u0002: a truncated body?)" : "";
    if (Array.isArray(result)) events.push(...result);
    else problems.push({ code: result.code, reason: `${where}: ${result.reason}${cut}` });
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
