import type { NormalizedEvent } from "../../lib/events/model.ts";
import type { LineParser, LineResult, ParseContext } from "../types.ts";
import { exceptionClass, unwrap, type Envelope } from "./envelope.ts";
import { borrowedTime, findTimestamp, type FoundTime, type TimeLookup } from "./timestamp.ts";

/**
 * Prefix-agnostic reading of application log lines (Java clients' logback/log4j/log4j2 files, the C++ and Go
 * clients, whatever shipping wrapped around them). A line is recognised by its message: every template's fixed
 * head is searched for in the line, not expected at a fixed column; what stands before it is the layout's prefix,
 * where the timestamp, level and pid are looked for; what a layout appends after the message (`(logger:line)`,
 * ` (org.apache.kafka….ConsumerCoordinator)`) is cut off. A line that matches no template is skipped; stack trace
 * lines after a matched line belong to its record and name its exception.
 */

export interface MessageTemplate<T> {
  name: string;
  /** The fixed words the message starts with (no `^`): searched anywhere in the line. */
  head: RegExp;
  /** The template in words, `{}` for the values: shown by `dupscope explain`. */
  wording: string;
  /**
   * The head must start the message: the text before it has to end like a layout prefix (`- `, `: `, `] `, a
   * level, or nothing). For heads that could also occur inside another message.
   */
  atStart?: boolean;
  /** A time the message itself carries (librdkafka's epoch seconds), used when the prefix has none. */
  ownTime?(message: string, text: string): TimeLookup;
  /**
   * Reads the message (from the head to the end, trailer cut): what it reports (nothing, for a recognised line
   * that carries no evidence), or why its fields do not parse (a reason, or undefined for a generic one).
   */
  read(message: string, line: DecodedLine): T[] | string | undefined;
}

export interface DecodedLine {
  /** The whole physical line as it arrived. */
  raw: string;
  envelope: Envelope;
  /** The text before the message: the layout's prefix. */
  prefix: string;
  time: FoundTime;
  level: string | null;
  /** A process id the layout printed (`[%pid]`, Spring Boot's `INFO 12345 ---`). */
  pid: number | null;
}

export interface TemplateMatch<T> {
  template: MessageTemplate<T>;
  index: number;
  message: string;
}

const BOUNDARY = "(?<![\\w$])";
const PREFIX_END = /(?:^|[-:\]|>)}]\s*|\s(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|NOTICE)\s+|^\s*)$/;
// `(logger)`, `(logger:line)`, `(File.java:123)` that log4j/logback layouts append; only names with a dot or a line
// number, so a message's own closing parenthesis stays.
const TRAILER = /\s*\((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:\.java)?(?::\d+)?\)\s*$/;
const TRAILER_NEEDS = /[.:]/;

/** What finds a line's template: a TemplateSet, or the signals of a format (./signals.ts). */
export interface TemplateFinder<T> {
  find(text: string): TemplateMatch<T> | undefined;
  /**
   * Also search the other string fields of a JSON or logfmt line (an `error` field beside `msg`), after the message:
   * a signal may sit in any of them, a template's sentence only in the message.
   */
  readonly searchesFields?: boolean;
}

/**
 * The message, then the line's other string fields as `key=value`: what a finder that searches fields reads. The key
 * stays, since it is what names a bare value (`consumerGroup=orders`, `clientID=10.0.0.1@42`) for the extractors.
 */
export function withFields(envelope: Envelope): string {
  const fields = envelope.fields === undefined ? [] : Object.entries(envelope.fields).filter(([, v]) => v !== envelope.text).map(([k, v]) => `${k}=${v}`);
  return fields.length === 0 ? envelope.text : `${envelope.text} | ${fields.join(" | ")}`;
}

/** A set of templates searched together: one regular expression finds the earliest head of any of them. */
export class TemplateSet<T> implements TemplateFinder<T> {
  readonly templates: readonly MessageTemplate<T>[];
  private readonly any: RegExp;
  private readonly sticky: RegExp[];

  constructor(templates: readonly MessageTemplate<T>[]) {
    this.templates = templates;
    this.any = new RegExp(templates.map((t) => `${BOUNDARY}(?:${t.head.source})`).join("|"), "g");
    this.sticky = templates.map((t) => new RegExp(t.head.source, "y"));
  }

  /** The first template whose head occurs in `text` at a plausible place, searching left to right. */
  find(text: string): TemplateMatch<T> | undefined {
    this.any.lastIndex = 0;
    for (let m = this.any.exec(text); m; m = this.any.exec(text)) {
      for (let i = 0; i < this.templates.length; i++) {
        const template = this.templates[i]!;
        const sticky = this.sticky[i]!;
        sticky.lastIndex = m.index;
        if (!sticky.test(text)) continue;
        if (template.atStart && !PREFIX_END.test(text.slice(Math.max(0, m.index - 40), m.index))) continue;
        return { template, index: m.index, message: cutTrailer(text.slice(m.index)) };
      }
      this.any.lastIndex = m.index + 1;
    }
    return undefined;
  }
}

