import type { LineResult, ParseContext, ParseResult } from "../types.ts";
import { parseLines } from "../types.ts";
import { validateEvent } from "../../lib/events/validate.ts";

/**
 * Normalized events as NDJSON (docs/event-model.md): what other tools export for dupscope, and what the CLI
 * sends to a server. A line without `source` gets the input's name, so events from a file say where they came from.
 */
export function parseEventLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { events: [], issue: { line: lineNo, code: "malformed", reason: `not valid JSON (${error instanceof Error ? error.message : String(error)})` } };
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value) && !("source" in value)) {
    value = { ...value, source: ctx.source };
  }
  const result = validateEvent(value);
  return result.ok ? { events: [result.event] } : { events: [], issue: { line: lineNo, code: "invalid_field", reason: result.reason } };
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseEventLine(line, lineNo, ctx));
}
