import { canonicalInstance } from "../../lib/events/instance.ts";
import { MAX_TS, MIN_TS, type Broker, type DetailValue, type EventKind, type NormalizedEvent } from "../../lib/events/model.ts";
import type { AttrValue, Attributes, OtlpSpan } from "./spans.ts";

/**
 * Messaging spans to normalized events, by the OpenTelemetry messaging semantic conventions, current and deprecated
 * names alike: agents emit the old names unless OTEL_SEMCONV_STABILITY_OPT_IN=messaging, kafkajs only the new ones,
 * amqplib only pre-1.17 ones (README.md in this folder lists what each instrumentation emits, with sources).
 *
 *   send span (PRODUCER)      → `publish`, or `send_attempt` when its status is ERROR
 *   process span (CONSUMER)   → `consume_start` at its start, `consume_end` at its end (success unless ERROR)
 *   amqplib's process span    → ends at the settle: ack adds `ack`; nack/reject end the attempt failed; a channel
 *                               that closed or failed first leaves no `consume_end` and a keyless `channel_closed`
 *   settle span               → `ack` (RabbitMQ Java `basic.ack`/`ack`, with its process span's identity)
 *   receive / poll / create   → nothing: a poll is not a processing, and agents record receive spans only on request
 *
 * Event ids come from trace id + span id (+ message index), so an exporter's retried batch stores nothing twice.
 */

export const FORMAT = "otlp-traces";

const AMQPLIB_SCOPE = "@opentelemetry/instrumentation-amqplib";
/** The event model's bounds (eventInputSchema): a longer value cannot be a key or an id there. */
const MAX_MSG_ID = 128;
const MAX_BIZ_KEY = 512;
const DEFAULT_EXCHANGE = "amq.default";

/** Which attribute holds the business key, per messaging system and optionally per destination. */
export interface KeyRule {
  system: Broker;
  destination?: string;
  attributes: string[];
}

export const DEFAULT_KEY_ATTRIBUTES: Record<Broker, string[]> = {
  rocketmq: ["messaging.rocketmq.message.keys", "messaging.rocketmq.message_keys", "rocketmq.message.keys"],
  kafka: ["messaging.kafka.message.key", "messaging.kafka.message_key"],
  rabbitmq: ["messaging.message.id", "messaging.message_id", "messaging.message.conversation_id", "messaging.conversation_id"],
};

/**
 * DUPSCOPE_OTLP_KEYS: `<system>[:<destination>]=<attribute>[,<attribute>…]` rules separated by `;`, e.g.
 * `kafka=messaging.header.x_order_id;rabbitmq:payments=messaging.message.conversation_id`. A destination rule beats
 * its system's; a system without a rule uses DEFAULT_KEY_ATTRIBUTES.
 */
export class KeyRulesError extends Error {
  override name = "KeyRulesError";
}

export function parseKeyRules(text: string | undefined): KeyRule[] {
  if (text === undefined || text.trim() === "") return [];
  return text
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const m = /^(rocketmq|kafka|rabbitmq)(?::([^=]+))?=(.+)$/.exec(part);
      if (!m) throw new KeyRulesError(`DUPSCOPE_OTLP_KEYS: "${part}" is not <rocketmq|kafka|rabbitmq>[:<destination>]=<attribute>[,<attribute>…]`);
      const attributes = m[3]!.split(",").map((a) => a.trim()).filter((a) => a !== "");
      if (attributes.length === 0) throw new KeyRulesError(`DUPSCOPE_OTLP_KEYS: "${part}" names no attribute`);
      return { system: m[1] as Broker, ...(m[2] !== undefined ? { destination: m[2].trim() } : {}), attributes };
    });
}

export function keyRulesFromEnv(env: Record<string, string | undefined> = process.env): KeyRule[] {
  return parseKeyRules(env.DUPSCOPE_OTLP_KEYS);
}

export interface MappedSpans {
  events: NormalizedEvent[];
  /** For each event, the index of the span it came from. */
  spanOf: number[];
  /** Messaging spans that name a message but could not be tied to a key or a message id. */
  refused: number[];
}

