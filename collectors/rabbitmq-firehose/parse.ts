import { MAX_TS, MIN_TS, type DetailValue, type EventKind, type NormalizedEvent, type TsPrecision } from "../../lib/events/model.ts";
import { formatIssues } from "../../lib/events/validate.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseResult } from "../types.ts";
import { DEFAULT_KEY, extractKey, keySpecSchema, type KeySpec } from "./config.ts";
import { messageMarks } from "./headers.ts";
import { channelIdentity, connectionIdentity, parseChannelName } from "./identity.ts";
import { amqpTimestampMs, bodyBytes, firehoseRecordSchema, integer, strings, table, text, type FirehoseRecord, type Table } from "./record.ts";

/**
 * RabbitMQ's firehose (`amq.rabbitmq.trace`: `publish.<exchange>`, `deliver.<queue>`) and event exchange
 * (`amq.rabbitmq.event`: connection, channel, consumer and queue events), one received message per NDJSON line
 * (record.ts), into normalized events. Trace messages carry no time of their own, so they are stamped with the
 * collector's receipt time and say so (`detail.stampedOnReceipt`); events carry `timestamp_in_ms`.
 */

export const FORMAT = "rabbitmq-firehose";

export interface FirehoseOptions {
  /** Where the business key is (config.ts); message_id by default. */
  key: KeySpec;
}

type Detail = { [key: string]: DetailValue };

/** The default exchange has the empty name, which a topic cannot hold; RabbitMQ accepts `amq.default` for it. */
const DEFAULT_EXCHANGE = "amq.default";
const MAX_MSG_ID = 128;

interface Common {
  id: string;
  record: FirehoseRecord;
  ctx: ParseContext;
}

function event(c: Common, fields: Partial<NormalizedEvent> & { kind: EventKind; ts: number; detail: Detail }): NormalizedEvent {
  const detail: Detail = { ...fields.detail };
  if (c.record.redelivered === true) detail.collectorRedelivered = true;
  return {
    id: c.id,
    kind: fields.kind,
    ts: fields.ts,
    tsPrecision: fields.tsPrecision ?? "ms",
    bizKey: fields.bizKey ?? null,
    msgId: fields.msgId ?? null,
    offsetMsgId: null,
    broker: "rabbitmq",
    topic: fields.topic ?? null,
    group: fields.group ?? null,
    queue: fields.queue ?? null,
    queueOffset: null,
    instance: fields.instance ?? null,
    retryTimes: fields.retryTimes ?? null,
    redelivered: fields.redelivered ?? null,
    success: null,
    detail,
    source: c.ctx.source,
  };
}

/** Optional detail entries: only what the record had. */
function present(entries: Record<string, DetailValue | undefined>): Detail {
  const detail: Detail = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== null) detail[k] = v;
  return detail;
}

/** A name that goes into an identity or a queue column: trimmed, and null when nothing is left. */
function name(value: unknown): string | null {
  return text(value)?.trim() || null;
}

function traceInstance(headers: Table): string | null {
  const connection = name(headers.connection);
  const channel = integer(headers.channel);
  if (connection === null) return null;
  return channel === null ? connectionIdentity(connection) : channelIdentity(connection, channel);
}

function redeliveredFlag(value: unknown): boolean | null {
  if (value === 1 || value === true) return true;
  if (value === 0 || value === false) return false;
  return null;
}

