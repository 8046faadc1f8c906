import { canonicalInstance } from "../../lib/events/instance.ts";
import type { EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import { logTimeLength, parseLogTime, type LogTime } from "../codecs/log-time.ts";
import { recordFingerprint } from "../fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * Kafka Java consumer logs (ConsumerCoordinator / AbstractCoordinator, clients 2.0 to 3.x): the rebalance lines
 * that say when a consumer gave up or received partitions. Whatever the logging pattern around it, Kafka puts
 * `[Consumer clientId=…, groupId=…] ` in front of the message, so the parser anchors on that and reads the
 * timestamp from the text before it: `[%d] %p %m (%c)` (Kafka's own log4j), `%d %p [%t] %c - %m` (logback),
 * Spring Boot's console pattern, a container-log prefix.
 */

export const FORMAT = "kafka-client-log";

export type ConsumerAction = "joining" | "joined" | "revoke" | "assign" | "lost" | "poll_timeout";

// clientId and groupId come from configuration and cannot contain `]`; `instanceId=` appears with static membership.
const CONSUMER_PREFIX = /\[Consumer (?:instanceId=([^,\]]*), )?clientId=([^,\]]*), groupId=([^\]]*)\] /;
// Kafka's log4j pattern ends with ` (%c)`; only a dotted class name is stripped, never text of the message.
const LOGGER_SUFFIX = /\s+\((?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*\)\s*$/;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/;
// Spring Boot 3 prints `2026-11-30T12:00:01.204+08:00`: a zone written on the line beats ctx.utcOffset.
const ZONE = /^(?:Z|[+-]\d{2}:?\d{2})/;
const GENERATION = /^Generation\{generationId=(-?\d+), memberId='([^']*)', protocol='([^']*)'\}$/;
// Topic names are [A-Za-z0-9._-]; a TopicPartition prints as `topic-N`, so the partition is the last `-N`.
const PARTITION = /^([A-Za-z0-9._-]+)-(\d+)$/;

const PARTITION_TEMPLATES: { action: "revoke" | "assign" | "lost"; pattern: RegExp }[] = [
  // "Revoking … [a-0, b-1]" before 2.4, "Revoke … a-0, b-1" since.
  { action: "revoke", pattern: /^((?:Revoke|Revoking) previously assigned partitions:?)\s*(.*)$/ },
  // "Setting" is the eager protocol's full assignment (before 2.4); for ownership it reads the same as "Adding".
  { action: "assign", pattern: /^((?:Adding|Setting) newly assigned partitions:?)\s*(.*)$/ },
  { action: "lost", pattern: /^(Lost previously assigned partitions:?)\s*(.*)$/ },
];
const JOINING = /^\(Re-\)joining group$/;
const JOINED = /^(Successfully joined group with generation) (.*)$/;
// Before 2.3 the heartbeat thread said "This member will leave the group because consumer poll timeout has expired.".
// The "Member … sending LeaveGroup request … due to consumer poll timeout has expired." that follows is the same
// occurrence and is deliberately not matched.
const POLL_TIMEOUT = /^((?:This member will leave the group because )?consumer poll timeout has expired\.)/;

interface ConsumerLine {
  header: string;
  clientId: string;
  groupId: string | null;
  groupInstanceId?: string;
  message: string;
}

type Template =
  | { action: "joining" | "poll_timeout"; template: string }
  | { action: "joined"; template: string; generation: string }
  | { action: "revoke" | "assign" | "lost"; template: string; partitions: string };

function splitConsumerLine(line: string): ConsumerLine | undefined {
  const m = CONSUMER_PREFIX.exec(line);
  if (!m) return undefined;
  return {
    header: line.slice(0, m.index),
    groupInstanceId: m[1],
    clientId: m[2]!,
    // KafkaConsumer prints the literal "null" for a consumer without group.id (manual assignment).
    groupId: m[3] === "null" || m[3] === "" ? null : m[3]!,
    message: line.slice(m.index + m[0].length).replace(LOGGER_SUFFIX, "").trimEnd(),
  };
}

function matchTemplate(message: string): Template | undefined {
  if (JOINING.test(message)) return { action: "joining", template: "(Re-)joining group" };
  const joined = JOINED.exec(message);
  if (joined) return { action: "joined", template: `${joined[1]} {}`, generation: joined[2]! };
  for (const { action, pattern } of PARTITION_TEMPLATES) {
    const m = pattern.exec(message);
    if (m) return { action, template: `${m[1]} {}`, partitions: m[2]! };
  }
  const poll = POLL_TIMEOUT.exec(message);
  if (poll) return { action: "poll_timeout", template: poll[1]! };
  return undefined;
}

function readTime(header: string, defaultOffset: string): LogTime | undefined {
  const start = TIMESTAMP.exec(header)?.index;
  if (start === undefined) return undefined;
  const text = header.slice(start);
  const zone = ZONE.exec(text.slice(logTimeLength(text)))?.[0];
  return parseLogTime(text, zone ?? defaultOffset);
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** `a-0, b-1` or `[a-0, b-1]`; a string names the first token that is not a partition. */
export function parsePartitions(list: string): TopicPartition[] | string {
  const inner = list.trim().replace(/^\[(.*)\]$/, "$1").trim();
  if (inner === "") return [];
  const partitions: TopicPartition[] = [];
  for (const token of inner.split(/\s*,\s*/)) {
    const m = PARTITION.exec(token);
    if (!m || !Number.isSafeInteger(Number(m[2]))) return `"${token}" is not a topic-partition`;
    partitions.push({ topic: m[1]!, partition: Number(m[2]) });
  }
  return partitions;
}

interface Generation {
  generationId: number;
  memberId?: string;
  protocol?: string;
}

/** 2.5+ prints the Generation object; older clients print only the number. */
function parseGeneration(text: string): Generation | undefined {
  if (/^-?\d+$/.test(text)) return { generationId: Number(text) };
  const m = GENERATION.exec(text);
  return m ? { generationId: Number(m[1]), memberId: m[2], protocol: m[3] } : undefined;
}

function kindOf(action: ConsumerAction): EventKind {
  return action === "poll_timeout" ? "instance_lifecycle" : "rebalance";
}

type Detail = NormalizedEvent["detail"];

function baseDetail(consumer: ConsumerLine, matched: Template): Detail {
  const detail: Detail = { action: matched.action, template: matched.template, clientId: consumer.clientId };
  if (consumer.groupInstanceId !== undefined) detail.groupInstanceId = consumer.groupInstanceId;
  return detail;
}

function eventOf(
  id: string,
  consumer: ConsumerLine,
  matched: Template,
  time: LogTime,
  ctx: ParseContext,
  extra: { queue?: string; topic?: string; detail?: Detail } = {},
): NormalizedEvent {
  return {
    id,
    kind: kindOf(matched.action),
    ts: time.ts,
    tsPrecision: time.precision,
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "kafka",
    topic: extra.topic ?? null,
    group: consumer.groupId,
    queue: extra.queue ?? null,
    queueOffset: null,
    // Default client ids (consumer-<group>-<n>) repeat on every host, so the collector's --instance names the
    // process when it is known; the client id stays in detail.
    instance: canonicalInstance(ctx.instance ?? consumer.clientId).canonical,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: { ...baseDetail(consumer, matched), ...extra.detail },
    source: ctx.source,
  };
}

function invalid(lineNo: number, reason: string): LineResult {
  return { events: [], issue: { line: lineNo, code: "invalid_field", reason } };
}

function eventsOf(line: string, lineNo: number, consumer: ConsumerLine, matched: Template, time: LogTime, ctx: ParseContext): LineResult {
  if (matched.action === "joined") {
    const generation = parseGeneration(matched.generation);
    if (!generation) return invalid(lineNo, `generation: "${matched.generation}" is neither a number nor Generation{…}`);
    return { events: [eventOf(recordFingerprint(FORMAT, line), consumer, matched, time, ctx, { detail: { ...generation } })] };
  }
  if (!("partitions" in matched)) {
    return { events: [eventOf(recordFingerprint(FORMAT, line), consumer, matched, time, ctx)] };
  }
  const partitions = parsePartitions(matched.partitions);
  if (typeof partitions === "string") return invalid(lineNo, `partitions: ${partitions}`);
  return {
    events: partitions.map(({ topic, partition }) => {
      const queue = `${topic}-${partition}`;
      return eventOf(recordFingerprint(FORMAT, line, queue), consumer, matched, time, ctx, { queue, topic, detail: { partition } });
    }),
  };
}

export function parseKafkaClientLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  const consumer = splitConsumerLine(line);
  const matched = consumer && matchTemplate(consumer.message);
  if (!consumer || !matched) return { events: [], skipped: true };
  const time = readTime(consumer.header, ctx.utcOffset ?? "Z");
  if (!time) return invalid(lineNo, "timestamp: no yyyy-MM-dd HH:mm:ss[.SSS] date-time before the [Consumer …] prefix");
  return eventsOf(line, lineNo, consumer, matched, time, ctx);
}

/** Never throws for any input text; throws for a ParseContext.utcOffset that is not an offset (configuration). */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseKafkaClientLine(line, lineNo, ctx));
}