/**
 * A template read from its own head's match: `read` gets the head's groups at the start of the message. The anchored
 * copy of the head is compiled once, not per line.
 */
export function headTemplate<T>(
  name: string,
  head: RegExp,
  wording: string,
  read: (m: RegExpExecArray, message: string, line: DecodedLine) => T[] | string | undefined,
): MessageTemplate<T> {
  const anchored = new RegExp(`^(?:${head.source})`);
  return {
    name,
    head,
    wording,
    read(message, line) {
      const m = anchored.exec(message);
      return m ? read(m, message, line) : undefined;
    },
  };
}

/**
 * One line of a template-based format: found and decoded, read by its template, turned into events by the format.
 * A line no template matches is skipped; a template that recognises the line but reports nothing counts it skipped
 * too; a recognised line with an unusable time or fields is an invalid_field issue naming the template.
 */
export function readTemplateLine<T>(
  raw: string,
  lineNo: number,
  set: TemplateFinder<T>,
  options: DecodeOptions,
  toEvents: (drafts: T[], line: DecodedLine, template: string) => NormalizedEvent[],
  describe: (template: string, problem: { time?: string; fields?: string }) => string = (template, p) => `${template}: ${p.time ?? p.fields ?? "the line's fields do not parse"}`,
  /** Tried when no template of `set` matched at all (./signals.ts): a template that matched and reported nothing stands. */
  signals?: TemplateFinder<T>,
): LineResult {
  const decoded = decodeLine(raw, set, options, signals);
  if (decoded.kind === "none") return { events: [], skipped: true };
  const template = decoded.match.template;
  if (decoded.kind === "bad_time") return { events: [], issue: { line: lineNo, code: "invalid_field", reason: describe(template.name, { time: decoded.reason }) } };
  const drafts = template.read(decoded.match.message, decoded.line);
  if (drafts === undefined || typeof drafts === "string") {
    return { events: [], issue: { line: lineNo, code: "invalid_field", reason: describe(template.name, drafts === undefined ? {} : { fields: drafts }) } };
  }
  const events = drafts.length === 0 ? [] : toEvents(drafts, decoded.line, template.name);
  return events.length === 0 ? { events: [], skipped: true } : { events };
}

export function cutTrailer(text: string): string {
  // Tab-separated layouts put more columns after the message.
  const tab = text.indexOf("\t");
  const message = tab < 0 ? text : text.slice(0, tab);
  const trailer = TRAILER.exec(message);
  const cut = trailer && TRAILER_NEEDS.test(trailer[0]) ? message.slice(0, trailer.index) : message;
  return cut.trimEnd();
}

