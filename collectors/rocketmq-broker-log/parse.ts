import { canonicalInstance } from "../../lib/events/instance.ts";
import { compact } from "../codecs/detail.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import { groupIn, messageQueuesIn, rocketmqClientIdIn } from "../codecs/extract.ts";
import { headTemplate, inputOptions, javaRecords, readTemplateLine, TemplateSet, type DecodedLine, type MessageTemplate } from "../codecs/log-record.ts";
import { parseChannel, parseClientId } from "../codecs/rocketmq-tokens.ts";
import { SignalSet, type Signal } from "../codecs/signals.ts";
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
  /** The consumer's clientId, where the line names it without a ClientChannelInfo (the queue-lock lines). */
  clientId?: string;
  /** `broker:queueId`, for a line about one queue. */
  queue?: string;
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
function brokerLine(name: string, head: RegExp, wording: string, read: (m: RegExpExecArray, message: string) => Draft): Template {
  return headTemplate(name, head, wording, (m, message) => [read(m, message)]);
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
  // ProducerManager: a producer group's channels. Their facts are apart from the consumer group's (`producer_*`), so a
  // producer never counts as a consumer group's member even where both groups share a name.
  lifecycle(
    "producer_connected",
    /new producer connected, group: /,
    "new producer connected, group: {} channel: {}",
    /^new producer connected, group: (?<group>\S+) channel: (?<channel>.+)$/,
    "producer_connected",
    () => ({ role: "producer" }),
  ),
  lifecycle(
    "producer_unregistered",
    /unregister a producer\[/,
    "unregister a producer[{}] from groupChannelTable {}",
    /^unregister a producer\[(?<group>[^\]\s]+)\] from groupChannelTable (?<channel>.+)$/,
    "producer_disconnected",
    () => ({ role: "producer", reason: "unregistered" }),
  ),
  lifecycle(
    "producer_channel_inactive",
    /NETTY EVENT: remove channel\[/,
    "NETTY EVENT: remove channel[{}][{}] from ProducerManager groupChannelTable, producer group: {}",
    /^NETTY EVENT: remove channel\[(?<channel>.+)\] from ProducerManager groupChannelTable, producer group: (?<group>\S+)$/,
    "producer_disconnected",
    () => ({ role: "producer", reason: "channel_inactive" }),
  ),
  // 4.x `SCAN: remove expired channel[…]`, 5.x `ProducerManager#scanNotActiveChannel: remove expired channel[…]`.
  lifecycle(
    "producer_channel_expired",
    /remove expired channel\[/,
    "SCAN: remove expired channel[{}] from ProducerManager groupChannelTable, producer group name: {}",
    /remove expired channel\[(?<channel>[^\]]{0,300})\] from ProducerManager groupChannelTable, producer group name: (?<group>\S+)$/,
    "producer_disconnected",
    () => ({ role: "producer", reason: "channel_expired" }),
  ),
  brokerLine(
    "producer_group_removed",
    /unregister a producer group\[([^\]\s]+)\] from groupChannelTable|SCAN: remove expired channel from ProducerManager groupChannelTable, all clear, group=(\S+)/,
    "unregister a producer group[{}] from groupChannelTable",
    (m) => ({ kind: "instance_lifecycle", group: (m[1] ?? m[2])!, detail: { action: "producer_group_removed", role: "producer" } }),
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
    (m, message) => ({
      kind: "instance_lifecycle",
      group: m[4]!,
      topic: m[3]!,
      // The success line names each client whose offsets were moved.
      detail: {
        action: "offset_reset",
        stage: m[1] === "success" ? "success" : "started",
        by: m[2],
        resetTo: m[5] === undefined ? undefined : Number(m[5]),
        clientId: /\bclientId=([^,\s]+)/.exec(message)?.[1],
      },
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
  const consumer = draft.clientId === undefined ? consumerOf(draft.channel) : { instance: canonicalInstance(draft.clientId).canonical, raw: draft.clientId, remoteAddress: undefined };
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
    queue: draft.queue ?? null,
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

type SignalAction =
  | "connected"
  | "add"
  | "remove"
  | "trigger"
  | "channel_inactive"
  | "channel_expired"
  | "unregistered"
  | "group_removed"
  | "channel_closed"
  | "producer_connected"
  | "producer_disconnected"
  | "producer_group_removed";

// A producer's channel or group holds no queue: its lines say nothing of a consumer group.
const PRODUCER = /ProducerManager|producer group/i;

/**
 * The broker's facts by their anchors, for the wordings of other releases and forks and for lines cut or re-framed so
 * that no template reads them: a channel removed from a consumer group, expired, closed idle; a queue lock of an
 * orderly consumer handed to another client or released; a channel whose clientId changed; a registration that
 * changed the group (the broker then tells its consumers to rebalance).
 */
export const SIGNALS: readonly Signal<SignalAction>[] = [
  // First: a producer's line read by a consumer's signal would make it a consumer group's member.
  {
    name: "producer_group_removed",
    action: "producer_group_removed",
    anchor: /unregister a producer group\b|ProducerManager groupChannelTable, all clear/,
    wording: "a producer group's last channel left the broker",
  },
  {
    name: "producer_disconnected",
    action: "producer_disconnected",
    anchor: /unregister a producer\b|remov(?:e|ing) (?:expired |not active |inactive |idle )?channel\b[^\n]{0,400}\bfrom ProducerManager\b/,
    wording: "a producer's channel left its producer group",
  },
  { name: "producer_connected", action: "producer_connected", anchor: /new producer connected\b/, wording: "a producer registered with its producer group" },
  {
    name: "client_id_changed",
    action: "connected",
    // 4.x `[BUG] consumer channel exist in broker, but clientId not equal. GROUP: … OLD: … NEW: …`; 5.x `ConsumerGroupInfo:
    // consumer channel exists in broker, but clientId is not the same one, group=…, old clientChannelInfo=…, new …`.
    anchor: /consumer channel exists? in broker, but clientId (?:is )?not (?:the same|equal)/,
    wording: "a consumer channel now registers another clientId: the new one is the group's member on it",
  },
  {
    name: "queue_lock_taken",
    action: "add",
    anchor: /\bI got it\b|lock a message(?: queue)? which has not been locked yet|try to lock a expired message queue/,
    unless: /locked by other client/,
    wording: "an orderly consumer took a queue's lock on the broker (a lock that had expired passes to the new client)",
  },
  {
    name: "queue_lock_released",
    action: "remove",
    anchor: /\bunlockBatch, Group: |#unlockBatch: unlock mq\b/,
    wording: "an orderly consumer released a queue's lock on the broker",
  },
  {
    name: "channel_inactive",
    action: "channel_inactive",
    anchor: /NETTY EVENT: remov(?:e|ing) (?:not active|inactive|idle) channel/,
    unless: PRODUCER,
    wording: "a consumer's channel went inactive and was removed from its group",
  },
  {
    name: "channel_expired",
    action: "channel_expired",
    anchor: /SCAN: remove expired channel/,
    unless: new RegExp(`${PRODUCER.source}|all clear`, "i"),
    wording: "a consumer's channel sent no heartbeat for 120 s and was removed",
  },
  { name: "unregistered", action: "unregistered", anchor: /unregister a consumer\b/, wording: "a consumer unregistered from its group" },
  { name: "group_removed", action: "group_removed", anchor: /remove consumer group\b/, wording: "a consumer group's last connection left" },
  {
    name: "channel_closed",
    action: "channel_closed",
    // IDLE: nothing read or written for the channel's idle time (120 s), so the broker closes it, as after missed
    // heartbeats. An `exceptionCaught` is not read: the `channelInactive` after it says the channel closed.
    anchor: /NETTY SERVER PIPELINE: (?:IDLE exception|channelInactive)\b[^\n]{0,10}\d|closeChannel: close the connection/,
    wording: "the broker closed or lost a client's channel",
  },
  { name: "connected", action: "connected", anchor: /new consumer connected\b/, unless: PRODUCER, wording: "a consumer connected to its group" },
  {
    name: "register_changed",
    action: "trigger",
    // 4.x `registerConsumer info changed ConsumerData [...] addr`; 5.x `ClientManageProcessor: registerConsumer info changed, …`.
    anchor: /registerConsumer info changed\b/,
    wording: "a consumer's registration changed its group (a new member or subscription): the broker tells the group to rebalance",
  },
];

const SIGNAL_KINDS: Record<SignalAction, EventKind> = {
  connected: "instance_lifecycle",
  add: "rebalance",
  remove: "rebalance",
  trigger: "rebalance",
  channel_inactive: "instance_lifecycle",
  channel_expired: "instance_lifecycle",
  unregistered: "instance_lifecycle",
  group_removed: "instance_lifecycle",
  channel_closed: "instance_lifecycle",
  producer_connected: "instance_lifecycle",
  producer_disconnected: "instance_lifecycle",
  producer_group_removed: "instance_lifecycle",
};

const CHANNEL_INFO = /ClientChannelInfo \[channel=[^\]]{0,200}\][^\]]{0,400}\]/g;
const ADDRESS = /\b(\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})\b/;

