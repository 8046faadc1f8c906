import { canonicalInstance } from "../../lib/events/instance.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import { decodeLogPrefix, ROCKETMQ_UTC_OFFSET, type LogPrefix } from "../codecs/log-prefix.ts";
import {
  parseClientId,
  parseGrpcAssignments,
  parseGrpcMessageQueue,
  parseMessageQueue,
  parseMessageQueueList,
  parseMessages,
  queueName,
  type MessageQueueToken,
  type MessageToken,
} from "../codecs/rocketmq-tokens.ts";
import { recordFingerprint } from "../fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * RocketMQ client logs (`rocketmq_client.log`, 4.x and 5.x remoting clients; `rocketmq-client.log`, 5.x gRPC client):
 * the lines that are evidence for a duplicate (rebalances, dropped process queues, consume timeouts and exceptions,
 * producer retries, direct consumption) become normalized events; every other line is skipped. Templates and the
 * event each one becomes are listed in README.md.
 */

export const FORMAT = "rocketmq-client-log";

type Detail = { [key: string]: DetailValue | undefined };

/** What a template read from one message, before the fields every event shares are added. */
interface Draft {
  kind: EventKind;
  /** The event is about messages: without a msgId the store cannot file it under a key (see `finish`). */
  aboutMessages?: boolean;
  clientId?: string;
  msgId?: string | null;
  offsetMsgId?: string | null;
  topic?: string | null;
  group?: string | null;
  queue?: string | null;
  queueOffset?: number | null;
  retryTimes?: number | null;
  success?: boolean;
  detail: Detail;
}

interface Template {
  name: string;
  /** Recognises the wording; a message that passes `head` but not `read` is reported as invalid_field. */
  head: RegExp;
  read(message: string): Draft[] | undefined;
}

const MQ = String.raw`(?<mq>MessageQueue \[[^\]]*\])`;

function safeInt(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && /^\d+$/.test(text) && Number.isSafeInteger(value) ? value : undefined;
}

/** Java prints an absent value as `null`. */
function present(text: string | undefined): string | null {
  return text === undefined || text === "" || text === "null" ? null : text;
}

function queueOf(mq: MessageQueueToken): Pick<Draft, "topic" | "queue"> {
  return { topic: mq.topic, queue: queueName(mq) };
}

function messageFields(message: MessageToken): Pick<Draft, "msgId" | "offsetMsgId" | "queueOffset" | "retryTimes"> {
  return {
    msgId: message.msgId,
    offsetMsgId: message.offsetMsgId,
    queueOffset: message.queueOffset,
    retryTimes: message.reconsumeTimes,
  };
}

function keysOf(messages: MessageToken[]): string[] | undefined {
  const keys = [...new Set(messages.flatMap((m) => m.keys))];
  return keys.length > 0 ? keys : undefined;
}

interface PerQueueWording {
  /** What the line says after the queue, as a regular expression. */
  suffix?: string;
  reason?: string;
}

/** A `doRebalance, {group}, …, {mq}` line about one queue. */
function perQueue(name: string, wording: string, action: string, { suffix = "", reason }: PerQueueWording = {}): Template {
  const full = new RegExp(`^(?:\\[BUG\\])?doRebalance, (?<group>[^,\\s]+), ${wording}, ${MQ}${suffix}$`);
  return {
    name,
    head: new RegExp(`^(?:\\[BUG\\])?doRebalance, [^,]*, ${wording}, `),
    read(message) {
      const groups = full.exec(message)?.groups;
      const mq = groups && parseMessageQueue(groups.mq!);
      if (!groups || !mq) return undefined;
      // `[BUG]doRebalance, {group}, remove unnecessary mq, {mq}, because pull is pause, so try to fixed it`
      const pullPaused = message.startsWith("[BUG]");
      return [{ kind: "rebalance", group: groups.group!, ...queueOf(mq), detail: { action, reason: pullPaused ? "pull_paused" : reason } }];
    },
  };
}

const RESULT_CHANGED =
  /^(?:client )?rebalanced result changed\. allocateMessageQueueStrategyName=(?<strategy>.*?), group=(?<group>[^,\s]+), topic=(?<topic>[^,\s]+), clientId=(?<clientId>[^,\s]+), mqAllSize=(?<mqAll>\d+), cidAllSize=(?<cidAll>\d+), rebalanceResultSize=(?<size>\d+), rebalanceResultSet=(?<set>.*)$/;