/** Each event's source is `otlp-traces:<service.name>`: a service that stops exporting is a silent source of its own. */
export function mapSpans(spans: readonly OtlpSpan[], keys: readonly KeyRule[] = []): MappedSpans {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: MappedSpans = { events: [], spanOf: [], refused: [] };
  spans.forEach((span, index) => {
    const result = spanEvents(span, keys, byId);
    if (result === "refused") out.refused.push(index);
    else
      for (const event of result) {
        out.events.push(event);
        out.spanOf.push(index);
      }
  });
  return out;
}

type Operation = "send" | "receive" | "process" | "settle" | "create";

/** `messaging.operation.type` (current), else `messaging.operation` (old values: publish, deliver), else the span's kind and name. */
export function operationOf(span: OtlpSpan): Operation | null {
  const raw = text(span.attributes["messaging.operation.type"]) ?? text(span.attributes["messaging.operation"]);
  switch (raw) {
    case "send":
    case "publish":
      return "send";
    case "process":
    case "deliver":
      return "process";
    case "receive":
      return "receive";
    case "settle":
      return "settle";
    case "create":
      return "create";
  }
  if (/^basic\.(ack|nack|reject)$/.test(span.name) || /^(ack|nack|reject)$/.test(span.name)) return "settle";
  if (span.kind === "producer") return "send";
  if (span.kind === "consumer") return /(^(receive|poll) )|( receive$)/.test(span.name) ? "receive" : "process";
  return null;
}

function brokerOf(span: OtlpSpan): Broker | null {
  const system = text(span.attributes["messaging.system"])?.toLowerCase();
  return system === "rocketmq" || system === "kafka" || system === "rabbitmq" ? system : null;
}

interface Identity {
  bizKeys: (string | null)[];
  msgId: string | null;
  topic: string | null;
  group: string | null;
  queue: string | null;
  queueOffset: number | null;
  partition: string | null;
}

function spanEvents(span: OtlpSpan, keys: readonly KeyRule[], byId: ReadonlyMap<string, OtlpSpan>): NormalizedEvent[] | "refused" {
  const broker = brokerOf(span);
  if (broker === null) return [];
  const operation = operationOf(span);
  if (operation === "settle") return settleEvents(span, broker, keys, byId);
  if (operation !== "send" && operation !== "process") return [];
  const ok = span.status.code !== "error";
  const messages = messagesOf(span, broker, keys);
  if (messages.length === 0) return "refused";
  const base = baseOf(span, broker);
  const ended = span.scope.name === AMQPLIB_SCOPE ? amqplibEnd(span.status.message, ok) : ok ? "done" : "failed";
  const events: NormalizedEvent[] = [];
  messages.forEach((m, messageIndex) => {
    m.bizKeys.forEach((bizKey, keyIndex) => {
      const suffix = `${messageIndex}.${keyIndex}`;
      const fields = { ...base, ...m, bizKey, bizKeys: undefined };
      if (operation === "send") {
        events.push(event(span, fields, ok ? "publish" : "send_attempt", span.startMs, `send.${suffix}`, ok));
        return;
      }
      events.push(event(span, fields, "consume_start", span.startMs, `start.${suffix}`, null));
      if (ended === "closed") return;
      events.push(event(span, fields, "consume_end", span.endMs, `end.${suffix}`, ended === "done" || ended === "acked"));
      if (ended === "acked" || ended === "rejected") events.push(event(span, fields, "ack", span.endMs, `ack.${suffix}`, ended === "acked"));
    });
  });
  if (operation === "process" && ended === "closed") {
    events.push(channelClosed(span, base, messages));
  }
  return events;
}

/**
 * How amqplib's consume span ended (instrumentation-amqplib `endConsumerSpan`): UNSET at ack, ackAll or noAck;
 * ERROR "nack|reject|nackAll called on message with(out) requeue"; ERROR "channel closed" / "channel error" when the
 * channel went first; ERROR "instrumentation timeout…" when nothing settled within its consumeTimeoutMs.
 */
