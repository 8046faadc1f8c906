import { canonicalInstance } from "../../lib/events/instance.ts";
import { compact } from "../codecs/detail.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import { headTemplate, inputOptions, javaRecords, readTemplateLine, TemplateSet, type DecodedLine, type MessageTemplate } from "../codecs/log-record.ts";
import { parseChannel } from "../codecs/rocketmq-tokens.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { ROCKETMQ_UTC_OFFSET } from "../rocketmq-client-log/parse.ts";
import { parseAlone, parseLines, type LineParser, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * RocketMQ broker logs: consumer connections coming and going in `broker.log` (who owned a group's queues, and when a
 * consumer vanished without a shutdown) and transaction check-backs in `transaction.log`. Both files use the broker
 * pattern, stamped to the second in GMT+8. ParseContext.instance names the broker; the consumer a line is about is the
 * event's instance. Templates and their events are listed in README.md.
 */

export const FORMAT = "rocketmq-broker-log";

type Detail = { [key: string]: DetailValue | undefined };

interface Draft {
  kind: EventKind;
  group?: string;
  /** The ClientChannelInfo or `ip:port` naming the consumer. */
  channel?: string;
  msgId?: string | null;
  topic?: string | null;
  detail: Detail;
}

/** A message that passes `head` but not `read` is reported as invalid_field. */
type Template = MessageTemplate<Draft>;

function lifecycle(
  name: string,
  head: RegExp,
  wording: string,
  full: RegExp,
  action: string,
  extra: (g: Record<string, string>) => Detail = () => ({}),
): Template {
  return {
    name,
    head,
    wording,
    read(message) {
      const g = full.exec(message)?.groups as Record<string, string> | undefined;
      if (!g) return undefined;
      return [{ kind: "instance_lifecycle", group: g.group!, channel: g.channel!, detail: { action, ...extra(g) } }];
    },
  };
}

// ClientChannelInfo holds brackets of its own, so a channel runs to the last `]` before the fixed tail.
/** A broker line about a consumer group or a connection that names no ClientChannelInfo. */
function brokerLine(name: string, head: RegExp, wording: string, read: (m: RegExpExecArray) => Draft): Template {
  return headTemplate(name, head, wording, (m) => [read(m)]);
}

export const TEMPLATES: Template[] = [
  lifecycle(
    "consumer_connected",
    /new consumer connected, group: /,
    "new consumer connected, group: {} {} {} channel: {}",
    /^new consumer connected, group: (?<group>\S+) (?<consumeType>\S+) (?<messageModel>\S+) channel: (?<channel>.+)$/,
    "connected",
    (g) => ({ consumeType: g.consumeType, messageModel: g.messageModel }),
  ),
  lifecycle(
    "consumer_unregistered",
    /unregister a consumer\[/,
    "unregister a consumer[{}] from consumerGroupInfo {}",
    /^unregister a consumer\[(?<group>[^\]\s]+)\] from consumerGroupInfo (?<channel>.+)$/,
    "unregistered",
  ),
  lifecycle(
    "channel_inactive",
    /NETTY EVENT: remove not active channel\[/,
    "NETTY EVENT: remove not active channel[{}] from ConsumerGroupInfo groupChannelTable, consumer group: {}",
    /^NETTY EVENT: remove not active channel\[(?<channel>.+)\] from ConsumerGroupInfo groupChannelTable, consumer group: (?<group>\S+)$/,
    "channel_inactive",
  ),
  // The 5.x wording of the same event.
  lifecycle(
    "channel_inactive",
    /NETTY EVENT: remove idle channel\[/,
    "NETTY EVENT: remove idle channel[{}] from ConsumerGroupInfo, consumerGroup: {}",
    /^NETTY EVENT: remove idle channel\[(?<channel>.+)\] from ConsumerGroupInfo, consumerGroup: (?<group>\S+)$/,
    "channel_inactive",
  ),
  lifecycle(
    "channel_expired",
    /SCAN: remove expired channel from ConsumerManager consumerTable\. /,
    "SCAN: remove expired channel from ConsumerManager consumerTable. channel={}, consumerGroup={}",
    /^SCAN: remove expired channel from ConsumerManager consumerTable\. channel=(?<channel>\S+), consumerGroup=(?<group>\S+)$/,
    "channel_expired",
  ),
  brokerLine(
    "consumer_group_removed",
    /unregister consumer ok, no any connection, and remove consumer group, (\S+)/,
    "unregister consumer ok, no any connection, and remove consumer group, {}",
    (m) => ({ kind: "instance_lifecycle", group: m[1]!, detail: { action: "group_removed" } }),
  ),
  brokerLine(
    "netty_channel_inactive",
    /NETTY SERVER PIPELINE: channelInactive, the channel\[([^\]]*)\]/,
    "NETTY SERVER PIPELINE: channelInactive, the channel[{}]",
    (m) => ({ kind: "instance_lifecycle", channel: m[1]!, detail: { action: "channel_closed" } }),
  ),
  brokerLine(
    "close_channel",
    /closeChannel: close the connection to remote address\[([^\]]*)\] result: (\w+)/,
    "closeChannel: close the connection to remote address[{}] result: {}",
    (m) => ({ kind: "instance_lifecycle", channel: m[1]!, detail: { action: "channel_closed", closed: m[2] === "true" } }),
  ),
  brokerLine(
    "reset_offset",
    /\[reset-offset\] reset offset (started by (\S+)|success)\. topic=([^,\s]+), group=([^,\s]+)(?:, timestamp=(\d+))?/,
    "[reset-offset] reset offset started by {}. topic={}, group={}, timestamp={}, isForce={}",
    (m) => ({
      kind: "instance_lifecycle",
      group: m[4]!,
      topic: m[3]!,
      detail: { action: "offset_reset", stage: m[1] === "success" ? "success" : "started", by: m[2], resetTo: m[5] === undefined ? undefined : Number(m[5]) },
    }),
  ),
  {
    name: "transaction_check",
    head: /Check transaction\. /,
    wording: "Check transaction. real_topic={},uniqKey={},offset={},commitLogOffset={}",
    read(message) {
      const g = /^Check transaction\. real_topic=(?<topic>[^,]*), ?uniqKey=(?<uniqKey>[^,]*), ?offset=(?<offset>\d+), ?commitLogOffset=(?<commitLogOffset>\d+)$/.exec(
        message,
      )?.groups;
      const [halfQueueOffset, commitLogOffset] = [Number(g?.offset), Number(g?.commitLogOffset)];
      if (!g || !Number.isSafeInteger(halfQueueOffset) || !Number.isSafeInteger(commitLogOffset)) return undefined;
      // `offset` is the half message's position in RMQ_SYS_TRANS_HALF_TOPIC, not in real_topic, so it is not the
      // event's queueOffset: that would pose as a second stored copy in the real topic.
      const detail = { checkback: true, commitLogOffset, halfQueueOffset };
      return [{ kind: "transaction", msgId: present(g.uniqKey!), topic: present(g.topic!), detail }];
    },
  },
];

/** Java prints an absent value as `null`. */
function present(text: string): string | null {
  return text === "" || text === "null" ? null : text;
}

/** The consumer a channel names: its clientId (`ip@pid`, as the client log names it) or else its remote host. */
function consumerOf(channel: string | undefined): { instance: string | null; raw?: string; remoteAddress?: string } {
  if (channel === undefined) return { instance: null };
  const token = parseChannel(channel);
  const raw = token.clientId ?? token.remoteAddress ?? undefined;
  return { instance: raw === undefined ? null : canonicalInstance(raw).canonical, raw, remoteAddress: token.remoteAddress ?? undefined };
}


const TEMPLATE_SET = new TemplateSet(TEMPLATES);
const DEFAULT_OFFSET = ROCKETMQ_UTC_OFFSET;

/** Like the client log: a keyed kind whose line gives no msgId is kept as instance_lifecycle, marked unkeyed. */
function finish(draft: Draft, template: string, line: DecodedLine, ctx: ParseContext): NormalizedEvent {
  const consumer = consumerOf(draft.channel);
  const msgId = draft.msgId ?? null;
  const unkeyed = draft.kind === "transaction" && msgId === null;
  return {
    id: recordFingerprint(FORMAT, ctx.instance ?? "", line.raw, 0),
    kind: unkeyed ? "instance_lifecycle" : draft.kind,
    ts: line.time.ts,
    tsPrecision: line.time.precision,
    bizKey: null,
    msgId,
    offsetMsgId: null,
    broker: "rocketmq",
    topic: draft.topic ?? null,
    group: draft.group ?? null,
    queue: null,
    queueOffset: null,
    instance: consumer.instance,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: compact({
      template,
      ...draft.detail,
      instanceRaw: consumer.raw,
      remoteAddress: consumer.remoteAddress,
      brokerInstance: ctx.instance ?? line.envelope.host,
      brokerLine: line.raw,
      unkeyed: unkeyed || undefined,
      exception: line.envelope.exception,
      dateFrom: line.time.dateFrom,
      timeFrom: line.time.timeFrom,
    }),
    source: ctx.source,
  };
}

export function openBrokerLog(ctx: ParseContext): LineParser {
  const options = inputOptions(ctx, DEFAULT_OFFSET);
  const toEvents = (drafts: Draft[], line: DecodedLine, template: string) => drafts.map((draft) => finish(draft, template, line, ctx));
  return javaRecords((line, lineNo) => readTemplateLine(line, lineNo, TEMPLATE_SET, options, toEvents));
}

/** One line read as a whole input. */
export function parseBrokerLogLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  return parseAlone(openBrokerLog(ctx), line, lineNo);
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openBrokerLog(ctx));
}