const resultChanged: Template = {
  name: "rebalance_result_changed",
  head: /^(?:client )?rebalanced result changed\. /,
  read(message) {
    const g = RESULT_CHANGED.exec(message)?.groups;
    if (!g) return undefined;
    const queues = parseMessageQueueList(g.set!);
    const [mqAllSize, cidAllSize, rebalanceResultSize] = [safeInt(g.mqAll), safeInt(g.cidAll), safeInt(g.size)];
    if (!queues || !parseClientId(g.clientId!) || mqAllSize === undefined || cidAllSize === undefined || rebalanceResultSize === undefined) {
      return undefined;
    }
    const detail = { action: "result", allocatedBy: "client", strategy: g.strategy!, mqAllSize, cidAllSize, rebalanceResultSize, queues: queues.map(queueName) };
    return [{ kind: "rebalance", clientId: g.clientId!, group: g.group!, topic: g.topic!, detail }];
  },
};

const BROKER_RESULT_CHANGED =
  /^broker rebalanced result changed[.,] ?allocateMessageQueueStrategyName=(?<strategy>.*?), ?group=(?<group>[^,\s]+), ?topic=(?<topic>[^,\s]+), ?clientId=(?<clientId>[^,\s]+), ?assignmentSet=(?<set>.*)$/;

const brokerResultChanged: Template = {
  name: "broker_rebalance_result_changed",
  head: /^broker rebalanced result changed[.,]/,
  read(message) {
    const g = BROKER_RESULT_CHANGED.exec(message)?.groups;
    const queues = g && parseMessageQueueList(g.set!);
    if (!g || !queues || !parseClientId(g.clientId!)) return undefined;
    const detail = { action: "result", allocatedBy: "broker", strategy: g.strategy!, queues: queues.map(queueName) };
    return [{ kind: "rebalance", clientId: g.clientId!, group: g.group!, topic: g.topic!, detail }];
  },
};

const ASSIGNMENTS_CHANGED =
  /^Assignments of topic=(?<topic>\S+) has changed, (?<before>.*?) (?:=>|->) (?<after>.*?)(?:, clientId=(?<clientId>\S+))?$/;

function difference(a: string[], b: string[]): string[] {
  return a.filter((name) => !b.includes(name));
}

const assignmentsChanged: Template = {
  name: "assignments_changed",
  head: /^Assignments of topic=\S* has changed, /,
  read(message) {
    const g = ASSIGNMENTS_CHANGED.exec(message)?.groups;
    const before = g && parseGrpcAssignments(g.before!);
    const after = g && parseGrpcAssignments(g.after!);
    if (!g || !before || !after || (g.clientId !== undefined && !parseClientId(g.clientId))) return undefined;
    const [queues, previousQueues] = [after.map(queueName), before.map(queueName)];
    const detail = {
      action: "result",
      allocatedBy: "broker",
      queues,
      previousQueues,
      addedQueues: difference(queues, previousQueues),
      removedQueues: difference(previousQueues, queues),
    };
    return [{ kind: "rebalance", clientId: g.clientId, topic: g.topic!, detail }];
  },
};

const DROP_MQ =
  /^Drop message queue (?<why>according to the latest assignment(?:List|s)|because it is expired), mq=(?<mq>[^,\s]+)(?:, clientId=(?<clientId>\S+))?$/;

const dropMq: Template = {
  name: "drop_mq",
  head: /^Drop message queue (?:according to the latest assignment|because it is expired)/,
  read(message) {
    const g = DROP_MQ.exec(message)?.groups;
    const mq = g && parseGrpcMessageQueue(g.mq!);
    if (!g || !mq || (g.clientId !== undefined && !parseClientId(g.clientId))) return undefined;
    const reason = g.why === "because it is expired" ? "expired" : undefined;
    return [{ kind: "rebalance", clientId: g.clientId, ...queueOf(mq), detail: { action: "remove", reason } }];
  },
};

