import { MAX_TS, MIN_TS, type DetailValue, type NormalizedEvent } from "../../lib/events/model.ts";
import { parseLogTime } from "../codecs/log-time.ts";
import { recordFingerprint } from "../fingerprint.ts";
import { channelIdentity, connectionIdentity } from "../rabbitmq-firehose/identity.ts";
import { parseLines, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * RabbitMQ's own log (3.9+ text format, every line `2024-10-04 03:23:52.968389-04:00 [level] <pid> message`, µs
 * with the zone): the lines that say a consumer's channel or connection ended with deliveries unacknowledged.
 *
 *   closing AMQP connection <pid> (name[, vhost: 'v', user: 'u'])            clean close → connection_closed
 *   closing AMQP connection <pid> (…):  + client unexpectedly closed TCP connection            → connection_lost
 *                                       + missed heartbeats from client, timeout: 60s          → heartbeat_missed
 *                                       + any other reason                                     → connection_closed
 *   Error on AMQP connection <pid> (…), channel 0:  + operation … caused a connection exception … → connection_closed
 *   Consumer … has timed out waiting for … acknowledgement …  (3.12 and older, 3.13–4.2, 4.3: see README)
 *   Channel error on connection <pid> (…), channel N:  + operation none caused a channel exception
 *                                       precondition_failed: delivery acknowledgement … timed out → ack_timeout
 *                                       + any other channel exception                          → channel_closed
 *
 * A message of several lines prints the same header (time, level, pid) on every line, so a continuation is a line
 * with the header of a message still open. The parser remembers, per input (ParseContext), the open first line of
 * each process until its continuation arrives, and the consumer-timeout warning of a channel until the channel
 * error it causes names the connection: the event is emitted on the line that completes it.
 */

export const FORMAT = "rabbitmq-server-log";

const HEADER = /^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:?\d{2})? \[(\w+)\] (<[\d.]+>) (.*)$/;
/** `(name)` or `(name, vhost: 'v', user: 'u'[, state: s])`; a client-provided name follows the address: ` - orders-api`. */
const CONNECTION = /^(.*?)(?:, vhost: '(.*?)', user: '(.*?)'(?:, state: \w+)?)?$/;
const CLOSING = /^closing AMQP connection (<[\d.]+>) \((.*)\)(:?)$/;
const CONNECTION_ERROR = /^Error on AMQP connection (<[\d.]+>) \((.*)\), channel 0:$/;
const CHANNEL_ERROR = /^Channel error on connection (<[\d.]+>) \((.*)\), channel (\d+):$/;
const CHANNEL_EXCEPTION = /^operation (\S+) caused a channel exception (\w+): (.*)$/;
const CONNECTION_EXCEPTION = /^operation (\S+) caused a connection exception (\w+): (.*)$/;
const ACK_TIMED_OUT = /delivery acknowledgement on channel \d+ timed out/;
const HEARTBEATS = /^missed heartbeats from client, timeout: (\d+)s$/;
const UNEXPECTED = /^client unexpectedly closed TCP connection$/;

/** The consumer-timeout warning, by version; the first two are one line, 4.3 continues on a second line. */
const TIMEOUT_312 = /^Consumer (\S+) on channel (\d+) has timed out waiting for delivery acknowledgement\. Timeout used: (-?\d+) ms\./;
const TIMEOUT_313 =
  /^Consumer '(.*)' on channel (\d+) and queue '(.*)' in vhost '(.*)' has timed out waiting for a consumer acknowledgement of a delivery with delivery tag = (\d+)\. Timeout used: (-?\d+) ms\./;
const TIMEOUT_43 = /^Consumer '(.*)' on channel (\d+) and queue '(.*)' in vhost '(.*)' has timed out waiting for a consumer acknowledgement of a delivery with$/;
const TIMEOUT_43_REST = /^\s*message id of (\d+)\. Timeout used: (-?\d+) ms\./;

type Detail = { [key: string]: DetailValue };

interface Line {
  raw: string;
  time: string;
  zone: string | undefined;
  level: string;
  pid: string;
  message: string;
}

/** A first line waiting for its continuation. */
interface Open {
  line: Line;
  kind: "closing" | "connection_error" | "channel_error" | "timeout_43";
  connection?: Connection;
  channel?: number;
  timeout?: ConsumerTimeout;
}

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

interface State {
  open: Map<string, Open>;
  timeouts: Map<string, ConsumerTimeout>;
}

const states = new WeakMap<ParseContext, State>();
/** A log cut mid-message must not make the state grow for good. */
const MAX_OPEN = 10_000;