function firstOf(text: string, ...patterns: RegExp[]): string | undefined {
  for (const re of patterns) {
    const value = re.exec(text)?.[1];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/** The queue-lock lines: the client that holds the lock now (4.x prints clientIds bare after the queue), and the one before. */
function lockDrafts(kind: EventKind, group: string | undefined, detail: Detail, text: string): Draft[] {
  const previous = firstOf(text, /OldClientId: (\S+)/, /old client id=([^,\s\]]+)/);
  const clientId = firstOf(text, /NewClientId: (\S+)/, /new client id=([^,\s\]]+)/, /\bclientId=([^,\s\]]+)/) ?? rocketmqClientIdIn(text);
  const base: Draft = {
    kind,
    group,
    ...(clientId !== undefined && parseClientId(clientId) ? { clientId } : {}),
    detail: { ...detail, previousClientId: previous, reason: previous === undefined ? undefined : "lock_expired" },
  };
  const queues = messageQueuesIn(text);
  return queues.length === 0 ? [base] : queues.map((q) => ({ ...base, topic: q.topic, queue: `${q.broker}:${q.queueId}` }));
}

const SIGNAL_SET = new SignalSet<SignalAction, Draft>(SIGNALS, (signal, text) => {
  const kind = SIGNAL_KINDS[signal.action];
  const group =
    firstOf(text, /\bGROUP: (\S+)/, /\bGroup: (\S+)/, /\bgroupName=([^,\s\]]+)/, /\bproducer group(?: name)?[:=] ?([^,\s\]]+)/, /\bunregister a producer(?: group)?\[([^\]\s]+)\]/) ??
    groupIn(text);
  const detail: Detail = { action: signal.action, signal: signal.name };
  if (signal.action === "add" || signal.action === "remove") return lockDrafts(kind, group, detail, text);
  const channels = [...text.matchAll(CHANNEL_INFO)].map((m) => m[0]);
  if (signal.name === "client_id_changed") {
    // OLD is printed before NEW in both releases: the channel's consumer is the new one.
    const previous = channels.length > 1 ? (parseChannel(channels[0]!).clientId ?? undefined) : undefined;
    return [{ kind, group, channel: channels.at(-1), detail: { ...detail, reason: "client_id_changed", previousClientId: previous } }];
  }
  const role = signal.action.startsWith("producer_") ? { role: "producer" } : {};
  const channel = channels[0] ?? firstOf(text, /\[\/?(\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})\]/, /channel=\/?([^,\s\]]+)/) ?? ADDRESS.exec(text)?.[1];
  const reason = /IDLE exception/.test(text) ? "idle" : undefined;
  return [{ kind, group: signal.action === "channel_closed" ? undefined : group, channel, detail: { ...detail, ...role, reason } }];
});

export function openBrokerLog(ctx: ParseContext): LineParser {
  const options = inputOptions(ctx, DEFAULT_OFFSET);
  const toEvents = (drafts: Draft[], line: DecodedLine, template: string) => drafts.map((draft) => finish(draft, template, line, ctx));
  return javaRecords(
    (line, lineNo) => readTemplateLine(line, lineNo, TEMPLATE_SET, options, toEvents, undefined, SIGNAL_SET),
    (line, lineNo) => readTemplateLine(line, lineNo, SIGNAL_SET, options, toEvents),
  );
}


/** One line read as a whole input. */
export function parseBrokerLogLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  return parseAlone(openBrokerLog(ctx), line, lineNo);
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openBrokerLog(ctx));
}