const LEVEL = /(?<![\w-])(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE|NOTICE|CRITICAL)(?![\w-])|\[(trace|debug|info|notice|warning|warn|error|critical|fatal)\]|(?:^|\s)level=(\w+)/;
const PID = /(?:^|\s)(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\s+\[(\d{1,8})\]|(?:^|\s)(\d{1,8}) --- /;

export interface DecodeOptions {
  utcOffset: string;
  date?: string;
  /** Epoch ms for lines that print no time and follow none that did: the file's modification time. */
  inputTime?: number;
  /** The last time a line of this input printed, for the lines after it that print none (kept by the caller, per input). */
  memory?: { lastTime?: FoundTime };
}

const TIME_SCAN = 64;

export type LineDecoding<T> =
  | { kind: "none"; envelope: Envelope }
  | { kind: "bad_time"; match: TemplateMatch<T>; reason: string }
  | { kind: "ok"; match: TemplateMatch<T>; line: DecodedLine };

/**
 * Unwraps the line once, finds its template in `set`, else in `fallback` (a format's signals), and reads the prefix's
 * time, level and pid.
 */
export function decodeLine<T>(raw: string, set: TemplateFinder<T>, options: DecodeOptions, fallback?: TemplateFinder<T>): LineDecoding<T> {
  const envelope = unwrap(raw, options);
  // A signal may sit in any field, and a field may say more than the message (librdkafka's `fac`).
  const find = (finder: TemplateFinder<T>) => (finder.searchesFields ? finder.find(withFields(envelope)) : finder.find(envelope.text));
  const match = find(set) ?? (fallback && find(fallback));
  if (!match) {
    if (options.memory) {
      const seen = findTimestamp(envelope.text.slice(0, TIME_SCAN), options) ?? envelope.time;
      if (seen?.ok) options.memory.lastTime = seen.time;
    }
    return { kind: "none", envelope };
  }
  const prefix = envelope.text.slice(0, match.index);
  // The application's own stamp first; the envelope's (JSON field, kubectl, syslog) when the prefix has none.
  const own = findTimestamp(prefix, options);
  const time = own?.ok ? own : (match.template.ownTime?.(match.message, envelope.text) ?? envelope.time ?? own ?? borrowed(options));
  if (!time) return { kind: "bad_time", match, reason: "no timestamp on the line" };
  if (!time.ok) return { kind: "bad_time", match, reason: time.reason };
  if (options.memory && time.time.timeFrom === undefined) options.memory.lastTime = time.time;
  const level = LEVEL.exec(prefix);
  const pid = PID.exec(prefix);
  return {
    kind: "ok",
    match,
    line: {
      raw,
      envelope,
      prefix,
      time: time.time,
      level: envelope.level ?? level?.[1] ?? level?.[2] ?? level?.[3] ?? null,
      pid: pid ? Number(pid[1] ?? pid[2]) : null,
    },
  };
}

function borrowed(options: DecodeOptions): TimeLookup {
  const time = borrowedTime(options.memory?.lastTime, options.inputTime);
  return time && { ok: true, time };
}

/** Lines that continue a Java log record: stack frames, `Caused by:`, an exception's first line, indented text. */
const CONTINUATION = /^(?:\s+\S|at [\w$.<>]+\(|\.\.\. \d+ (?:more|common frames omitted)|Caused by: |Suppressed: |Exception in thread |[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:Exception|Error|Throwable)\b(?::|$))/;

export function isContinuation(line: string): boolean {
  return CONTINUATION.test(line);
}

/** The most lines of a block a record reads (the 4.x consumer's reconciliation block has six). */
const MAX_BLOCK_LINES = 16;

/** The most the record keeps of its continuation lines, to find the exception. */
const MAX_CONTINUATION_SCAN = 8;

/**
 * A LineParser over `parseRecord` that keeps each record's events until the lines after it show whether a stack
 * trace follows: its exception class goes to `detail.exception` of the record's events.
 */
export function javaRecords(
  parseFirstLine: (line: string, lineNo: number) => LineResult,
  /**
   * Reads a continuation line of a record whose first line gave nothing: an exception's message in the stack trace
   * (`Caused by: …CommitFailedException: …`) can carry the signal the first line did not. Its events are the record's,
   * and the first line (`first`) may still say whose they are (a consumer tag, a group).
   */
  readContinuation?: (line: string, lineNo: number, first: string) => LineResult,
  /**
   * Reads a continuation line of a record that gave events: a block whose first line says what it is and whose next
   * lines say what it holds (the 4.x consumer's `Reconciling assignment` block). Returns the record's events as
   * they now are, or undefined to keep them.
   */
  extendRecord?: (events: NormalizedEvent[], line: string) => NormalizedEvent[] | undefined,
): LineParser {
  let open: { events: NormalizedEvent[]; lineNo: number; scanned: number; extended: number; exception?: string } | undefined;
  let inRecord = false;
  /** The first line of a record that gave nothing, while its continuation lines are read for a signal. */
  let bare: { lineNo: number; scanned: number; text: string } | undefined;

  const release = (): LineResult => {
    if (!open) return { events: [] };
    const { events, lineNo, exception } = open;
    open = undefined;
    if (events.length === 0) return { events: [] };
    const withException = exception === undefined ? events : events.map((e) => (e.detail.exception !== undefined ? e : { ...e, detail: { ...e.detail, exception } }));
    return { events: withException, lines: withException.map(() => lineNo) };
  };

  return {
    line(text, lineNo) {
      if (inRecord && isContinuation(text)) {
        if (open && extendRecord && open.extended < MAX_BLOCK_LINES) {
          open.extended++;
          const extended = extendRecord(open.events, text.trim());
          if (extended) open.events = extended;
        }
        if (open && open.exception === undefined && open.scanned < MAX_CONTINUATION_SCAN) {
          open.scanned++;
          open.exception = exceptionClass(text);
        }
        // A Python traceback names its exception after the frames, however many: that line is read past the budget.
        if (bare && readContinuation && (bare.scanned++ < MAX_CONTINUATION_SCAN || exceptionClass(text) !== undefined)) {
          const found = readContinuation(text.trim(), lineNo, bare.text);
          if (found.events.length > 0) {
            const header = bare.lineNo;
            bare = undefined;
            return { events: found.events, lines: found.events.map(() => header), continuation: true };
          }
        }
        return { events: [], continuation: true };
      }
      const released = release();
      const result = parseFirstLine(text, lineNo);
      inRecord = true;
      bare = result.events.length === 0 && result.issue === undefined ? { lineNo, scanned: 0, text } : undefined;
      if (result.events.length > 0) open = { events: result.events, lineNo, scanned: 0, extended: 0 };
      const ownException = result.events.find((e) => typeof e.detail.exception === "string");
      if (open && ownException) open.exception = ownException.detail.exception as string;
      return { ...released, ...(result.issue ? { issue: result.issue } : {}), ...(result.skipped ? { skipped: true } : {}) };
    },
    end() {
      inRecord = false;
      bare = undefined;
      return release();
    },
  };
}

/** Decoding options for one input: the caller's offset when given, else the format's default, and a memory of its times. */
export function inputOptions(ctx: ParseContext, fallback: string): DecodeOptions {
  return {
    utcOffset: ctx.utcOffset ?? fallback,
    ...(ctx.date ? { date: ctx.date } : {}),
    ...(ctx.inputTime !== undefined ? { inputTime: ctx.inputTime } : {}),
    memory: {},
  };
}
