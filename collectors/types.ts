import type { NormalizedEvent } from "../lib/events/model.ts";

/**
 * The contract every collector's pure parser follows (collectors/<format>/parse.ts): text in, normalized events
 * and per-line issues out; no file system, network or database. The clock and the source name are arguments.
 */

export interface ParseContext {
  /** Where the input came from, e.g. `rocketmq-client-log:/var/log/rocketmq/rocketmq_client.log`; becomes event.source. */
  source: string;
  /** Instance identity for sources whose lines do not carry one (`--instance`, `?instance=`). */
  instance?: string;
  /**
   * UTC offset of timestamps written without one, as `+08:00`. RocketMQ's log patterns print GMT+8, so the
   * RocketMQ parsers default to `+08:00`; the others default to `Z`.
   */
  utcOffset?: string;
}

export type ParseIssueCode =
  | "malformed" // not the format at all: bad JSON, truncated record, wrong field count
  | "invalid_field" // the format, but a field holds an impossible value (absurd timestamp, non-number offset)
  | "too_long" // a line or record beyond the collector's size limit
  | "encoding"; // bytes that are not UTF-8

export interface ParseIssue {
  /** 1-based line (or NDJSON record) number in the input. */
  line: number;
  code: ParseIssueCode;
  reason: string;
}

/** What one line of input gave: events, an issue, or nothing (a line that matches no template is skipped, not an error). */
export interface LineResult {
  events: NormalizedEvent[];
  issue?: ParseIssue;
  skipped?: boolean;
}

export interface ParseResult {
  events: NormalizedEvent[];
  issues: ParseIssue[];
  /** Lines that matched no template of the format (stack traces, unrelated log lines). */
  skipped: number;
  lines: number;
}

/** Lines longer than this are rejected as `too_long` without being parsed. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Folds per-line results into one ParseResult; parsers that work line by line use this for their `parse`. */
export function parseLines(text: string, parseLine: (line: string, lineNo: number) => LineResult): ParseResult {
  const result: ParseResult = { events: [], issues: [], skipped: 0, lines: 0 };
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    result.lines++;
    if (line.trim() === "") continue;
    if (Buffer.byteLength(line, "utf8") > MAX_LINE_BYTES) {
      result.issues.push({ line: i + 1, code: "too_long", reason: `line is longer than ${MAX_LINE_BYTES} bytes` });
      continue;
    }
    const outcome = parseLine(line, i + 1);
    result.events.push(...outcome.events);
    if (outcome.issue) result.issues.push(outcome.issue);
    if (outcome.skipped) result.skipped++;
  }
  return result;
}