function amqplibEnd(message: string, ok: boolean): "acked" | "rejected" | "closed" | "failed" {
  if (ok) return "acked";
  if (/^(nack|reject|nackAll) called on message/.test(message)) return "rejected";
  if (/^channel (closed|error)$/.test(message)) return "closed";
  // "instrumentation timeout…", or an error status of the application's own: the attempt failed.
  return "failed";
}

/** The channel under a consumer went away with the message unsettled: RabbitMQ requeues it (as the firehose shows). */
function channelClosed(span: OtlpSpan, base: Base, messages: Identity[]): NormalizedEvent {
  const queue = messages[0]?.queue ?? null;
  return {
    ...blank(span, "instance_lifecycle", span.endMs, "closed"),
    broker: base.broker,
    source: base.source,
    group: queue,
    queue,
    instance: base.instance,
    detail: detailOf(span, base, { action: "channel_closed", reason: span.status.message, msgIds: messages.flatMap((m) => (m.msgId === null ? [] : [m.msgId])) }),
  };
}

/** A settle span: the ack of the message its parent process span handled (RabbitMQ Java puts it inside). */
function settleEvents(span: OtlpSpan, broker: Broker, keys: readonly KeyRule[], byId: ReadonlyMap<string, OtlpSpan>): NormalizedEvent[] | "refused" {
  const parent = span.parentSpanId === null ? undefined : byId.get(span.parentSpanId);
  if (parent === undefined || operationOf(parent) !== "process") return [];
  const messages = messagesOf(parent, broker, keys);
  if (messages.length !== 1) return [];
  const m = messages[0]!;
  const base = baseOf(span, broker);
  const verb = (text(span.attributes["messaging.operation.name"]) ?? span.name).replace(/^basic\./, "");
  return m.bizKeys.map((bizKey, keyIndex) =>
    event(span, { ...base, ...m, bizKey, bizKeys: undefined }, "ack", span.startMs, `settle.${keyIndex}`, verb === "ack" && span.status.code !== "error"),
  );
}

type Base = { broker: Broker; instance: string | null; source: string; instanceFrom: string | null };

function baseOf(span: OtlpSpan, broker: Broker): Base {
  const { instance, from } = instanceOf(span.resource);
  const service = text(span.resource["service.name"]);
  return { broker, instance, instanceFrom: from, source: `${FORMAT}:${service ?? "unknown_service"}`.slice(0, 512) };
}

/**
 * The process behind a span, from its resource: `k8s.pod.name` (stable per pod), else `host.name@process.pid` (the
 * identity style of the other sources), else `service.instance.id` (a random id per start in the Java agent and
 * auto-instrumentations-node), else `host.name`, else only `service.name`, which cannot tell two replicas apart.
 */
export function instanceOf(resource: Attributes): { instance: string | null; from: string | null } {
  const pod = text(resource["k8s.pod.name"]);
  if (pod !== null) return { instance: pod, from: "k8s.pod.name" };
  const host = text(resource["host.name"]);
  const pid = integer(resource["process.pid"]);
  if (host !== null && pid !== null) return { instance: canonicalInstance(`${host}@${pid}`).canonical, from: "host.name@process.pid" };
  const id = text(resource["service.instance.id"]);
  if (id !== null) return { instance: id, from: "service.instance.id" };
  if (host !== null) return { instance: host, from: "host.name" };
  const service = text(resource["service.name"]);
  return service !== null ? { instance: service, from: "service.name" } : { instance: null, from: null };
}

/** The messages a span is about: itself, or for a batch process span the links that name one each. */
function messagesOf(span: OtlpSpan, broker: Broker, keys: readonly KeyRule[]): Identity[] {
  const count = integer(span.attributes["messaging.batch.message_count"]);
  if (count !== null && count > 1) {
    return span.links.flatMap((link) => {
      const m = identity({ ...span.attributes, ...link.attributes }, span, broker, keys);
      return m.msgId === null && m.bizKeys.every((k) => k === null) ? [] : [m];
    });
  }
  const m = identity(span.attributes, span, broker, keys);
  return m.msgId === null && m.bizKeys.every((k) => k === null) ? [] : [m];
}

