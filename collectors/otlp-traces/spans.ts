/**
 * Spans as an OTLP export request carries them, flattened: each span with its resource's and scope's attributes,
 * ids as lower-case hex, times in epoch milliseconds (and the exact nanoseconds as text). The protobuf and the JSON
 * encoding both decode to this (decode.ts); mapping to events (map.ts) reads only this.
 */

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

/** opentelemetry.proto.trace.v1.Span.SpanKind */
export const SPAN_KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** opentelemetry.proto.trace.v1.Status.StatusCode */
export const STATUS_CODES = ["unset", "ok", "error"] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

export interface SpanEvent {
  name: string;
  timeMs: number;
  attributes: Attributes;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  startMs: number;
  endMs: number;
  /** The exact start, nanoseconds since the epoch as decimal text: two spans in one millisecond stay ordered. */
  startNs: string;
  status: { code: StatusCode; message: string };
  attributes: Attributes;
  links: SpanLink[];
  events: SpanEvent[];
  resource: Attributes;
  scope: { name: string; version: string };
}

/** A span the request carried but that cannot be read (a missing id, no start time), by its place in the request. */
export interface RejectedSpan {
  index: number;
  reason: string;
}

export interface DecodedRequest {
  spans: OtlpSpan[];
  rejected: RejectedSpan[];
}

/** The body is not an export request at all: the receiver answers 400 and stores nothing. */
export class OtlpDecodeError extends Error {
  override name = "OtlpDecodeError";
}
