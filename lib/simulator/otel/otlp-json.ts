import type { Rng } from "../random.ts";

/**
 * OTLP/JSON export requests as an SDK's exporter writes them (opentelemetry-proto docs/specification.md: ids as
 * lower-case hex, times as decimal nanosecond strings, enums as integers), built here without the SDK so the
 * simulator stays free of test-only packages. collectors/otlp-traces reads them back.
 */

export type SimAttr = string | number | boolean | string[];
export type SimAttributes = Record<string, SimAttr>;

export const SPAN_KIND = { producer: 4, consumer: 5 } as const;

export interface SimSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  /** Epoch ms as the process's clock read them. */
  start: number;
  end: number;
  attributes: SimAttributes;
  error?: string;
  links?: { traceId: string; spanId: string }[];
}

/** One process's spans of one instrumentation: a resource and a scope, as one exporter batch carries them. */
export interface SimBatch {
  resource: SimAttributes;
  scope: string;
  spans: SimSpan[];
}

export function hexId(rng: Rng, bytes: 8 | 16): string {
  let out = "";
  while (out.length < bytes * 2) out += Math.floor(rng.next() * 0x100000000).toString(16).padStart(8, "0");
  return out.slice(0, bytes * 2);
}

function value(v: SimAttr): Record<string, unknown> {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
}

const attributes = (a: SimAttributes) => Object.entries(a).map(([key, v]) => ({ key, value: value(v) }));
const nanos = (ms: number) => `${ms}000000`;

/** One ExportTraceServiceRequest line: the batch's spans under its resource and scope. */
export function requestLine(batch: SimBatch): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributes(batch.resource) },
        scopeSpans: [
          {
            scope: { name: batch.scope, version: "2.31.0-alpha" },
            spans: batch.spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId === undefined ? {} : { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: nanos(s.start),
              endTimeUnixNano: nanos(s.end),
              attributes: attributes(s.attributes),
              ...(s.links === undefined ? {} : { links: s.links.map((l) => ({ traceId: l.traceId, spanId: l.spanId })) }),
              status: s.error === undefined ? {} : { code: 2, message: s.error },
            })),
          },
        ],
      },
    ],
  });
}