function identity(a: Attributes, span: OtlpSpan, broker: Broker, keys: readonly KeyRule[]): Identity {
  const topic = broker === "rabbitmq" ? exchangeOf(a) : text(a["messaging.destination.name"]) ?? text(a["messaging.destination"]);
  const partition = text(a["messaging.destination.partition.id"]) ?? text(a["messaging.kafka.destination.partition"]) ?? text(a["messaging.kafka.partition"]);
  const offset = integer(a["messaging.kafka.offset"]) ?? integer(a["messaging.kafka.message.offset"]) ?? integer(a["messaging.rocketmq.queue_offset"]);
  // A RocketMQ queue is `brokerName:queueId` in every other source, and spans name no broker (queue_id, when the
  // experimental attributes are on, is the same number on every broker): left unknown rather than mismatched.
  let queue: string | null = null;
  if (broker === "kafka" && topic !== null && partition !== null) queue = `${topic}-${partition}`;
  else if (broker === "rabbitmq") queue = rabbitQueueOf(span, a);
  let group = text(a["messaging.consumer.group.name"]) ?? text(a["messaging.kafka.consumer.group"]) ?? text(a["messaging.rocketmq.client_group"]);
  // RabbitMQ has no consumer group: consumers of one queue share its messages, so the queue is the group.
  if (group === null && broker === "rabbitmq" && operationOf(span) === "process") group = queue;
  let msgId = text(a["messaging.message.id"]) ?? text(a["messaging.message_id"]);
  // Kafka names a record only by its place: topic, partition and offset.
  if (msgId === null && broker === "kafka" && queue !== null && offset !== null) msgId = `${queue}@${offset}`;
  if (msgId !== null && msgId.length > MAX_MSG_ID) msgId = null;
  const bizKeys = keysOf(a, broker, topic, keys);
  return { bizKeys: bizKeys.length > 0 ? bizKeys : [null], msgId, topic, group, queue, queueOffset: broker === "rabbitmq" ? null : offset, partition };
}

function keysOf(a: Attributes, broker: Broker, topic: string | null, rules: readonly KeyRule[]): string[] {
  const rule = rules.find((r) => r.system === broker && r.destination !== undefined && r.destination === topic) ?? rules.find((r) => r.system === broker && r.destination === undefined);
  for (const attribute of rule?.attributes ?? DEFAULT_KEY_ATTRIBUTES[broker]) {
    const value = a[attribute];
    const values = (Array.isArray(value) ? value : [value]).flatMap((v) => {
      const t = typeof v === "number" ? String(v) : text(v);
      if (t === null) return [];
      // RocketMQ joins several keys with spaces in one KEYS property (the trace collector splits them the same way);
      // any other system's key is one value, spaces and all.
      return (broker === "rocketmq" ? t.split(" ") : [t]).filter((k) => k !== "" && k.length <= MAX_BIZ_KEY);
    });
    if (values.length > 0) return [...new Set(values)];
  }
  return [];
}

/** amqplib: `messaging.destination` is the exchange ("" for the default); Java new mode: `exchange:routingKey[:queue]`. */
function exchangeOf(a: Attributes): string {
  const old = a["messaging.destination"];
  if (typeof old === "string") return old.trim() === "" ? DEFAULT_EXCHANGE : old.trim();
  const name = text(a["messaging.destination.name"]);
  if (name === null || name === "<default>" || name === "amq.default") return DEFAULT_EXCHANGE;
  return name.split(":")[0]!.trim() || DEFAULT_EXCHANGE;
}

/** The queue a RabbitMQ consumer read: new-mode destination `exchange:rk:queue`, else the span name `<queue> process`. */
function rabbitQueueOf(span: OtlpSpan, a: Attributes): string | null {
  const name = text(a["messaging.destination.name"]);
  const parts = name?.split(":") ?? [];
  if (parts.length >= 3 && parts[2]!.trim() !== "") return parts[2]!.trim();
  const m = /^(.+) process$/.exec(span.name);
  if (m && m[1] !== "<default>" && m[1] !== "<generated>") return m[1]!.trim();
  return null;
}

