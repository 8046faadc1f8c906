import { MAX_TS, MIN_TS, type DetailValue, type NormalizedEvent } from "../../lib/events/model.ts";
import { unwrap } from "../codecs/envelope.ts";
import { borrowedTime, findTimestamp, type FoundTime } from "../codecs/timestamp.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { channelIdentity, connectionIdentity } from "../rabbitmq-firehose/identity.ts";
import { parseLines, type LineParser, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * RabbitMQ's own log, 3.6 → 4.x: the records that say a consumer's channel or connection ended with deliveries
 * unacknowledged. A record may span several physical lines, in one of three ways, all assembled here first:
 *
 *   3.9+        every physical line repeats the header `2024-10-04 03:23:52.968389-04:00 [warning] <0.5201.0> `
 *   3.7, 3.8    `2019-01-02 10:11:12.345 [warning] <0.123.0> closing AMQP connection … :` then lines without header
 *   3.6 and older `=WARNING REPORT==== 30-Jun-2021::11:18:31 ===` then the message's lines
 *
 * JSON lines (`log.file.formatter = json`) and container prefixes are unwrapped first. A record is complete when
 * the next one starts (or the input ends). Then:
 *
 *   closing AMQP connection <pid> (name[, vhost: 'v', user: 'u'])            clean close → connection_closed
 *   closing AMQP connection <pid> (…):  + client unexpectedly closed TCP connection /
 *                                         connection_closed_abruptly                          → connection_lost
 *                                       + missed heartbeats from client, timeout: 60s          → heartbeat_missed
 *                                       + any other reason                                     → connection_closed
 *   Error on AMQP connection <pid> (…)[, state: s], channel 0:  + operation … caused a connection exception … → connection_closed
 *   Consumer … has timed out waiting … acknowledgement …  (3.8–3.12, 3.13–4.2, 4.3: see README)
 *   Channel error on connection <pid> (…), channel N:  + operation none caused a channel exception
 *                                       precondition_failed: … acknowledgement … timed out      → ack_timeout
 *                                       + any other channel exception                          → channel_closed
 *   2.x–3.3: connection <pid>, channel N - [soft ]error:  + {amqp_error,…}                     → channel_closed
 *   2.0–2.6: closing TCP connection <pid> from ip:port                                         → connection_closed
 *
 * A consumer-timeout warning names the channel but not the connection; the channel error that the channel process
 * logs next does, so the warning is kept (per input and process) until that error completes it. A warning no
 * error follows is reported at the end of the input, without an instance.
 */

type Detail = { [key: string]: DetailValue };

export const FORMAT = "rabbitmq-server-log";

/** `2024-10-04 03:23:52.968389-04:00 [warning] <0.5201.0> msg`, `… [warn] …`, `… warning: msg`, `warning 2024-… msg`. */
const LEVEL_WORD = "debug|info|notice|warn|warning|error|err|critical|crit|alert|emergency|erro";
const AFTER_TIME = new RegExp(`^ ?(?:\\[(${LEVEL_WORD})\\]|(${LEVEL_WORD}):)? *(<[\\d.]+>)? ?`, "i");
const LEVEL_FIRST = new RegExp(`^(${LEVEL_WORD}) `, "i");
const REPORT = /=(\w+) REPORT==== (\S+) ===(?: (.*))?$/;
/** `(name)` or `(name, vhost: 'v', user: 'u'[, state: s][, duration: '…'])`; a client-provided name follows the address. */
const CONNECTION = /^(.*?)(?:, vhost: '(.*?)', user: '(.*?)')?(?:, state: \w+)?(?:, duration: '[^']*')?$/;
// The connection in parentheses; pasted logs also show it cut short or redacted.
// 4.1+ drops the connection's pid after the words (it is the line's own process) and adds `, duration: '…'`.
const CLOSING = /^closing AMQP connection (?:(<[\d.]+>)[. ]*)?(?:\((.*?)(?:\)(:?)|$))?[^\n]*\n?([\s\S]*)$/;
const CONNECTION_ERROR = /^Error on AMQP connection (<[\d.]+>) \((.*?)\)(?:, state: \w+)?, channel (\d+):\s*([\s\S]*)$/;
const FORCED_CLOSE = /^Closing connection (<[\d.]+>) because "?(.*?)"?$/;
const KNOWN_START = /^(?:[Cc]losing AMQP connection [<(]|Error on AMQP connection <|Channel error on connection <|Closing connection <|Consumer \S.* has timed out|FORMATTER CRASH: \{"Consumer)/;
const TIMEOUT_USED = /Timeout value used: (-?\d+) ms/;
// A pasted report may lose the connection's name and channel after the pid; the exception line still says what closed.
const CHANNEL_ERROR = /^Channel error on connection (<[\d.]+>)(?: \((.*)\), channel (\d+):)?\s*([\s\S]*)$/;
/**
 * 2.x–3.2 (rabbit_channel, rabbit_reader): `connection <pid>, channel N - error:` or `- soft error:`, then the
 * `{amqp_error,…}` term; and the reader's `closing TCP connection <pid> from ip:port` as every connection ends.
 */
const OLD_CHANNEL_ERROR = /^connection (<[\d.]+>), channel (\d+) - (?:soft )?error:\s*([\s\S]*)$/;
const OLD_TCP_CLOSE = /^closing TCP connection (<[\d.]+>) from (\S+)$/;
const QUEUE_IN_REASON = /\bqueue '([^']{1,255})'(?: in vhost '([^']{0,255})')?/;
const EXCEPTION = /^operation (\S+) caused a (?:channel|connection) exception (\w+): ([\s\S]*)$/;
/** Before 3.7 the reason is the Erlang term: `{amqp_error,precondition_failed,"unknown delivery tag 1",'basic.ack'}`. */
const AMQP_ERROR = /^\{amqp_error,\s*(\w+),\s*"((?:[^"\\]|\\.)*)",\s*([^}]*)\}$/;
const ACK_TIMED_OUT = /acknowledgement on channel \d+ timed out|consumer ack timed out on channel \d+/;
const BEFORE_HANDSHAKE = /^(?:TLS client detected on non-TLS AMQP port|HTTP GET request detected on AMQP port|client did not start with AMQP protocol header)/;
const HEARTBEATS = /^(?:missed heartbeats from client, timeout: (\d+)s|\{heartbeat_timeout,\w+\})$/i;
const LOST = /^(?:client unexpectedly closed TCP connection|connection_closed_abruptly|\{writer,send_failed,[^}]*\}|\{inet_error,[^}]*\})$/;

