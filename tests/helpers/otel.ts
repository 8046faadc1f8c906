import { context, trace, type Attributes, type Link, type SpanKind, type SpanStatus } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

/**
 * Spans made by the real OpenTelemetry JS SDK and encoded by its own OTLP serializers, exactly as an exporter
 * would send them to POST /v1/traces. Each recorder is one process: one resource, one tracer provider.
 */

export interface SpanSpec {
  name: string;
  kind: SpanKind;
  start: number;
  end: number;
  attributes: Attributes;
  status?: SpanStatus;
  links?: Link[];
  /** A span made by this recorder to parent this one (process spans are children of the send span). */
  parent?: ReadableSpan;
}

export class SpanRecorder {
  private readonly exporter = new InMemorySpanExporter();
  private readonly provider: BasicTracerProvider;

  constructor(resource: Attributes, scope = "dupscope-tests") {
    this.provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
    this.scope = scope;
  }

  private readonly scope: string;

  span(spec: SpanSpec): ReadableSpan {
    const tracer = this.provider.getTracer(this.scope, "1.0.0");
    const parentContext = spec.parent ? trace.setSpanContext(context.active(), spec.parent.spanContext()) : context.active();
    const span = tracer.startSpan(spec.name, { kind: spec.kind, attributes: spec.attributes, startTime: spec.start, links: spec.links ?? [] }, parentContext);
    if (spec.status) span.setStatus(spec.status);
    span.end(spec.end);
    const finished = this.exporter.getFinishedSpans();
    return finished[finished.length - 1]!;
  }

  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }
}

/** The request body an OTLP/HTTP protobuf exporter sends for these spans. */
export function protobufBody(spans: ReadableSpan[]): Uint8Array {
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error("the SDK serialized nothing");
  return body;
}

/** The request body an OTLP/HTTP JSON exporter sends for these spans. */
export function jsonBody(spans: ReadableSpan[]): string {
  const body = JsonTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error("the SDK serialized nothing");
  return new TextDecoder().decode(body);
}

/** A link to a span's context: what a process span carries to the send span that created its message. */
export function linkTo(span: ReadableSpan): Link {
  return { context: span.spanContext() };
}
