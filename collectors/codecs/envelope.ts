import { parse as parseCsv } from "csv-parse/sync";
import { epochTime, findTimestamp, type TimeLookup } from "./timestamp.ts";

/**
 * What shipping put around a log line, taken off before the line's own layout is read:
 *
 *   docker compose       `pay-consumer-1  | 2026-11-30 …`, `pay-consumer_1  | …`
 *   kubectl --timestamps `2026-11-30T12:00:01.204570123Z 2026-11-30 20:00:01.204 INFO …` (also `docker logs -t`)
 *   syslog               `<134>Nov 30 12:00:01 host app[123]: …`, RFC 5424 `<134>1 2026-11-30T12:00:01Z host app 123 - - …`
 *   JSON per line        logstash-logback-encoder, ECS, log4j2 JsonLayout/JsonTemplateLayout, Kafka Connect/Strimzi,
 *                        Spring Boot structured logging, docker's json-file `{"log": …}`, pino/bunyan
 *   logfmt               the Go client's logrus lines: `time="…" level=info msg="…" consumerGroup=…`
 *   stamped JSON         a viewer's or shipper's stamp before a JSON record: `2024-04-11 11:28:22.650\t{…}`,
 *                        `Aug  9 02:47:44 host: {…}` (the record's own time, when it has one, wins)
 *
 * The result is the text the application wrote (`text`), plus whatever the envelope said about it. Envelopes nest
 * (a kubectl stamp in front of a JSON line), so unwrapping repeats until nothing more comes off.
 */

export interface Envelope {
  /** The application's own line (or the JSON's message field). */
  text: string;
  /** A timestamp the envelope carried (JSON field, kubectl/syslog stamp): used when the text has none of its own. */
  time?: TimeLookup;
  level?: string;
  logger?: string;
  thread?: string;
  host?: string;
  /** An exception an encoder put in a field of its own (stack_trace, error.type, thrown). */
  exception?: string;
  /** Which wrappers came off, outermost first: `kubectl`, `compose`, `syslog`, `json`, `logfmt`, `csv`. */
  layers: string[];
  /** Other short string fields of a JSON or logfmt line (Go client's key=value, MDC): a template may read them. */
  fields?: Record<string, string>;
}

export interface EnvelopeOptions {
  utcOffset: string;
  date?: string;
}