function traceEvent(c: Common, kind: "publish" | "deliver", options: FirehoseOptions): NormalizedEvent | null {
  const { record } = c;
  const headers = record.headers;
  const properties = table(headers.properties);
  const messageId = text(properties.message_id)?.trim() || null;
  const msgId = messageId !== null && messageId.length <= MAX_MSG_ID ? messageId : null;
  const bizKey = extractKey(options.key, { properties, body: () => bodyBytes(record) });
  // Without a key or a message id the message cannot be tied to anything diagnosis looks up.
  if (bizKey === null && msgId === null) return null;

  const exchange = typeof headers.exchange_name === "string" ? headers.exchange_name : record.routingKey.slice("publish.".length);
  const marks = messageMarks(table(properties.headers));
  const instance = traceInstance(headers);
  const detail: Detail = {
    stampedOnReceipt: true,
    exchange,
    routingKeys: strings(headers.routing_keys),
    ...present({
      connection: text(headers.connection) ?? undefined,
      channel: integer(headers.channel) ?? undefined,
      user: text(headers.user) ?? undefined,
      node: text(headers.node) ?? undefined,
      vhost: text(headers.vhost) ?? record.vhost,
      messageId: msgId === null ? (messageId ?? undefined) : undefined,
      correlationId: text(properties.correlation_id) ?? undefined,
      appId: text(properties.app_id) ?? undefined,
      publishedAt: amqpTimestampMs(properties.timestamp) ?? undefined,
    }),
    bodyBytes: bodyBytes(record).length,
    ...marks.detail,
  };
  const common = { ts: record.receivedAt, bizKey, msgId, topic: exchange.trim() === "" ? DEFAULT_EXCHANGE : exchange.trim(), instance };
  if (kind === "publish") {
    const routed = strings(headers.routed_queues);
    detail.routedQueues = routed;
    return event(c, { kind: "publish", ...common, queue: routed.length === 1 ? routed[0]!.trim() || null : null, detail });
  }
  const queue = record.routingKey.slice("deliver.".length).trim() || null;
  return event(c, {
    kind: "consume_start",
    ...common,
    // RabbitMQ has no consumer group: the consumers of one queue share its messages, so the queue is the group.
    group: queue,
    queue,
    retryTimes: marks.retryTimes,
    redelivered: redeliveredFlag(headers.redelivered),
    detail,
  });
}

/** `timestamp_in_ms` (3.8+), else the message's `timestamp` property (seconds), else the receipt time. */
function eventTime(record: FirehoseRecord): { ts: number; tsPrecision: TsPrecision; stamped: boolean } {
  const ms = integer(record.headers.timestamp_in_ms);
  if (ms !== null && ms > 0) return { ts: ms, tsPrecision: "ms", stamped: false };
  const seconds = amqpTimestampMs(record.properties?.timestamp);
  if (seconds !== null && seconds > 0) return { ts: seconds, tsPrecision: "s", stamped: false };
  return { ts: record.receivedAt, tsPrecision: "ms", stamped: true };
}

/** `client_properties` arrive as Erlang terms: `{<<"connection_name">>,longstr,<<"orders-api">>}`. */
function clientProvidedName(headers: Table): string | null {
  const explicit = text(headers.user_provided_name);
  if (explicit !== null) return explicit;
  for (const term of strings(headers.client_properties)) {
    const m = /^\{<<"connection_name">>,longstr,<<"(.*)">>\}$/.exec(term);
    if (m) return m[1]!;
  }
  return null;
}

function channelOf(record: FirehoseRecord): string | null {
  const parsed = record.channelName === undefined ? null : parseChannelName(record.channelName);
  return parsed === null ? null : channelIdentity(parsed.connection, parsed.channel);
}