const rebalanceTrigger: Template = {
  name: "rebalance_trigger",
  head: /^receive broker's notification\[/,
  read(message) {
    const g = /^receive broker's notification\[(?<broker>[^\]]*)\], the consumer group: (?<group>\S+) changed, rebalance immediately$/.exec(
      message,
    )?.groups;
    if (!g) return undefined;
    return [{ kind: "rebalance", group: g.group!, detail: { action: "trigger", brokerAddr: g.broker! } }];
  },
};

const processQueueDropped: Template = {
  name: "process_queue_dropped",
  head: /^processQueue is dropped without process consume result\. /,
  read(message) {
    const g = new RegExp(`^processQueue is dropped without process consume result\\. messageQueue=${MQ}, msgs=(?<msgs>.*)$`).exec(message)?.groups;
    const mq = g && parseMessageQueue(g.mq!);
    if (!g || !mq) return undefined;
    const messages = parseMessages(g.msgs!);
    const msgIds = messages.flatMap((m) => (m.msgId === null ? [] : [m.msgId]));
    const only = messages.length === 1 ? messageFields(messages[0]!) : {};
    const detail = { action: "dropped_without_result", msgIds, keys: keysOf(messages) };
    return [{ kind: "rebalance", aboutMessages: true, ...queueOf(mq), ...only, detail }];
  },
};

const SEND_EXPIRE_BACK =
  /^send expire msg back\. topic=(?<topic>[^,\s]+), msgId=(?<msgId>[^,\s]+), storeHost=\/?(?<storeHost>[^,\s]*), queueId=(?<queueId>\d+), queueOffset=(?<queueOffset>\d+)$/;

const sendExpireMsgBack: Template = {
  name: "send_expire_msg_back",
  head: /^send expire msg back\. /,
  read(message) {
    const g = SEND_EXPIRE_BACK.exec(message)?.groups;
    const [queueId, queueOffset] = [safeInt(g?.queueId), safeInt(g?.queueOffset)];
    if (!g || queueId === undefined || queueOffset === undefined) return undefined;
    // The line names the queue id and the broker's address but not the broker name, so `queue` stays unknown.
    const detail = { contextName: "TIME_OUT", storeHost: g.storeHost!, queueId };
    return [{ kind: "consume_end", aboutMessages: true, success: false, topic: g.topic!, msgId: present(g.msgId), queueOffset, detail }];
  },
};

/**
 * `consumeMessage exception: {error} Group: {group} Msgs: {msgs} MQ: {mq}`, split by hand rather than by one regex,
 * which backtracks quadratically over a long Msgs list. The error text may itself hold ` Group: `; the group is the
 * first one followed by a single word and ` Msgs: `.
 */
function splitConsumeException(message: string): { error: string; group: string; msgs: string; mq: string } | undefined {
  const body = message.slice("consumeMessage exception: ".length);
  const mqAt = body.lastIndexOf(" MQ: ");
  for (let groupAt = body.indexOf(" Group: "); groupAt >= 0 && groupAt < mqAt; groupAt = body.indexOf(" Group: ", groupAt + 1)) {
    const rest = body.slice(groupAt + " Group: ".length, mqAt);
    const group = /^(\S+) Msgs: /.exec(rest)?.[1];
    if (group !== undefined) {
      return { error: body.slice(0, groupAt), group, msgs: rest.slice(group.length + " Msgs: ".length), mq: body.slice(mqAt + " MQ: ".length) };
    }
  }
  return undefined;
}

const consumeException: Template = {
  name: "consume_exception",
  head: /^consumeMessage exception: /,
  read(message) {
    const parts = splitConsumeException(message);
    const mq = parts && parseMessageQueue(parts.mq);
    if (!parts || !mq) return undefined;
    const messages = parseMessages(parts.msgs);
    const base = { kind: "consume_end" as const, aboutMessages: true, success: false, group: parts.group, ...queueOf(mq) };
    const detail = (m?: MessageToken) => ({ contextName: "EXCEPTION", error: parts.error, keys: m && keysOf([m]) });
    if (messages.length === 0) return [{ ...base, detail: detail() }];
    return messages.map((m) => ({ ...base, ...messageFields(m), detail: detail(m) }));
  },
};