/** The consumer-timeout warning, by version; 4.3 continues on a second line, which the record assembly joins. */
const TIMEOUTS: { pattern: RegExp; template: string; read(m: RegExpExecArray): Omit<ConsumerTimeout, "template"> }[] = [
  {
    // 3.8.15–3.11
    pattern: /^Consumer (\S+) on channel (\d+) has timed out waiting on consumer acknowledgement\. Timeout used: (-?\d+) ms/,
    template: "Consumer {} on channel {} has timed out waiting on consumer acknowledgement. Timeout used: {} ms",
    read: (m) => ({ consumerTag: m[1]!, channel: +m[2]!, queue: null, vhost: null, deliveryTag: null, messageId: null, timeoutMs: +m[3]! }),
  },
  {
    // 3.12 (the first value is the delivery tag, printed where the consumer tag should be)
    pattern: /^Consumer (\S+) on channel (\d+) has timed out waiting for delivery acknowledgement\. Timeout used: (-?\d+) ms\./,
    template: "Consumer {} on channel {} has timed out waiting for delivery acknowledgement. Timeout used: {} ms.",
    read: (m) => ({ consumerTag: m[1]!, channel: +m[2]!, queue: null, vhost: null, deliveryTag: null, messageId: null, timeoutMs: +m[3]! }),
  },
  {
    // 3.13–4.2; 4.3 says `message id of N` on a second line; a 3.13 pre-release said `waiting for N delivery acknowledgement`
    pattern:
      /^Consumer '(.*?)' on channel (\d+) and queue '(.*?)' in vhost '(.*?)' has timed out waiting for (?:a consumer acknowledgement of a delivery with\s+(?:delivery tag = (\d+)|message id of (\d+))|(\d+) delivery acknowledgement)\. Timeout used: (-?\d+) ms\./,
    template: "Consumer '{}' on channel {} and queue '{}' in vhost '{}' has timed out waiting for a consumer acknowledgement of a delivery with delivery tag = {}. Timeout used: {} ms.",
    read: (m) => ({
      consumerTag: m[1]!,
      channel: +m[2]!,
      queue: m[3]!.trim() || null,
      vhost: m[4] || null,
      deliveryTag: m[5] !== undefined ? +m[5] : m[7] !== undefined ? +m[7] : null,
      messageId: m[6] !== undefined ? +m[6] : null,
      timeoutMs: +m[8]!,
    }),
  },
];

/**
 * 3.13+ prints `FORMATTER CRASH: {"<format string>",[args]}` when a message's arguments do not fit its format: the
 * consumer timeout's arguments are still readable from the list.
 */
