import { ExportTraceServiceRequest } from "./protocol.ts";
import {
  OtlpDecodeError,
  SPAN_KINDS,
  STATUS_CODES,
  type AttrValue,
  type Attributes,
  type DecodedRequest,
  type OtlpSpan,
  type RejectedSpan,
  type SpanKind,
  type SpanLink,
  type StatusCode,
} from "./spans.ts";

/**
 * Decodes an OTLP/HTTP trace export request (opentelemetry-proto v1.9.0, collector/trace/v1) in either encoding:
 * protobuf through protobufjs and the official .proto files, JSON as the OTLP/JSON rules define it (ids as hex,
 * 64-bit integers as strings or numbers, enums as integers; unknown fields ignored). A body that is not a request
 * throws OtlpDecodeError; a span that cannot be read is listed in `rejected` and the others are kept.
 */

/** Attribute values nest (arrays, key-value lists); deeper than this is cut, as no messaging attribute nests. */
const MAX_DEPTH = 8;
const HEX_ID = { trace: /^[0-9a-f]{32}$/, span: /^[0-9a-f]{16}$/ };
const NO_ID = { trace: "0".repeat(32), span: "0".repeat(16) };

type IdEncoding = "hex" | "base64";
type Obj = Record<string, unknown>;

export function decodeProtobuf(body: Uint8Array): DecodedRequest {
  let message;
  try {
    message = ExportTraceServiceRequest.decode(body);
  } catch (error) {
    throw new OtlpDecodeError(`body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
  // bytes → base64 text and 64-bit integers → decimal text, so both encodings walk the same way below.
  const object = ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false, arrays: true });
  return walk(object, "base64");
}

export function decodeJson(text: string): DecodedRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`body is not JSON: ${(error as Error).message}`);
  }
  if (!isObj(value)) throw new OtlpDecodeError("body is not an OTLP ExportTraceServiceRequest: expected a JSON object");
  return walk(value, "hex");
}

function walk(request: Obj, ids: IdEncoding): DecodedRequest {
  const spans: OtlpSpan[] = [];
  const rejected: RejectedSpan[] = [];
  let index = 0;
  for (const rs of list(field(request, "resourceSpans", "resource_spans"), "resourceSpans")) {
    const resource = attributes(field(obj(field(rs, "resource"), "resource"), "attributes"));
    for (const ss of list(field(rs, "scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans"), "scopeSpans")) {
      const scopeObj = obj(field(ss, "scope", "instrumentationLibrary", "instrumentation_library"), "scope");
      const scope = { name: str(field(scopeObj, "name")), version: str(field(scopeObj, "version")) };
      for (const raw of list(field(ss, "spans"), "spans")) {
        const at = index++;
        const span = readSpan(raw, ids, resource, scope);
        if (typeof span === "string") rejected.push({ index: at, reason: span });
        else spans.push(span);
      }
    }
  }
  return { spans, rejected };
}

function readSpan(raw: unknown, ids: IdEncoding, resource: Attributes, scope: OtlpSpan["scope"]): OtlpSpan | string {
  if (!isObj(raw)) return "a span must be an object";
  const traceId = id(field(raw, "traceId", "trace_id"), ids, "trace");
  if (traceId === null) return "traceId must be 16 bytes and not all zero";
  const spanId = id(field(raw, "spanId", "span_id"), ids, "span");
  if (spanId === null) return "spanId must be 8 bytes and not all zero";
  const parent = field(raw, "parentSpanId", "parent_span_id");
  const parentSpanId = parent === undefined || parent === "" ? null : id(parent, ids, "span");
  const start = nanos(field(raw, "startTimeUnixNano", "start_time_unix_nano"));
  if (start === null || start === 0n) return "startTimeUnixNano must be a positive 64-bit integer";
  const end = nanos(field(raw, "endTimeUnixNano", "end_time_unix_nano")) ?? start;
  const status = obj(field(raw, "status"), "status");
  return {
    traceId,
    spanId,
    parentSpanId,
    name: str(field(raw, "name")),
    kind: enumOf(field(raw, "kind"), SPAN_KINDS, "SPAN_KIND_") as SpanKind,
    startMs: Number(start / 1_000_000n),
    endMs: Number((end < start ? start : end) / 1_000_000n),
    startNs: start.toString(),
    status: { code: enumOf(field(status, "code"), STATUS_CODES, "STATUS_CODE_") as StatusCode, message: str(field(status, "message")) },
    attributes: attributes(field(raw, "attributes")),
    links: links(field(raw, "links"), ids),
    events: list(field(raw, "events"), "events").flatMap((e) => {
      const time = nanos(field(e, "timeUnixNano", "time_unix_nano"));
      return time === null ? [] : [{ name: str(field(e, "name")), timeMs: Number(time / 1_000_000n), attributes: attributes(field(e, "attributes")) }];
    }),
    resource,
    scope,
  };
}

function links(value: unknown, ids: IdEncoding): SpanLink[] {
  return list(value, "links").flatMap((l) => {
    const traceId = id(field(l, "traceId", "trace_id"), ids, "trace");
    const spanId = id(field(l, "spanId", "span_id"), ids, "span");
    return traceId === null || spanId === null ? [] : [{ traceId, spanId, attributes: attributes(field(l, "attributes")) }];
  });
}

/** KeyValue[] → a record; the last of repeated keys wins, as in the SDKs. */
function attributes(value: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of list(value, "attributes")) {
    const key = field(kv, "key");
    if (typeof key === "string" && key !== "") out[key] = anyValue(field(kv, "value"), 0);
  }
  return out;
}

function anyValue(value: unknown, depth: number): AttrValue {
  if (!isObj(value)) return null;
  if (depth >= MAX_DEPTH) return null;
  const s = field(value, "stringValue", "string_value");
  if (typeof s === "string") return s;
  const b = field(value, "boolValue", "bool_value");
  if (typeof b === "boolean") return b;
  const i = field(value, "intValue", "int_value");
  if (i !== undefined) {
    const n = Number(i);
    // An int64 beyond 2^53 (an offset never is) stays text rather than lose digits.
    return Number.isSafeInteger(n) ? n : typeof i === "string" ? i : null;
  }
  const d = field(value, "doubleValue", "double_value");
  if (d !== undefined) return typeof d === "number" ? d : Number.isFinite(Number(d)) ? Number(d) : String(d);
  const arr = field(value, "arrayValue", "array_value");
  if (arr !== undefined) return list(field(arr, "values"), "values").map((v) => anyValue(v, depth + 1));
  const kvl = field(value, "kvlistValue", "kvlist_value");
  if (kvl !== undefined) {
    const out: { [key: string]: AttrValue } = {};
    for (const kv of list(field(kvl, "values"), "values")) {
      const key = field(kv, "key");
      if (typeof key === "string") out[key] = anyValue(field(kv, "value"), depth + 1);
    }
    return out;
  }
  const bytes = field(value, "bytesValue", "bytes_value");
  if (typeof bytes === "string") return bytes;
  return null;
}

function id(value: unknown, encoding: IdEncoding, what: "trace" | "span"): string | null {
  if (typeof value !== "string" || value === "") return null;
  const hex = encoding === "hex" ? value.toLowerCase() : Buffer.from(value, "base64").toString("hex");
  return HEX_ID[what].test(hex) && hex !== NO_ID[what] ? hex : null;
}

function nanos(value: unknown): bigint | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0 || value >= 2 ** 64) return null;
    if (Number.isSafeInteger(value)) return BigInt(value);
    // Today's times in ns exceed 2^53: JSON.parse kept them to ~256 ns, either side of the true value, so the
    // nearest millisecond is the one meant (truncating would turn …050000000 into …049999872, a ms early).
    return BigInt(Math.round(value / 1e6)) * 1_000_000n;
  }
  if (typeof value === "string" && /^\d{1,20}$/.test(value)) {
    const n = BigInt(value);
    return n < 2n ** 64n ? n : null;
  }
  return null;
}

/** An enum as its number (OTLP/JSON) or, leniently, its name ("SPAN_KIND_CONSUMER"); unknown values read as the first. */
function enumOf(value: unknown, names: readonly string[], prefix: string): string {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < names.length) return names[value]!;
  if (typeof value === "string") {
    const name = value.startsWith(prefix) ? value.slice(prefix.length).toLowerCase() : value.toLowerCase();
    if (names.includes(name)) return name;
  }
  return names[0]!;
}

function field(o: unknown, ...names: string[]): unknown {
  if (!isObj(o)) return undefined;
  for (const name of names) if (o[name] !== undefined && o[name] !== null) return o[name];
  return undefined;
}

function obj(value: unknown, what: string): Obj {
  if (value === undefined) return {};
  if (!isObj(value)) throw new OtlpDecodeError(`${what} must be an object`);
  return value;
}

function list(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${what} must be an array`);
  return value;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