const LEVEL_WORD = /^(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|trace|debug|info|warn|warning|error|fatal)$/;
const COMPOSE = /^([A-Za-z0-9][\w.-]*?)(?:[-_]\d+)?\s+\| ?/;
const KUBECTL = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) /;
const RFC5424 = /^<\d{1,3}>1 (\S+) (\S+) (\S+) (\S+) (\S+) (?:-|(?:\[(?:[^\]\\]|\\.)*\])+) ?/;
// What may stand between a viewer's or shipper's stamp and the JSON record: whitespace, or a host or tag and a colon.
// A log line of its own (a level, a logger) before a JSON payload is not an envelope.
const AFTER_STAMP = /^\s{1,8}(?:[\w.@-]{1,64}(?:\[\d{1,10}\])?:\s{1,8})?(?=\{")/;
const RFC3164 = /^(?:<\d{1,3}>)?((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d{2}:\d{2}:\d{2}) (\S+) ([^\s:[]+)(?:\[(\d+)\])?: /;
const LOGFMT = /(?:^|\s)level=\w+\b.*?\bmsg=|^(?:time|ts)="?[^"\s]*"? level=/;

const MESSAGE_KEYS = ["message", "msg", "log", "@message", "short_message", "full_message", "MESSAGE", "_raw", "content", "textPayload"];
const TIME_KEYS = ["@timestamp", "timestamp", "time", "ts", "date", "datetime", "@t", "instant", "timeMillis", "asctime", "__REALTIME_TIMESTAMP", "_time"];
const LEVEL_KEYS = ["level", "log.level", "severity", "levelname", "loglevel", "@l", "level_name", "PRIORITY"];
const LOGGER_KEYS = ["logger_name", "logger", "log.logger", "loggerName", "name", "SYSLOG_IDENTIFIER"];
const THREAD_KEYS = ["thread_name", "thread", "process.thread.name", "threadName"];
const HOST_KEYS = ["host", "hostname", "host.name", "HOSTNAME", "_HOSTNAME"];
const EXCEPTION_KEYS = ["stack_trace", "error.stack_trace", "exception", "error.type", "thrown", "exc_info", "stack"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `log.level` is a flat key in ECS but `{"log": {"level": …}}` in others: both are read. */
function lookup(object: { [key: string]: Json }, key: string): Json | undefined {
  if (key in object) return object[key];
  const dot = key.indexOf(".");
  if (dot < 0) return undefined;
  const head = object[key.slice(0, dot)];
  return head !== null && typeof head === "object" && !Array.isArray(head) ? lookup(head, key.slice(dot + 1)) : undefined;
}

function firstString(object: { [key: string]: Json }, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = lookup(object, key);
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/** The first line of a stack trace names the exception: `java.lang.IllegalStateException: …`. */
export function exceptionClass(text: string): string | undefined {
  const m = /^\s*(?:Caused by: |Exception in thread "[^"]*" )?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:Exception|Error|Throwable|Failure)\b)/m.exec(text);
  return m?.[1];
}

function jsonException(object: { [key: string]: Json }): string | undefined {
  for (const key of EXCEPTION_KEYS) {
    const value = lookup(object, key);
    if (typeof value === "string" && value !== "") return exceptionClass(value) ?? (key === "error.type" ? value : undefined);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const name = firstString(value, ["name", "class", "type", "exception_class", "className"]);
      if (name) return name;
    }
  }
  return undefined;
}

function jsonTime(object: { [key: string]: Json }, options: EnvelopeOptions): TimeLookup {
  for (const key of TIME_KEYS) {
    const value = lookup(object, key);
    if (value === undefined || value === null) continue;
    if (typeof value === "number") return epochTime(key === "__REALTIME_TIMESTAMP" ? value / 1000 : value, String(value));
    if (typeof value === "string") {
      if (/^\d{10}(?:\.\d+)?$|^\d{13}$/.test(value)) return epochTime(Number(value), value);
      if (/^\d{16}$/.test(value)) return epochTime(Number(value) / 1000, value);
      const found = findTimestamp(value, options);
      if (found) return found;
    }
    if (typeof value === "object" && !Array.isArray(value)) {
      // log4j2's JsonLayout: "instant": {"epochSecond": 1622554781, "nanoOfSecond": 401570000}
      const seconds = value.epochSecond;
      if (typeof seconds === "number") {
        const nanos = typeof value.nanoOfSecond === "number" ? value.nanoOfSecond : 0;
        return epochTime(seconds + Math.floor(nanos / 1e6) / 1000, `${seconds}.${String(nanos).padStart(9, "0")}`);
      }
    }
  }
  return undefined;
}

/**
 * A JSON value as a field an extractor can read: strings, numbers and booleans as written, a small object or list
 * (kafkajs' `memberAssignment: {"t":[0,2]}`) as its JSON text; a long one says nothing a signal reads, but for a
 * stack trace's first line.
 */
function fieldText(key: string, value: Json): string | undefined {
  if (typeof value === "string") {
    if (value.length <= 256) return value;
    // A stack trace field (logstash-logback-encoder's `stack_trace`) is the record's continuation lines: its first
    // line names the exception and its message, which can state the fact a bare message (`Consumer exception`) does not.
    const first = value.split("\n", 1)[0]!;
    return EXCEPTION_KEYS.includes(key) && first.length <= 512 ? first : undefined;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return undefined;
  const text = JSON.stringify(value);
  return text.length <= 1024 ? text : undefined;
}

const PINO_LEVELS: Record<string, string> = { "10": "TRACE", "20": "DEBUG", "30": "INFO", "40": "WARN", "50": "ERROR", "60": "FATAL" };

function fromJson(object: { [key: string]: Json }, options: EnvelopeOptions): Omit<Envelope, "layers"> | undefined {
  const message = firstString(object, MESSAGE_KEYS);
  if (message === undefined) return undefined;
  const level = firstString(object, LEVEL_KEYS);
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(object)) {
    const field = fieldText(key, value);
    if (field !== undefined) fields[key] = field;
  }
  return {
    // docker's json-file keeps the newline the program wrote
    text: message.replace(/\r?\n$/, ""),
    time: jsonTime(object, options),
    level: level === undefined ? undefined : (PINO_LEVELS[level] ?? level),
    logger: firstString(object, LOGGER_KEYS),
    thread: firstString(object, THREAD_KEYS),
    host: firstString(object, HOST_KEYS),
    exception: jsonException(object),
    fields,
  };
}

/** logfmt: `key=value` and `key="quoted \"value\""` pairs. */
export function parseLogfmt(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const pair = /([\w.@-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g;
  for (let m = pair.exec(text); m; m = pair.exec(text)) {
    fields[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c)) : m[3]!;
  }
  return fields;
}

function fromLogfmt(text: string, options: EnvelopeOptions): Omit<Envelope, "layers"> | undefined {
  const fields = parseLogfmt(text);
  const message = fields.msg ?? fields.message;
  if (message === undefined) return undefined;
  const stamp = fields.time ?? fields.ts;
  return {
    text: message,
    time: stamp === undefined ? undefined : /^\d+(?:\.\d+)?$/.test(stamp) ? epochTime(Number(stamp), stamp) : findTimestamp(stamp, options),
    level: fields.level,
    logger: fields.logger,
    fields,
  };
}

function parseJsonObject(text: string): { [key: string]: Json } | undefined {
  if (!text.startsWith("{") || !text.trimEnd().endsWith("}")) return undefined;
  try {
    const value = JSON.parse(text) as Json;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const CSV_ROW = /^"[^"]*(?:""[^"]*)*","/;

/**
 * One row of a log search tool's CSV export (Kibana, Splunk, Graylog, Loki: timestamp, host, message columns, in
 * any order, with or without a header row): the longest column is the message, the first that is a timestamp the
 * time. A header row has no message a template knows, so it is skipped like any other unknown line.
 */
function fromCsv(text: string, options: EnvelopeOptions): Omit<Envelope, "layers"> | undefined {
  let row: string[] | undefined;
  try {
    [row] = parseCsv(text, { relax_column_count: true, relax_quotes: true }) as string[][];
  } catch {
    return undefined;
  }
  if (!row || row.length < 2) return undefined;
  const message = row.reduce((a, b) => (b.length > a.length ? b : a), "");
  const stamp = row.find((cell) => cell !== message && /^\d{4}-\d{2}-\d{2}[ T]\d/.test(cell));
  return { text: message, time: stamp === undefined ? undefined : findTimestamp(stamp, options) };
}

/** Encodings whose whole line is a record of fields: the message is one of them. */
interface InnerDecoder {
  layer: string;
  /** A cheap look at the line before the decoder reads it. */
  test(text: string): boolean;
  read(text: string, options: EnvelopeOptions): Omit<Envelope, "layers"> | undefined;
}

function fromJsonLine(text: string, options: EnvelopeOptions): Omit<Envelope, "layers"> | undefined {
  const json = parseJsonObject(text);
  return json && fromJson(json, options);
}

const INNER: InnerDecoder[] = [
  { layer: "json", test: (text) => text.startsWith("{"), read: fromJsonLine },
  { layer: "csv", test: (text) => CSV_ROW.test(text), read: fromCsv },
  { layer: "logfmt", test: (text) => LOGFMT.test(text), read: fromLogfmt },
];

/** The first inner encoding that reads the line, and what it read. */
function decodeInner(text: string, options: EnvelopeOptions): { layer: string; read: Omit<Envelope, "layers"> } | undefined {
  for (const decoder of INNER) {
    const read = decoder.test(text) ? decoder.read(text, options) : undefined;
    if (read) return { layer: decoder.layer, read };
  }
  return undefined;
}

/** Takes every envelope off one physical line; a plain line comes back as it is, with no layers. */
export function unwrap(line: string, options: EnvelopeOptions): Envelope {
  const envelope: Envelope = { text: line, layers: [] };
  for (let depth = 0; depth < 6; depth++) {
    const text = envelope.text;
    const compose = COMPOSE.exec(text);
    if (compose && !/^\d/.test(text) && !LEVEL_WORD.test(compose[1]!)) {
      envelope.text = text.slice(compose[0].length);
      envelope.host ??= compose[1];
      envelope.layers.push("compose");
      continue;
    }
    const kubectl = KUBECTL.exec(text);
    if (kubectl) {
      envelope.text = text.slice(kubectl[0].length);
      envelope.time ??= findTimestamp(kubectl[1]!, options);
      envelope.layers.push("kubectl");
      continue;
    }
    const rfc5424 = RFC5424.exec(text);
    if (rfc5424) {
      envelope.text = text.slice(rfc5424[0].length).replace(/^\uFEFF/, "");
      if (rfc5424[1] !== "-") envelope.time ??= findTimestamp(rfc5424[1]!, options);
      if (rfc5424[2] !== "-") envelope.host ??= rfc5424[2];
      envelope.layers.push("syslog");
      continue;
    }
    const rfc3164 = RFC3164.exec(text);
    if (rfc3164) {
      envelope.text = text.slice(rfc3164[0].length);
      envelope.time ??= findTimestamp(rfc3164[1]!, options);
      envelope.host ??= rfc3164[2];
      envelope.layers.push("syslog");
      continue;
    }
    const stamp = /^[^{}"\n]{8,48}[\s:]\{"/.test(text) ? findTimestamp(text.slice(0, 48), options) : undefined;
    if (stamp?.ok === true && stamp.time.index === 0) {
      const after = AFTER_STAMP.exec(text.slice(stamp.time.length));
      const json = after ? fromJsonLine(text.slice(stamp.time.length + after[0].length), options) : undefined;
      if (after && json) {
        envelope.time ??= stamp;
        mergeInner(envelope, json);
        envelope.layers.push("stamped-json");
        continue;
      }
    }
    const inner = decodeInner(text, options);
    if (inner) {
      mergeInner(envelope, inner.read);
      envelope.layers.push(inner.layer);
      continue;
    }
    break;
  }
  return envelope;
}

/** An inner envelope knows the line better than the outer one: its time and level win. */
function mergeInner(envelope: Envelope, inner: Omit<Envelope, "layers">): void {
  envelope.text = inner.text;
  if (inner.time) envelope.time = inner.time;
  envelope.level = inner.level ?? envelope.level;
  envelope.logger = inner.logger ?? envelope.logger;
  envelope.thread = inner.thread ?? envelope.thread;
  envelope.host = inner.host ?? envelope.host;
  envelope.exception = inner.exception ?? envelope.exception;
  envelope.fields = { ...envelope.fields, ...inner.fields };
}