const FORMATTER_TIMEOUT =
  /^FORMATTER CRASH: \{"Consumer '~ts' on channel ~w and ~ts has timed out[^"]*",\[(?:<<")?([^,"\]]*?)(?:">>)?,(\d+),"queue '(.*?)' in vhost '(.*?)'",(\d+),(\d+)\]\}/;

/**
 * Closes in the words of other releases and of the MQTT, STOMP and AMQP 1.0 readers, by their anchors: 4.3's
 * operator close (`Closing AMQP connection <pid> (…): Closed via management plugin`, WARNING), an expired credential,
 * an AMQP 1.0 close, MQTT's keepalive timeout and consumer timeout, STOMP's missed heartbeats, MQTT's closes by the
 * management plugin or CLI. Each names the fact and where the connection's name sits.
 */
const OTHER_CLOSES: { name: string; pattern: RegExp; action: "connection_closed" | "heartbeat_missed" | "ack_timeout"; wording: string }[] = [
  {
    name: "forced_close_43",
    pattern: /^Closing AMQP connection (?<pid><[\d.]+>) \((?<conn>.*)\): (?<reason>[\s\S]*)$/,
    action: "connection_closed",
    wording: "Closing AMQP connection {} ({}, vhost: '{}', user: '{}'): {}",
  },
  {
    name: "credential_expired",
    pattern: /^closing AMQP connection (?<name>.*?) of user '(?<user>[^']*)': (?<reason>credential has expired)/,
    action: "connection_closed",
    wording: "closing AMQP connection {} of user '{}': credential has expired",
  },
  { name: "amqp10_close", pattern: /^Closing AMQP 1\.0 connection (?<pid><[\d.]+>): (?<reason>[\s\S]*)$/, action: "connection_closed", wording: "Closing AMQP 1.0 connection {}: {}" },
  {
    name: "mqtt_keepalive",
    pattern: /^closing MQTT connection (?:<<")?(?<name>.*?)(?:">>)? \((?<reason>keepalive timeout)\)/,
    action: "heartbeat_missed",
    wording: "closing MQTT connection {} (keepalive timeout)",
  },
  {
    name: "stomp_heartbeat",
    pattern: /^STOMP detected missed client heartbeat\(s\) on connection (?<name>.*?), closing it/,
    action: "heartbeat_missed",
    wording: "STOMP detected missed client heartbeat(s) on connection {}, closing it",
  },
  {
    name: "mqtt_consumer_timeout",
    pattern: /^Terminating MQTT connection because consumer on queue '(?<queue>[^']*)' in vhost '(?<vhost>[^']*)' timed out/,
    action: "ack_timeout",
    wording: "Terminating MQTT connection because consumer on queue '{}' in vhost '{}' timed out",
  },
  {
    name: "stomp_close",
    pattern: /^closing STOMP connection (?<pid><[\d.]+>) \((?<name>[^)]*)\)(?:, reason: (?<reason>[\s\S]*))?$/,
    action: "connection_closed",
    wording: "closing STOMP connection {} ({})[, reason: {}]",
  },
  { name: "mqtt_close", pattern: /^MQTT closing connection (?:<<")?(?<name>.*?)(?:">>)?: (?<reason>[\s\S]*)$/, action: "connection_closed", wording: "MQTT closing connection {}: {}" },
];

/** The records this parser reads, in words (for `dupscope explain`). */
export const WORDINGS: readonly { name: string; wording: string }[] = [
  { name: "closing", wording: "closing AMQP connection {} ({}): client unexpectedly closed TCP connection | missed heartbeats from client, timeout: {}s" },
  { name: "connection_error", wording: "Error on AMQP connection {} ({}), channel 0: operation {} caused a connection exception {}: {}" },
  { name: "channel_error", wording: "Channel error on connection {} ({}), channel {}: operation {} caused a channel exception {}: {}" },
  { name: "forced_close", wording: 'Closing connection {} because "{}"' },
  ...TIMEOUTS.map((t, i) => ({ name: `consumer_timeout_${i + 1}`, wording: t.template })),
  ...OTHER_CLOSES.map((c) => ({ name: c.name, wording: c.wording })),
];

interface ConsumerTimeout {
  consumerTag: string;
  channel: number;
  queue: string | null;
  vhost: string | null;
  deliveryTag: number | null;
  messageId: number | null;
  timeoutMs: number | null;
  template: string;
}

interface Connection {
  name: string;
  pid: string;
  clientProvidedName: string | null;
  vhost: string | null;
  user: string | null;
}