type Fields = Omit<Identity, "bizKeys"> & Base & { bizKey: string | null; bizKeys: undefined };

function event(span: OtlpSpan, f: Fields, kind: EventKind, ts: number, suffix: string, success: boolean | null): NormalizedEvent {
  return {
    ...blank(span, kind, ts, suffix),
    bizKey: f.bizKey,
    msgId: f.msgId,
    broker: f.broker,
    topic: f.topic,
    group: f.group,
    queue: f.queue,
    queueOffset: f.queueOffset,
    instance: f.instance,
    success,
    source: f.source,
    detail: detailOf(span, f, f.partition === null ? {} : { partition: f.partition }),
  };
}

function blank(span: OtlpSpan, kind: EventKind, ts: number, suffix: string): NormalizedEvent {
  return {
    id: `${FORMAT}:${span.traceId}:${span.spanId}:${suffix}`,
    kind,
    ts: Math.min(Math.max(ts, MIN_TS), MAX_TS - 1),
    tsPrecision: "ms",
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "kafka",
    topic: null,
    group: null,
    queue: null,
    queueOffset: null,
    instance: null,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: {},
    source: FORMAT,
  };
}

function detailOf(span: OtlpSpan, base: Base, extra: Record<string, DetailValue>): Record<string, DetailValue> {
  const a = span.attributes;
  const exception = span.events.find((e) => e.name === "exception");
  const detail: Record<string, DetailValue> = {
    traceId: span.traceId,
    spanId: span.spanId,
    spanName: span.name.slice(0, 256),
    spanKind: span.kind,
    scope: span.scope.name.slice(0, 256),
    durationMs: span.endMs - span.startMs,
    ...extra,
  };
  const optional: Record<string, DetailValue | null> = {
    parentSpanId: span.parentSpanId,
    links: span.links.length > 0 ? span.links.slice(0, 32).map((l) => l.spanId) : null,
    status: span.status.code === "unset" ? null : span.status.code,
    statusMessage: span.status.message === "" ? null : span.status.message.slice(0, 512),
    errorType: text(a["error.type"]) ?? text(exception?.attributes["exception.type"]),
    instanceFrom: base.instanceFrom,
    service: text(span.resource["service.name"]),
    // Semantic conventions 1.26+ / 1.17–1.25 / before 1.17 (where RocketMQ had its own).
    messagingClientId: text(a["messaging.client.id"]) ?? text(a["messaging.client_id"]) ?? text(a["messaging.rocketmq.client_id"]),
    // `clustering` or `broadcasting`: the group's message model, which members.ts keeps as the brokers' connect lines'.
    messageModel: text(a["messaging.rocketmq.consumption_model"]),
    routingKey: text(a["messaging.rabbitmq.destination.routing_key"]) ?? text(a["messaging.rabbitmq.routing_key"]),
    deliveryTag: integer(a["messaging.rabbitmq.message.delivery_tag"]),
    // The 4.8 agent's experimental attributes (otel.instrumentation.rocketmq-client.experimental-span-attributes)
    // predate the message.* names: tags, broker_address, send_result.
    tag: text(a["messaging.rocketmq.message.tag"]) ?? text(a["messaging.rocketmq.tags"]),
    brokerAddress: text(a["messaging.rocketmq.broker_address"]),
    sendResult: text(a["messaging.rocketmq.send_result"]),
    messageType: text(a["messaging.rocketmq.message.type"]),
    deliveryTimestamp: integer(a["messaging.rocketmq.message.delivery_timestamp"]),
    batchCount: integer(a["messaging.batch.message_count"]),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== null) detail[key] = value;
  return detail;
}

function text(value: AttrValue | undefined): string | null {
  if (typeof value === "string") return value.trim() === "" ? null : value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A whole number from an int attribute or a numeric string (kafkajs writes offsets as strings). */
function integer(value: AttrValue | undefined): number | null {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