function brokerEvent(c: Common): NormalizedEvent | null {
  const { record } = c;
  const h = record.headers;
  const time = eventTime(record);
  const at = { ts: time.ts, tsPrecision: time.tsPrecision };
  const base = present({
    event: record.routingKey,
    vhost: text(h.vhost) ?? record.vhost,
    by: text(h.user_who_performed_action) ?? undefined,
    stampedOnReceipt: time.stamped ? true : undefined,
  });
  const named = name(h.name);
  switch (record.routingKey) {
    case "connection.created":
    case "connection.closed": {
      const closed = record.routingKey === "connection.closed";
      const detail = present({
        ...base,
        action: closed ? "connection_closed" : "connection_opened",
        connection: named ?? undefined,
        connectionPid: text(h.pid) ?? undefined,
        clientProvidedName: clientProvidedName(h) ?? undefined,
        user: text(h.user) ?? undefined,
        node: text(h.node) ?? undefined,
        type: text(h.type) ?? undefined,
      });
      return event(c, { kind: "instance_lifecycle", ...at, instance: named === null ? null : connectionIdentity(named), detail });
    }
    case "channel.created": {
      const parsed = named === null ? null : parseChannelName(named);
      const number = integer(h.number) ?? parsed?.channel ?? null;
      const instance = parsed === null || number === null ? null : channelIdentity(parsed.connection, number);
      const detail = present({ ...base, action: "channel_opened", channelPid: text(h.pid) ?? undefined, connectionPid: text(h.connection) ?? undefined, channel: number ?? undefined, user: text(h.user) ?? undefined });
      return event(c, { kind: "instance_lifecycle", ...at, instance, detail });
    }
    case "channel.closed":
      return event(c, { kind: "instance_lifecycle", ...at, instance: channelOf(record), detail: present({ ...base, action: "channel_closed", channelPid: text(h.pid) ?? undefined }) });
    case "consumer.created":
    case "consumer.deleted": {
      const queue = name(h.queue);
      const detail = present({
        ...base,
        action: record.routingKey === "consumer.created" ? "consumer_created" : "consumer_deleted",
        consumerTag: text(h.consumer_tag) ?? undefined,
        channelPid: text(h.channel) ?? undefined,
        ackRequired: typeof h.ack_required === "boolean" ? h.ack_required : undefined,
        prefetchCount: integer(h.prefetch_count) ?? undefined,
        exclusive: typeof h.exclusive === "boolean" ? h.exclusive : undefined,
      });
      // A consumer joining or leaving changes who shares the queue's messages, but hands no unacknowledged message
      // over (only a closed channel does), so these are recorded for the timeline, not read by a rule.
      return event(c, { kind: "rebalance", ...at, queue, group: queue, instance: channelOf(record), detail });
    }
    case "queue.deleted":
      return event(c, { kind: "rebalance", ...at, queue: named, group: named, detail: present({ ...base, action: "queue_deleted" }) });
    default:
      return null;
  }
}

export function parseFirehoseRecord(record: FirehoseRecord, id: string, ctx: ParseContext, options: FirehoseOptions = { key: DEFAULT_KEY }): NormalizedEvent | null {
  const c: Common = { id, record, ctx };
  if (record.routingKey.startsWith("publish.")) return traceEvent(c, "publish", options);
  if (record.routingKey.startsWith("deliver.")) return traceEvent(c, "deliver", options);
  return brokerEvent(c);
}

/** A line parser for one key configuration; the registry's entry uses message_id. */
export function firehoseLineParser(options: FirehoseOptions = { key: DEFAULT_KEY }) {
  return (line: string, lineNo: number, ctx: ParseContext): LineResult => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return { events: [], issue: { line: lineNo, code: "malformed", reason: "not a JSON record" } };
    }
    const parsed = firehoseRecordSchema.safeParse(raw);
    if (!parsed.success) return { events: [], issue: { line: lineNo, code: "invalid_field", reason: formatIssues(parsed.error) } };
    if (parsed.data.bodyEncoding === "base64" && !/^[A-Za-z0-9+/]*={0,2}$/.test(parsed.data.body)) {
      return { events: [], issue: { line: lineNo, code: "invalid_field", reason: "body: bodyEncoding is base64 but the body is not" } };
    }
    let key = options.key;
    if (parsed.data.key !== undefined) {
      const spec = keySpecSchema.safeParse(parsed.data.key);
      if (!spec.success) return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `key: ${formatIssues(spec.error)}` } };
      key = spec.data;
    }
    const found = parseFirehoseRecord(parsed.data, recordFingerprint(FORMAT, line), ctx, { key });
    if (found === null) return { events: [], skipped: true };
    if (found.ts < MIN_TS || found.ts >= MAX_TS) {
      return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `time ${found.ts} is not epoch milliseconds between 2000 and 2100` } };
    }
    return { events: [found] };
  };
}

export const parseFirehoseLine = firehoseLineParser();

export function parse(text: string, ctx: ParseContext, options: FirehoseOptions = { key: DEFAULT_KEY }): ParseResult {
  const parseLine = firehoseLineParser(options);
  return parseLines(text, (line, lineNo) => parseLine(line, lineNo, ctx));
}