/** One log record: its header and the lines of its message. */
interface LogRecord {
  lineNo: number;
  raws: string[];
  time: FoundTime | string;
  level: string | null;
  pid: string | null;
  /** Text the first physical line had before the header (a host, a container prefix), taken off continuations. */
  lead: string;
  stamp: string;
  lines: string[];
  /** A `=LEVEL REPORT====` block: every following line without a header belongs to it. */
  report: boolean;
}

/** A log cut mid-record must not make the state grow for good, nor one record hold a whole file. */
const MAX_PENDING_TIMEOUTS = 10_000;
const MAX_RECORD_LINES = 200;
const MAX_OPEN_RECORDS = 64;

function connectionOf(pid: string, inParens: string): Connection {
  const m = CONNECTION.exec(inParens)!;
  const [address, provided] = splitProvidedName(m[1]!);
  return { name: address.trim(), pid, clientProvidedName: provided, vhost: m[2] ?? null, user: m[3] ?? null };
}

/** `127.0.0.1:47916 -> 127.0.0.1:5672 - orders-api`: the broker's name, then the client's own. */
function splitProvidedName(name: string): [string, string | null] {
  const m = /^(.*? -> \S*) - (.*)$/.exec(name);
  return m ? [m[1]!, m[2]!] : [name, null];
}

function present(entries: Record<string, DetailValue | undefined>): Detail {
  const detail: Detail = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== null) detail[k] = v;
  return detail;
}

interface Header {
  lead: string;
  time: FoundTime | string;
  stamp: string;
  level: string | null;
  pid: string | null;
  message: string;
  report: boolean;
}

/** Reads a physical line's header, wherever the shipping put it; undefined for a line without one. */
/**
 * A record's inner line, on its own: pasted or quoted without the header line it continues. Only where no record is
 * open can it start one; after a header it is that record's continuation.
 */
const ORPHAN_START = /^(?:operation \S+ caused a (?:channel|connection) exception |connection <[\d.]+>, channel \d+ - |closing TCP connection <)/;

function readHeader(raw: string, ctx: ParseContext, lastTime: FoundTime | undefined, orphan: boolean): Header | undefined {
  const options = { utcOffset: ctx.utcOffset ?? "Z", ...(ctx.date ? { date: ctx.date } : {}) };
  const envelope = unwrap(raw, options);
  const text = envelope.text;
  // A pasted or cut line without a time: `[error] <0.1373.0> …`, `[warning] …` with the pid cut too, or a known
  // message on its own.
  const timeless = /^(?:\[(\w+)\] (<[\d.]+>) |\[(debug|info|notice|warning|error|critical|alert|emergency)\] )?/i.exec(text)!;
  const rest = text.slice(timeless[0].length);
  const borrowed = (timeless[0] !== "" || KNOWN_START.test(rest) || (orphan && ORPHAN_START.test(rest))) && !/^\d/.test(text) ? borrowedTime(lastTime, ctx.inputTime) : undefined;
  if (borrowed) {
    return { lead: "", time: borrowed, stamp: "", level: (timeless[1] ?? timeless[3])?.toLowerCase() ?? envelope.level ?? null, pid: timeless[2] ?? null, message: rest.trimStart(), report: false };
  }
  if (envelope.layers.includes("json")) {
    const time = envelope.time;
    if (!time) return undefined;
    const pid = envelope.fields?.pid ?? null;
    return { lead: "", time: time.ok ? time.time : time.reason, stamp: time.ok ? time.time.text : time.text, level: envelope.level ?? null, pid, message: text, report: false };
  }
  const report = REPORT.exec(text);
  if (report && report.index <= 40) {
    const time = findTimestamp(report[2]!, options);
    if (!time) return undefined;
    return {
      lead: text.slice(0, report.index),
      time: time.ok ? time.time : time.reason,
      stamp: report[2]!,
      level: report[1]!.toLowerCase(),
      pid: null,
      message: report[3] ?? "",
      report: true,
    };
  }
  const levelFirst = LEVEL_FIRST.exec(text);
  const scan = levelFirst ? text.slice(levelFirst[0].length) : text;
  const own = findTimestamp(scan.slice(0, 48), options);
  const ownAt = own === undefined ? -1 : own.ok ? own.time.index : scan.indexOf(own.text);
  // An ISO stamp with a zone at the very start reads as a kubectl/docker prefix: the envelope has it then.
  const time = own !== undefined && ownAt <= 24 ? own : envelope.time;
  if (!time) return undefined;
  const at = time === own ? ownAt : 0;
  const stampEnd = time === own ? at + (time.ok ? time.time.length : time.text.length) : 0;
  const after = AFTER_TIME.exec(scan.slice(stampEnd))!;
  const level = after[1] ?? after[2] ?? levelFirst?.[1] ?? null;
  if (level === null && after[3] === undefined) return undefined;
  return {
    lead: levelFirst ? "" : scan.slice(0, at),
    time: time.ok ? time.time : time.reason,
    stamp: scan.slice(at, stampEnd),
    level: level?.toLowerCase() ?? null,
    pid: after[3] ?? null,
    message: scan.slice(stampEnd + after[0].length),
    report: false,
  };
}