function stateOf(ctx: ParseContext): State {
  let state = states.get(ctx);
  if (state === undefined) states.set(ctx, (state = { open: new Map(), timeouts: new Map() }));
  return state;
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_OPEN) map.delete(map.keys().next().value!);
}

function connectionOf(pid: string, inParens: string): Connection {
  const m = CONNECTION.exec(inParens)!;
  const [address, provided] = splitProvidedName(m[1]!);
  return { name: address.trim(), pid, clientProvidedName: provided, vhost: m[2] ?? null, user: m[3] ?? null };
}

/** `127.0.0.1:47916 -> 127.0.0.1:5672 - orders-api`: the broker's name, then the client's own. */
function splitProvidedName(name: string): [string, string | null] {
  const m = /^(.*? -> \S+) - (.*)$/.exec(name);
  return m ? [m[1]!, m[2]!] : [name, null];
}

function base(lines: Line[], ctx: ParseContext, ts: number): Omit<NormalizedEvent, "kind" | "detail" | "instance"> {
  return {
    id: recordFingerprint(FORMAT, ...new Set(lines.map((l) => l.raw))),
    ts,
    tsPrecision: "ms",
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

function present(entries: Record<string, DetailValue | undefined>): Detail {
  const detail: Detail = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== null) detail[k] = v;
  return detail;
}

function connectionEvent(open: Open, line: Line, ctx: ParseContext, ts: number, action: string, template: string, extra: Detail = {}): NormalizedEvent {
  const c = open.connection!;
  return {
    ...base([open.line, line], ctx, ts),
    kind: "instance_lifecycle",
    instance: c.name === "" ? null : connectionIdentity(c.name),
    detail: present({
      action,
      template,
      connection: c.name,
      connectionPid: c.pid,
      clientProvidedName: c.clientProvidedName ?? undefined,
      vhost: c.vhost ?? undefined,
      user: c.user ?? undefined,
      level: line.level,
      ...extra,
    }),
  };
}

function channelEvent(open: Open, line: Line, ctx: ParseContext, ts: number, m: RegExpExecArray, timeout: ConsumerTimeout | undefined): NormalizedEvent {
  const c = open.connection!;
  const ackTimeout = ACK_TIMED_OUT.test(m[3]!);
  return {
    ...base([open.line, line], ctx, ts),
    kind: "instance_lifecycle",
    instance: c.name === "" ? null : channelIdentity(c.name, open.channel!),
    group: timeout?.queue ?? null,
    queue: timeout?.queue ?? null,
    detail: present({
      action: ackTimeout ? "ack_timeout" : "channel_closed",
      template: ackTimeout ? timeout?.template ?? "Channel error … delivery acknowledgement on channel {} timed out" : "Channel error on connection {} ({}), channel {}: operation {} caused a channel exception {}: {}",
      connection: c.name,
      connectionPid: c.pid,
      channel: open.channel,
      vhost: c.vhost ?? timeout?.vhost ?? undefined,
      user: c.user ?? undefined,
      operation: m[1],
      exception: m[2],
      reason: m[3],
      consumerTag: timeout?.consumerTag,
      deliveryTag: timeout?.deliveryTag ?? undefined,
      messageId: timeout?.messageId ?? undefined,
      timeoutMs: timeout?.timeoutMs ?? undefined,
      level: line.level,
    }),
  };
}

/** The line that completes an open first line: the reason of a close, the exception of a channel error. */
function complete(open: Open, line: Line, ctx: ParseContext, ts: number, state: State): LineResult {
  const text = line.message.trim();
  switch (open.kind) {
    case "closing": {
      if (UNEXPECTED.test(text)) return { events: [connectionEvent(open, line, ctx, ts, "connection_lost", "closing AMQP connection {} ({}): client unexpectedly closed TCP connection")] };
      const hb = HEARTBEATS.exec(text);
      if (hb) return { events: [connectionEvent(open, line, ctx, ts, "heartbeat_missed", "closing AMQP connection {} ({}): missed heartbeats from client, timeout: {}s", { heartbeatTimeoutS: Number(hb[1]) })] };
      return { events: [connectionEvent(open, line, ctx, ts, "connection_closed", "closing AMQP connection {} ({}): {}", { reason: text })] };
    }
    case "connection_error": {
      const m = CONNECTION_EXCEPTION.exec(text);
      if (!m) return { events: [], skipped: true };
      return { events: [connectionEvent(open, line, ctx, ts, "connection_closed", "Error on AMQP connection {} ({}), channel 0: operation {} caused a connection exception {}: {}", { operation: m[1]!, exception: m[2]!, reason: m[3]! })] };
    }
    case "channel_error": {
      const m = CHANNEL_EXCEPTION.exec(text);
      if (!m) return { events: [], skipped: true };
      const timeout = state.timeouts.get(open.line.pid);
      state.timeouts.delete(open.line.pid);
      return { events: [channelEvent(open, line, ctx, ts, m, timeout?.channel === open.channel ? timeout : undefined)] };
    }
    case "timeout_43": {
      const m = TIMEOUT_43_REST.exec(line.message);
      if (m) remember(state.timeouts, open.line.pid, { ...open.timeout!, messageId: Number(m[1]), timeoutMs: Number(m[2]) });
      return { events: [] };
    }
  }
}

/**
 * A first line: a clean close is complete by itself; the others start a message that continues, or are remembered
 * until the channel error they cause.
 */
function begin(line: Line, ctx: ParseContext, ts: number, state: State): LineResult {
  const text = line.message;
  const closing = CLOSING.exec(text);
  if (closing) {
    const open: Open = { line, kind: "closing", connection: connectionOf(closing[1]!, closing[2]!) };
    if (closing[3] !== ":") return { events: [connectionEvent(open, line, ctx, ts, "connection_closed", "closing AMQP connection {} ({})")] };
    remember(state.open, line.pid, open);
    return { events: [] };
  }
  const connectionError = CONNECTION_ERROR.exec(text);
  if (connectionError) {
    remember(state.open, line.pid, { line, kind: "connection_error", connection: connectionOf(connectionError[1]!, connectionError[2]!) });
    return { events: [] };
  }
  const channelError = CHANNEL_ERROR.exec(text);
  if (channelError) {
    remember(state.open, line.pid, { line, kind: "channel_error", connection: connectionOf(channelError[1]!, channelError[2]!), channel: Number(channelError[3]) });
    return { events: [] };
  }
  const t312 = TIMEOUT_312.exec(text);
  if (t312) {
    const template = "Consumer {} on channel {} has timed out waiting for delivery acknowledgement. Timeout used: {} ms.";
    remember(state.timeouts, line.pid, { consumerTag: t312[1]!, channel: Number(t312[2]), queue: null, vhost: null, deliveryTag: null, messageId: null, timeoutMs: Number(t312[3]), template });
    return { events: [] };
  }
  const t313 = TIMEOUT_313.exec(text);
  if (t313) {
    const template = "Consumer '{}' on channel {} and queue '{}' in vhost '{}' has timed out waiting for a consumer acknowledgement of a delivery with delivery tag = {}. Timeout used: {} ms.";
    remember(state.timeouts, line.pid, { consumerTag: t313[1]!, channel: Number(t313[2]), queue: t313[3]!.trim() || null, vhost: t313[4] || null, deliveryTag: Number(t313[5]), messageId: null, timeoutMs: Number(t313[6]), template });
    return { events: [] };
  }
  const t43 = TIMEOUT_43.exec(text);
  if (t43) {
    const template = "Consumer '{}' on channel {} and queue '{}' in vhost '{}' has timed out waiting for a consumer acknowledgement of a delivery with message id of {}. Timeout used: {} ms.";
    const timeout: ConsumerTimeout = { consumerTag: t43[1]!, channel: Number(t43[2]), queue: t43[3]!.trim() || null, vhost: t43[4] || null, deliveryTag: null, messageId: null, timeoutMs: null, template };
    remember(state.timeouts, line.pid, timeout);
    remember(state.open, line.pid, { line, kind: "timeout_43", timeout });
    return { events: [] };
  }
  return { events: [], skipped: true };
}

export function parseServerLogLine(raw: string, lineNo: number, ctx: ParseContext): LineResult {
  const h = HEADER.exec(raw);
  if (!h) return { events: [], skipped: true };
  const line: Line = { raw, time: h[1]!, zone: h[2], level: h[3]!, pid: h[4]!, message: h[5]! };
  const parsed = parseLogTime(line.time, line.zone ?? ctx.utcOffset ?? "Z");
  if (!parsed || parsed.ts < MIN_TS || parsed.ts >= MAX_TS) return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `timestamp: "${line.time}" is not a date-time between 2000 and 2100` } };
  const state = stateOf(ctx);
  const open = state.open.get(line.pid);
  // A continuation repeats its first line's header exactly.
  if (open !== undefined && open.line.time === line.time && open.line.zone === line.zone) {
    state.open.delete(line.pid);
    return complete(open, line, ctx, parsed.ts, state);
  }
  if (open !== undefined) state.open.delete(line.pid);
  return begin(line, ctx, parsed.ts, state);
}

/** Never throws for any input text; throws for a ParseContext.utcOffset that is not an offset (configuration). */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseServerLogLine(line, lineNo, ctx));
}