// 5.x logs this through slf4j with `%s` placeholders, which slf4j does not fill: the line carries no values at all.
const PRODUCER_RESEND =
  /^sendKernelImpl exception, resend at once, InvokeID: (?<invokeId>-?\d+|%s), RT: (?<rt>\d+|%s)ms, Broker: (?<mq>MessageQueue \[[^\]]*\]|%s)$/;

const producerResend: Template = {
  name: "producer_resend",
  head: /^sendKernelImpl exception, resend at once, /,
  read(message) {
    const g = PRODUCER_RESEND.exec(message)?.groups;
    if (!g) return undefined;
    const mq = g.mq === "%s" ? null : parseMessageQueue(g.mq!);
    const rtMs = g.rt === "%s" ? null : safeInt(g.rt);
    if (mq === undefined || rtMs === undefined) return undefined;
    const detail = {
      invokeId: g.invokeId === "%s" ? undefined : g.invokeId,
      rtMs: rtMs ?? undefined,
      broker: mq?.brokerName,
      unfilledPlaceholders: g.invokeId === "%s" || undefined,
    };
    return [{ kind: "send_attempt", aboutMessages: true, success: false, ...(mq ? queueOf(mq) : {}), detail }];
  },
};

/** The `log.warn(msg.toString())` that follows a resend line: the only place the retried message's id is logged. */
const producerResendMessage: Template = {
  name: "producer_resend_message",
  head: /^Message(?:\{topic=| \[topic=)/,
  read(message) {
    const messages = parseMessages(message);
    const only = messages.length === 1 ? messages[0]! : undefined;
    if (!only || only.topic === null) return undefined;
    return [{ kind: "send_attempt", aboutMessages: true, success: false, msgId: only.msgId, topic: only.topic, detail: { keys: keysOf(messages) } }];
  },
};

const producerSendFailed: Template = {
  name: "producer_send_failed",
  head: /Send \[\d+\] times, still failed, /,
  read(message) {
    const g = /Send \[(?<times>\d+)\] times, still failed, cost \[(?<cost>\d+)\]ms, Topic: (?<topic>[^,\s]+), BrokersSent: \[(?<brokers>[^\]]*)\]/.exec(
      message,
    )?.groups;
    const [times, costMs] = [safeInt(g?.times), safeInt(g?.cost)];
    if (!g || times === undefined || costMs === undefined) return undefined;
    // Arrays.toString of a String[timesTotal]: slots of attempts never made print as `null`.
    const brokersSent = g.brokers!.split(", ").filter((b) => present(b.trim()) !== null);
    return [{ kind: "send_attempt", aboutMessages: true, success: false, topic: g.topic!, detail: { times, costMs, brokersSent } }];
  },
};

const consumeDirectly: Template = {
  name: "consume_directly",
  head: /^consumeMessageDirectly receive new message: /,
  read(message) {
    const m = parseMessages(message.slice("consumeMessageDirectly receive new message: ".length))[0];
    if (!m || (m.msgId === null && m.topic === null)) return undefined;
    const queue = m.brokerName !== null && m.queueId !== null ? queueName({ brokerName: m.brokerName, queueId: m.queueId }) : null;
    return [{ kind: "consume_start", aboutMessages: true, topic: m.topic, queue, ...messageFields(m), detail: { direct: true, keys: keysOf([m]) } }];
  },
};

function lifecycle(name: string, wording: string, action: string): Template {
  const full = new RegExp(`^the consumer \\[(?<group>[^\\]\\s]+)\\] ${wording}\\.?$`);
  return {
    name,
    head: new RegExp(`^the consumer \\[[^\\]]*\\] ${wording}`),
    read(message) {
      const group = full.exec(message)?.groups?.group;
      return group === undefined ? undefined : [{ kind: "instance_lifecycle", group, detail: { action } }];
    },
  };
}

/** Checked in order; the first whose head matches decides the line. */
const TEMPLATES: Template[] = [
  resultChanged,
  brokerResultChanged,
  perQueue("rebalance_remove_mq", "remove unnecessary mq", "remove", { suffix: "(?:, because pull is pause.*)?" }),
  perQueue("rebalance_truncate_mq", "truncateMessageQueueNotMyTopic remove unnecessary mq", "remove", { reason: "topic_unsubscribed" }),
  perQueue("rebalance_add_mq_failed", "add a new mq failed", "add_failed", { suffix: ", because lock failed", reason: "lock_failed" }),
  perQueue("rebalance_add_mq_failed", "add new mq failed", "add_failed", { reason: "offset_unavailable" }),
  perQueue("rebalance_add_mq", "add a new mq", "add"),
  perQueue("rebalance_mq_exists", "mq already exists", "exists"),
  assignmentsChanged,
  dropMq,
  rebalanceTrigger,
  processQueueDropped,
  sendExpireMsgBack,
  consumeException,
  producerResend,
  producerResendMessage,
  producerSendFailed,
  consumeDirectly,
  lifecycle("consumer_start", "start OK", "start"),
  lifecycle("consumer_shutdown", "shutdown OK", "shutdown"),
];

const KEYLESS_KINDS: ReadonlySet<EventKind> = new Set(["rebalance", "instance_lifecycle"]);

/**
 * The clientId on the line names the process; otherwise the caller's instance does. A bare host from the caller
 * gains the pid the 5.x prefix prints, so it matches the `ip@pid` that clientId lines of the same process give.
 */
function identify(clientId: string | undefined, prefix: LogPrefix, ctx: ParseContext): { instance: string | null; raw?: string } {
  if (clientId !== undefined) return { instance: canonicalInstance(clientId).canonical, raw: clientId };
  if (ctx.instance === undefined || ctx.instance.trim() === "") return { instance: null };
  const identity = canonicalInstance(ctx.instance);
  const withPid = identity.process === undefined && prefix.pid !== null ? `${identity.host}@${prefix.pid}` : identity.canonical;
  return { instance: withPid, raw: ctx.instance };
}

function compact(detail: Detail): { [key: string]: DetailValue } {
  return Object.fromEntries(Object.entries(detail).filter(([, value]) => value !== undefined)) as { [key: string]: DetailValue };
}

/**
 * Adds the shared fields. The store refuses a keyed kind without msgId or bizKey, so an event about messages whose
 * id the line does not give is kept as the nearest keyless kind (instance_lifecycle; rebalance stays rebalance) and
 * marked `detail.unkeyed`, its template telling what it was.
 */
function finish(draft: Draft, template: string, prefix: LogPrefix, line: string, index: number, ctx: ParseContext): NormalizedEvent {
  const who = identify(draft.clientId, prefix, ctx);
  const msgId = draft.msgId ?? null;
  const unkeyed = draft.aboutMessages === true && msgId === null;
  return {
    id: recordFingerprint(FORMAT, ctx.instance ?? "", line, index),
    kind: unkeyed && !KEYLESS_KINDS.has(draft.kind) ? "instance_lifecycle" : draft.kind,
    ts: prefix.ts,
    tsPrecision: prefix.precision,
    bizKey: null,
    msgId,
    offsetMsgId: draft.offsetMsgId ?? null,
    broker: "rocketmq",
    topic: draft.topic ?? null,
    group: draft.group ?? null,
    queue: draft.queue ?? null,
    queueOffset: draft.queueOffset ?? null,
    instance: who.instance,
    retryTimes: draft.retryTimes ?? null,
    redelivered: null,
    success: draft.success ?? null,
    detail: compact({ template, ...draft.detail, instanceRaw: who.raw, unkeyed: unkeyed || undefined }),
    source: ctx.source,
  };
}

export function parseClientLogLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  const decoded = decodeLogPrefix(line, ctx.utcOffset ?? ROCKETMQ_UTC_OFFSET);
  if (!decoded) return { events: [], skipped: true };
  const message = decoded.ok ? decoded.prefix.message : decoded.message;
  const template = TEMPLATES.find((t) => t.head.test(message));
  if (!template) return { events: [], skipped: true };
  if (!decoded.ok) return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `${template.name}: ${decoded.reason}` } };
  const drafts = template.read(message);
  if (!drafts) {
    return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `${template.name}: the line's fields do not parse` } };
  }
  return { events: drafts.map((draft, index) => finish(draft, template.name, decoded.prefix, line, index, ctx)) };
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseClientLogLine(line, lineNo, ctx));
}