function base(record: LogRecord, ctx: ParseContext, time: FoundTime): Omit<NormalizedEvent, "kind" | "detail" | "instance"> {
  return {
    id: recordFingerprint(FORMAT, ...new Set(record.raws)),
    ts: time.ts,
    tsPrecision: time.precision,
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rabbitmq",
    topic: null,
    group: null,
    queue: null,
    queueOffset: null,
    retryTimes: null,
    redelivered: null,
    success: null,
    source: ctx.source,
  };
}

function connectionEvent(record: LogRecord, time: FoundTime, ctx: ParseContext, c: Connection, action: string, template: string, extra: Detail = {}): NormalizedEvent {
  return {
    ...base(record, ctx, time),
    kind: "instance_lifecycle",
    instance: c.name === "" || c.name === "->" ? null : connectionIdentity(c.name),
    detail: present({
      action,
      template,
      connection: c.name,
      connectionPid: c.pid,
      clientProvidedName: c.clientProvidedName ?? undefined,
      vhost: c.vhost ?? undefined,
      user: c.user ?? undefined,
      level: record.level ?? undefined,
      dateFrom: time.dateFrom,
      timeFrom: time.timeFrom,
      ...extra,
    }),
  };
}

/** What an exception line says: `operation x caused a … exception y: z`, or the pre-3.7 Erlang term. */
function readException(text: string): { operation?: string; exception: string; reason: string } | undefined {
  const m = EXCEPTION.exec(text);
  if (m) return { operation: m[1]!, exception: m[2]!, reason: m[3]!.replace(/\s+/g, " ").trim() };
  const term = AMQP_ERROR.exec(text.replace(/\s+/g, " ").trim());
  if (term) return { exception: term[1]!, reason: term[2]!, operation: term[3]!.replace(/'/g, "").trim() };
  return undefined;
}

export function openServerLog(ctx: ParseContext): LineParser {
  /** Records not complete yet, by header; `last` is the one header-less lines continue. */
  const open = new Map<string, LogRecord>();
  let last: LogRecord | undefined;
  /** The last time a header printed, for lines that print none. */
  let lastTime: FoundTime | undefined;
  /** Consumer-timeout warnings waiting for the channel error that names their connection, per channel process. */
  const timeouts = new Map<string, { timeout: ConsumerTimeout; record: LogRecord; time: FoundTime }>();

  const timeoutEvent = (pending: { timeout: ConsumerTimeout; record: LogRecord; time: FoundTime }): NormalizedEvent => {
    const t = pending.timeout;
    return {
      ...base(pending.record, ctx, pending.time),
      kind: "instance_lifecycle",
      instance: null,
      group: t.queue,
      queue: t.queue,
      detail: present({
        action: "ack_timeout",
        template: t.template,
        channel: t.channel,
        vhost: t.vhost ?? undefined,
        consumerTag: t.consumerTag,
        deliveryTag: t.deliveryTag ?? undefined,
        messageId: t.messageId ?? undefined,
        timeoutMs: t.timeoutMs ?? undefined,
        connectionUnknown: true,
        level: pending.record.level ?? undefined,
      }),
    };
  };

  type Pending = { timeout: ConsumerTimeout; record: LogRecord; time: FoundTime };
  /** Keeps a warning until its channel error; a warning pushed out (same process again, or too many) is reported. */
  const remember = (pid: string, pending: Pending): LineResult => {
    const overdue = timeouts.get(pid);
    timeouts.delete(pid);
    timeouts.set(pid, pending);
    const evicted: Pending[] = overdue ? [overdue] : [];
    if (timeouts.size > MAX_PENDING_TIMEOUTS) {
      const [oldest] = timeouts;
      timeouts.delete(oldest![0]);
      evicted.push(oldest![1]);
    }
    return { events: evicted.map(timeoutEvent), lines: evicted.map((p) => p.record.lineNo) };
  };

  function interpret(record: LogRecord): LineResult {
    const message = record.lines.join("\n").trim();
    if (typeof record.time === "string") {
      const known = /^(?:closing AMQP connection|Error on AMQP connection|Channel error on connection|Consumer .* has timed out)/.test(message);
      return known ? { events: [], issue: { line: record.lineNo, code: "invalid_field", reason: `timestamp: ${record.time}` } } : { events: [], skipped: true };
    }
    const time = record.time;
    const other = otherClose(record, time, message);
    if (other) return { events: [other] };
    const closing = CLOSING.exec(message);
    if (closing) {
      const c = connectionOf(closing[1] ?? record.pid ?? "", closing[2] ?? "");
      const reason = closing[4]!.trim();
      // Refused before the AMQP handshake (a TLS or HTTP client on the AMQP port): no consumer was ever there.
      if (BEFORE_HANDSHAKE.test(reason)) return { events: [], skipped: true };
      if (reason === "") return { events: [connectionEvent(record, time, ctx, c, "connection_closed", "closing AMQP connection {} ({})")] };
      if (LOST.test(reason)) return { events: [connectionEvent(record, time, ctx, c, "connection_lost", "closing AMQP connection {} ({}): client unexpectedly closed TCP connection", { reason })] };
      const hb = HEARTBEATS.exec(reason);
      if (hb) {
        const extra: Detail = hb[1] === undefined ? { reason } : { heartbeatTimeoutS: Number(hb[1]) };
        return { events: [connectionEvent(record, time, ctx, c, "heartbeat_missed", "closing AMQP connection {} ({}): missed heartbeats from client, timeout: {}s", extra)] };
      }
      return { events: [connectionEvent(record, time, ctx, c, "connection_closed", "closing AMQP connection {} ({}): {}", { reason: reason.replace(/\s+/g, " ") })] };
    }
    const connectionError = CONNECTION_ERROR.exec(message);
    if (connectionError) {
      const c = connectionOf(connectionError[1]!, connectionError[2]!);
      // An exception on channel 0 is the connection's: the reader closes it whatever the reason, so a record cut
      // before its reason line still states the close.
      if (connectionError[4]!.trim() === "") return { events: [connectionEvent(record, time, ctx, c, "connection_closed", "Error on AMQP connection {} ({}), channel 0:", { channel: Number(connectionError[3]) })] };
      const e = readException(connectionError[4]!);
      if (!e) return { events: [], skipped: true };
      const template = "Error on AMQP connection {} ({}), channel {}: operation {} caused a connection exception {}: {}";
      const extra = present({ channel: Number(connectionError[3]), operation: e.operation, exception: e.exception, reason: e.reason });
      return { events: [connectionEvent(record, time, ctx, c, "connection_closed", template, extra)] };
    }
    const forced = FORCED_CLOSE.exec(message);
    if (forced) {
      const c: Connection = { name: "", pid: forced[1]!, clientProvidedName: null, vhost: null, user: null };
      return { events: [connectionEvent(record, time, ctx, c, "connection_closed", 'Closing connection {} because "{}"', { reason: forced[2]! })] };
    }
    const oldClose = OLD_TCP_CLOSE.exec(message);
    if (oldClose) {
      const c: Connection = { name: "", pid: oldClose[1]!, clientProvidedName: null, vhost: null, user: null };
      return { events: [connectionEvent(record, time, ctx, c, "connection_closed", "closing TCP connection {} from {}", { peer: oldClose[2]! })] };
    }
    const oldChannelError = OLD_CHANNEL_ERROR.exec(message);
    if (oldChannelError) {
      const e = readException(oldChannelError[3]!);
      if (!e) return { events: [], skipped: true };
      const c: Connection = { name: "", pid: oldChannelError[1]!, clientProvidedName: null, vhost: null, user: null };
      const ackTimeout = ACK_TIMED_OUT.test(e.reason);
      const named = QUEUE_IN_REASON.exec(e.reason);
      const event = connectionEvent(record, time, ctx, c, ackTimeout ? "ack_timeout" : "channel_closed", "connection {}, channel {} - error: {}", {
        channel: Number(oldChannelError[2]),
        ...present({ operation: e.operation, exception: e.exception, reason: e.reason, vhost: named?.[2] }),
      });
      return { events: [named ? { ...event, group: named[1]!, queue: named[1]! } : event] };
    }
    const channelError = CHANNEL_ERROR.exec(message);
    if (channelError) {
      const e = readException(channelError[4]!);
      if (!e) return { events: [], skipped: true };
      const c = connectionOf(channelError[1]!, channelError[2] ?? "");
      const channel = channelError[3] === undefined ? undefined : Number(channelError[3]);
      const key = record.pid ?? "";
      const pending = timeouts.get(key);
      const timeout = pending !== undefined && pending.timeout.channel === channel ? pending.timeout : undefined;
      if (timeout) timeouts.delete(key);
      const ackTimeout = ACK_TIMED_OUT.test(e.reason);
      // A NOT_FOUND or RESOURCE_LOCKED reason names the queue the channel was using: `no queue 'q' in vhost 'v'`.
      const named = QUEUE_IN_REASON.exec(e.reason);
      const queue = timeout?.queue ?? named?.[1] ?? null;
      const event: NormalizedEvent = {
        ...base(record, ctx, time),
        kind: "instance_lifecycle",
        instance: c.name === "" || channel === undefined ? null : channelIdentity(c.name, channel),
        group: queue,
        queue,
        detail: present({
          action: ackTimeout ? "ack_timeout" : "channel_closed",
          template: ackTimeout
            ? (timeout?.template ?? "Channel error … delivery acknowledgement on channel {} timed out")
            : "Channel error on connection {} ({}), channel {}: operation {} caused a channel exception {}: {}",
          connection: c.name,
          connectionPid: c.pid,
          clientProvidedName: c.clientProvidedName ?? undefined,
          channel,
          vhost: c.vhost ?? timeout?.vhost ?? named?.[2] ?? undefined,
          user: c.user ?? undefined,
          operation: e.operation,
          exception: e.exception,
          reason: e.reason,
          consumerTag: timeout?.consumerTag,
          deliveryTag: timeout?.deliveryTag ?? undefined,
          messageId: timeout?.messageId ?? undefined,
          timeoutMs: timeout?.timeoutMs ?? (ackTimeout ? Number(TIMEOUT_USED.exec(e.reason)?.[1] ?? Number.NaN) : undefined),
          level: record.level ?? undefined,
        }),
      };
      if (Number.isNaN(event.detail.timeoutMs)) delete event.detail.timeoutMs;
      return { events: [event] };
    }
    // A channel's or connection's exception pasted or logged without its `Channel error on connection` line: the fact,
    // without the connection that would name the client.
    const bare = EXCEPTION.exec(message);
    if (bare && !/^operation \S+ caused a connection exception/.test(message)) {
      const reason = bare[3]!.replace(/\s+/g, " ").trim();
      const ackTimeout = ACK_TIMED_OUT.test(reason);
      const c: Connection = { name: "", pid: record.pid ?? "", clientProvidedName: null, vhost: null, user: null };
      const queue = QUEUE_IN_REASON.exec(reason)?.[1];
      const event = connectionEvent(record, time, ctx, c, ackTimeout ? "ack_timeout" : "channel_closed", "operation {} caused a channel exception {}: {}", {
        operation: bare[1]!,
        exception: bare[2]!,
        reason,
        ...(ackTimeout && TIMEOUT_USED.test(reason) ? { timeoutMs: Number(TIMEOUT_USED.exec(reason)![1]) } : {}),
      });
      return { events: [queue === undefined ? event : { ...event, group: queue, queue }] };
    }
    // Likewise a lost connection's reason under a header of its own (3.9+ repeats the header on each line of a
    // record; a paste keeps only the last): the loss, without the connection. A reason line without a header stays
    // the continuation of a record whose first line is missing.
    if (LOST.test(message) && record.level !== null) {
      const c: Connection = { name: "", pid: record.pid ?? "", clientProvidedName: null, vhost: null, user: null };
      return { events: [connectionEvent(record, time, ctx, c, "connection_lost", "client unexpectedly closed TCP connection", { reason: message })] };
    }
    if (bare) {
      const c: Connection = { name: "", pid: record.pid ?? "", clientProvidedName: null, vhost: null, user: null };
      return { events: [connectionEvent(record, time, ctx, c, "connection_closed", "operation {} caused a connection exception {}: {}", { operation: bare[1]!, exception: bare[2]!, reason: bare[3]!.trim() })] };
    }
    const oneLine = message.replace(/\s*\n\s*/g, " ");
    for (const form of TIMEOUTS) {
      const m = form.pattern.exec(oneLine);
      if (!m) continue;
      const read = form.read(m);
      const template = read.messageId === null ? form.template : form.template.replace("delivery tag = {}", "message id of {}");
      return remember(record.pid ?? "", { timeout: { ...read, template }, record, time });
    }
    const crash = FORMATTER_TIMEOUT.exec(oneLine);
    if (crash) {
      const timeout: ConsumerTimeout = {
        consumerTag: crash[1]!,
        channel: +crash[2]!,
        queue: crash[3]! || null,
        vhost: crash[4]! || null,
        deliveryTag: +crash[5]!,
        messageId: null,
        timeoutMs: +crash[6]!,
        template: "FORMATTER CRASH: {\"Consumer '~ts' on channel ~w and ~ts has timed out …\",[{},{},\"queue '{}' in vhost '{}'\",{},{}]}",
      };
      return remember(record.pid ?? "", { timeout, record, time });
    }
    return { events: [], skipped: true };
  }

  function otherClose(record: LogRecord, time: FoundTime, message: string): NormalizedEvent | undefined {
    for (const form of OTHER_CLOSES) {
      const g = form.pattern.exec(message)?.groups;
      if (!g) continue;
      const c = g.conn !== undefined ? connectionOf(g.pid!, g.conn) : { ...connectionOf(g.pid ?? record.pid ?? "", g.name ?? ""), user: g.user ?? null };
      const reason = g.reason?.replace(/\s+/g, " ").trim().replace(/^"(.*)"$/, "$1");
      const event = connectionEvent(record, time, ctx, c, form.action, form.wording, present({ reason, vhost: g.vhost }));
      return g.queue === undefined ? event : { ...event, group: g.queue, queue: g.queue };
    }
    return undefined;
  }

  /** Completes a record; its events are attributed to its first line. */
  function close(record: LogRecord): LineResult {
    open.delete(keyOf(record));
    if (last === record) last = undefined;
    const result = interpret(record);
    return result.events.length > 0 ? { ...result, lines: result.events.map((_, i) => result.lines?.[i] ?? record.lineNo) } : result;
  }

  function merge(results: LineResult[]): LineResult {
    const merged: LineResult = { events: results.flatMap((r) => r.events) };
    if (merged.events.length > 0) merged.lines = results.flatMap((r) => r.events.map((_, i) => r.lines?.[i] ?? 0));
    const issue = results.find((r) => r.issue)?.issue;
    if (issue) merged.issue = issue;
    if (results.some((r) => r.skipped)) merged.skipped = true;
    return merged;
  }

  return {
    line(raw, lineNo) {
      const header = readHeader(raw, ctx, lastTime, last === undefined);
      if (header && typeof header.time !== "string" && header.time.timeFrom === undefined) lastTime = header.time;
      // Lines without a header continue the record started last (3.7/3.8 continuation lines, 3.6 report bodies).
      if (!header) {
        if (!last) return { events: [], skipped: true };
        if (last.lines.length < MAX_RECORD_LINES) {
          const text = unwrap(raw, { utcOffset: "Z" }).text;
          last.lines.push(last.lead !== "" && text.startsWith(last.lead) ? text.slice(last.lead.length) : text);
          last.raws.push(raw);
        }
        return { events: [], continuation: true };
      }
      // 3.9+: a line with the header of a record still open is its next line, even with other processes' lines between.
      const same = header.report || (header.stamp === "" && header.pid === null) ? undefined : open.get(`${header.lead}|${header.pid}|${header.stamp}`);
      if (same && !same.report) {
        if (same.lines.length < MAX_RECORD_LINES) {
          same.lines.push(header.message);
          same.raws.push(raw);
        }
        last = same;
        return { events: [], continuation: true };
      }
      // A record is over once its process logs something else, or once a line more than a second newer arrives.
      const now = typeof header.time === "string" ? undefined : header.time.ts;
      const done = [...open.values()].filter(
        (r) => r.report || header.report || (header.pid !== null && r.pid === header.pid) || r.pid === null || typeof r.time === "string" || (now !== undefined && now - r.time.ts > 1000),
      );
      const results = done.map(close);
      if (open.size >= MAX_OPEN_RECORDS) results.push(close(open.values().next().value!));
      const record: LogRecord = {
        lineNo,
        raws: [raw],
        time: header.time,
        level: header.level,
        pid: header.pid,
        lead: header.lead,
        stamp: header.stamp,
        lines: header.message === "" ? [] : [header.message],
        report: header.report,
      };
      open.set(keyOf(record), record);
      last = record;
      return merge(results);
    },
    end() {
      const results = [...open.values()].map(close);
      const pending = [...timeouts.values()];
      timeouts.clear();
      return merge([...results, { events: pending.map(timeoutEvent), lines: pending.map((p) => p.record.lineNo) }]);
    },
  };
}

function keyOf(record: LogRecord): string {
  return `${record.lead}|${record.pid}|${record.stamp}`;
}

/** Never throws for any input text; throws for a ParseContext.utcOffset that is not an offset (configuration). */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openServerLog(ctx));
}
