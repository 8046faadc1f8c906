import { lineByLine, type LineParser, type LineResult, type ParseContext } from "../types.ts";
import { decodeJson } from "./decode.ts";
import { keyRulesFromEnv, mapSpans, type KeyRule } from "./map.ts";
import { OtlpDecodeError } from "./spans.ts";

/**
 * `otlp-traces` files: one OTLP/JSON ExportTraceServiceRequest per line, what the OpenTelemetry Collector's `file`
 * exporter writes. The same decoding and mapping as POST /v1/traces (map.ts), so a span that arrives both ways is
 * one event: its source is its service (`otlp-traces:<service.name>`), its instance from its resource, whatever the
 * input's name. A line that is not a request is reported by number, a span that cannot be read too, and the rest
 * is kept.
 */
export function openOtlpTraces(_ctx: ParseContext, keys?: readonly KeyRule[]): LineParser {
  // Read at the first request line, not at open: `--format auto` opens every parser on any file, and a bad
  // DUPSCOPE_OTLP_KEYS must fail OTLP input only.
  let rules = keys;
  return lineByLine((line, lineNo) => parseRequestLine(line, lineNo, () => (rules ??= keyRulesFromEnv())));
}

function parseRequestLine(line: string, lineNo: number, keys: () => readonly KeyRule[]): LineResult {
  let decoded;
  try {
    decoded = decodeJson(line);
  } catch (error) {
    if (error instanceof OtlpDecodeError) return { events: [], issue: { line: lineNo, code: "malformed", reason: error.message } };
    throw error;
  }
  const { events } = mapSpans(decoded.spans, keys());
  const rejected = decoded.rejected;
  if (rejected.length > 0) {
    const reason = `${rejected.length} span(s) not read: ${rejected.slice(0, 3).map((r) => `span ${r.index + 1}: ${r.reason}`).join("; ")}`;
    return { events, issue: { line: lineNo, code: "invalid_field", reason } };
  }
  return events.length === 0 && decoded.spans.length > 0 ? { events, skipped: true } : { events };
}
