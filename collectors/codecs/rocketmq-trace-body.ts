import { LIMITS } from "../../lib/events/limits.ts";
import { MAX_TS, MIN_TS } from "../../lib/events/model.ts";
import type { ParseIssueCode } from "../types.ts";

/**
 * The RocketMQ message-trace body codec: a body is a batch of records, each a list of fields joined by `\u0001` and
 * ended by `\u0002`, as TraceDataEncoder writes and decodes them (layouts and sources in
 * collectors/rocketmq-trace/README.md and docs/formats.md §1). Pure text ⇄ typed records: the rocketmq-trace
 * collector (collectors/rocketmq-trace/parse.ts) decodes with it and maps records to normalized events; the
 * simulator (lib/simulator/writers/trace.ts) and the fixture generators encode with formatTraceRecord.
 */

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
export function timestampProblem(value: number): string | undefined {
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
export function textOrNull(raw: string | undefined): string | null {
  return raw === undefined || raw.trim() === "" || raw === "null" ? null : raw;
}

export function isTraceType(value: string): value is TraceType {
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
  // The tail is added in place: a spread into a new object costs as much as reading the whole record.
  const record: PubFields & { offsetMsgId?: string; success?: boolean; clientHost?: string } = fields;
  if (count === 13) record.success = r.bool(12);
  else {
    record.offsetMsgId = r.text(12);
    record.success = r.bool(13);
    if (count === 15) record.clientHost = r.text(14);
  }
  return record as PubRecord;
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
  if (count === 9) record.clientHost = r.text(8);
  return record;
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
  const record: SubAfterFields & { contextCode?: number; timeStamp?: number; consumerGroup?: string } = fields;
  record.contextCode = r.count(6, "contextCode");
  if (count === 9) {
    record.timeStamp = r.timestamp(7, "timeStamp");
    record.consumerGroup = r.text(8);
  }
  return record as SubAfterRecord;
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
