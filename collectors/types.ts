import { LIMITS } from "../lib/events/limits.ts";
import type { NormalizedEvent } from "../lib/events/model.ts";
import type { UserPattern } from "./codecs/user-pattern.ts";

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
  /**
   * Calendar date (`2026-11-30`) for lines whose layout prints a time without a date (`HH:mm:ss.SSS` layouts,
   * syslog's year-less stamp): `--date`, else the file's modification date. Events that took it say so in
   * `detail.dateFrom`.
   */
  date?: string;
  /**
   * Epoch ms of the input itself (the file's modification time, the request's arrival) for a line that prints no time
   * and follows no line that did; events that took it say so in `detail.timeFrom`.
   */
  inputTime?: number;
  /** The user's patterns (DUPSCOPE_PATTERNS, --patterns): tried on the lines a log format skips. */
  patterns?: readonly UserPattern[];
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
  /**
   * The line each event came from (parallel to `events`), when it is not the line just given: a record of several
   * lines (a message and the stack trace after it, a RabbitMQ report) is complete only when a later line arrives.
   */
  lines?: number[];
  issue?: ParseIssue;
  /** This line matched no template of the format (stack traces aside): counted, never an error. */
  skipped?: boolean;
  /** This line continues the record before it (a stack frame, a report's next line): neither an event nor skipped. */
  continuation?: boolean;
}

/**
 * One input's parser: lines in order, then `end()` when the input ends (or goes quiet while followed), which
 * completes the record still open. Parsers of formats whose records are one line each return every event at once.
 */
export interface LineParser {
  line(text: string, lineNo: number): LineResult;
  end(): LineResult;
}

/** The line event `index` of `result` came from; `given` when the result names none. */
export function lineOfEvent(result: LineResult, index: number, given: number): number {
  return result.lines?.[index] ?? given;
}

/** One line read as a whole input: its record is complete at the end of it. */
export function parseAlone(parser: LineParser, line: string, lineNo: number): LineResult {
  const first = parser.line(line, lineNo);
  const rest = parser.end();
  const result: LineResult = { events: [...first.events, ...rest.events] };
  const issue = first.issue ?? rest.issue;
  if (issue) result.issue = issue;
  if (first.skipped || rest.skipped) result.skipped = true;
  return result;
}

/** A parser for formats whose every record is one line. */
export function lineByLine(parseLine: (line: string, lineNo: number) => LineResult): LineParser {
  return { line: parseLine, end: () => ({ events: [] }) };
}

export interface ParseResult {
  events: NormalizedEvent[];
  issues: ParseIssue[];
  /** Lines that matched no template of the format (stack traces, unrelated log lines). */
  skipped: number;
  lines: number;
}

/** Lines longer than this are rejected as `too_long` without being parsed. */
export const MAX_LINE_BYTES = LIMITS.lineBytes;

/** Folds per-line results into one ParseResult; parsers that work line by line use this for their `parse`. */
export function parseLines(text: string, parser: LineParser | ((line: string, lineNo: number) => LineResult)): ParseResult {
  const { line: parseLine, end } = typeof parser === "function" ? lineByLine(parser) : parser;
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
  const last = end();
  result.events.push(...last.events);
  if (last.issue) result.issues.push(last.issue);
  if (last.skipped) result.skipped++;
  return result;
}
