import { canonicalInstance } from "../../lib/events/instance.ts";
import { compact } from "../codecs/detail.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import { headTemplate, inputOptions, javaRecords, readTemplateLine, TemplateSet, type DecodedLine, type MessageTemplate } from "../codecs/log-record.ts";
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
import { clientIdIn, exceptionIn, groupIn, messageQueuesIn, rocketmqClientIdIn, unquoted } from "../codecs/extract.ts";
import { SignalSet, type Signal } from "../codecs/signals.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseAlone, parseLines, type LineParser, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * RocketMQ client logs (`rocketmq_client.log`, 4.x and 5.x remoting clients; `rocketmq-client.log`, 5.x gRPC client):
 * the lines that are evidence for a duplicate (rebalances, dropped process queues, consume timeouts and exceptions,
 * producer retries, direct consumption) become normalized events; every other line is skipped. Templates and the
 * event each one becomes are listed in README.md.
 */

export const FORMAT = "rocketmq-client-log";

/**
 * The 5.x patterns print GMT+8 whatever the host's zone; 4.x prints host-local time, which for most RocketMQ
 * deployments is also +08:00. Callers override it through ParseContext.utcOffset.
 */
export const ROCKETMQ_UTC_OFFSET = "+08:00";

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

/** A message that passes `head` but not `read` is reported as invalid_field. */
type Template = MessageTemplate<Draft>;

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
  /** The words as a regular expression, where other releases word the step differently. */
  pattern?: string;
  /** What the line says after the queue, as a regular expression. */
  suffix?: string;
  reason?: string;
}

/** A `doRebalance, {group}, …, {mq}` line about one queue. */
/**
 * A queue the rebalance failed to take, or held already: no change of ownership, so not a rebalance event but a fact
 * about the instance (shown, never counted as a rebalance).
 */
const NO_CHANGE: ReadonlySet<string> = new Set(["add_failed", "exists"]);

function perQueue(name: string, wording: string, action: string, { pattern, suffix = "", reason }: PerQueueWording = {}): Template {
  const words = pattern ?? wording;
  const full = new RegExp(`^(?:\\[BUG\\])?doRebalance, (?<group>[^,\\s]+), ${words}, ${MQ}${suffix}$`);
  return {
    name,
    head: new RegExp(`(?:\\[BUG\\])?doRebalance, [^,]*, ${words}, `),
    wording: `doRebalance, {group}, ${wording}, {mq}`,
    read(message) {
      const groups = full.exec(message)?.groups;
      const mq = groups && parseMessageQueue(groups.mq!);
      if (!groups || !mq) return undefined;
      // `[BUG]doRebalance, {group}, remove unnecessary mq, {mq}, because pull is pause, so try to fixed it`
      const pullPaused = message.startsWith("[BUG]");
      return [{ kind: NO_CHANGE.has(action) ? "instance_lifecycle" : "rebalance", group: groups.group!, ...queueOf(mq), detail: { action, reason: pullPaused ? "pull_paused" : reason } }];
    },
  };
}

/**
 * `name=value, name=value` pairs whose values may hold `[…]` lists with commas of their own (`rebalanceResultSet=[…]`).
 */
export function readPairs(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  let depth = 0;
  let start = 0;
  const take = (end: number) => {
    const part = text.slice(start, end).trim();
    const eq = part.indexOf("=");
    if (eq > 0) pairs.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "[" || c === "{" || c === "(") depth++;
    else if (c === "]" || c === "}" || c === ")") depth = Math.max(0, depth - 1);
    else if (c === "," && depth === 0) {
      take(i);
      start = i + 1;
    }
  }
  take(text.length);
  return pairs;
}

const resultChanged: Template = {
  name: "rebalance_result_changed",
  // 4.x/5.x `… clientId={}, mqAllSize={}, cidAllSize={}, rebalanceResultSize={}, rebalanceResultSet={}`; 3.x
  // `… ConsumerId={}, rebalanceSize={}, rebalanceMqSet={}`.
  head: /(?:client )?rebalanced result changed\. /,
  wording: "rebalanced result changed. allocateMessageQueueStrategyName={}, group={}, topic={}, clientId={}, mqAllSize={}, cidAllSize={}, rebalanceResultSize={}, rebalanceResultSet={}",
  read(message) {
    const pairs = readPairs(message.replace(/^(?:client )?rebalanced result changed\. /, ""));
    const [group, topic, clientId] = [pairs.get("group"), pairs.get("topic"), pairs.get("clientId") ?? pairs.get("ConsumerId")];
    const set = pairs.get("rebalanceResultSet") ?? pairs.get("rebalanceMqSet");
    const queues = set === undefined ? undefined : parseMessageQueueList(set);
    if (!group || !topic || !clientId || !queues || !parseClientId(clientId)) return undefined;
    const size = (name: string) => (pairs.has(name) ? safeInt(pairs.get(name)) : undefined);
    const detail = {
      action: "result",
      allocatedBy: "client",
      strategy: pairs.get("allocateMessageQueueStrategyName"),
      mqAllSize: size("mqAllSize"),
      cidAllSize: size("cidAllSize"),
      rebalanceResultSize: size("rebalanceResultSize") ?? size("rebalanceSize"),
      queues: queues.map(queueName),
    };
    return [{ kind: "rebalance", clientId, group, topic, detail }];
  },
};

const BROKER_RESULT_CHANGED =
  /^broker rebalanced result changed[.,] ?allocateMessageQueueStrategyName=(?<strategy>.*?), ?group=(?<group>[^,\s]+), ?topic=(?<topic>[^,\s]+), ?clientId=(?<clientId>[^,\s]+), ?assignmentSet=(?<set>.*)$/;

const brokerResultChanged: Template = {
  name: "broker_rebalance_result_changed",
  head: /broker rebalanced result changed[.,]/,
  wording: "broker rebalanced result changed. allocateMessageQueueStrategyName={}, group={}, topic={}, clientId={}, assignmentSet={}",
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
  head: /Assignments of topic=\S* has changed, /,
  wording: "Assignments of topic={} has changed, {} => {}, clientId={}",
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
  head: /Drop message queue (?:according to the latest assignment|because it is expired)/,
  wording: "Drop message queue according to the latest assignmentList, mq={}, clientId={}",
  read(message) {
    const g = DROP_MQ.exec(message)?.groups;
    const mq = g && parseGrpcMessageQueue(g.mq!);
    if (!g || !mq || (g.clientId !== undefined && !parseClientId(g.clientId))) return undefined;
    const reason = g.why === "because it is expired" ? "expired" : undefined;
    return [{ kind: "rebalance", clientId: g.clientId, ...queueOf(mq), detail: { action: "remove", reason } }];
  },
};

/**
 * 5.x gRPC client (rocketmq-client-java 5.0.0 → 5.2.x, ProcessQueueImpl): an ack or invisible-duration change the
 * proxy refused because the receipt handle had expired — the message's invisible duration ran out before it was
 * settled, so the broker had made it visible again. Same wording in every release (field samples, issue 17 §5.1).
 */
const INVALID_HANDLE = /^Failed to (?<op>ack message|change invisible duration) due to the invalid receipt handle, forgive to retry, (?<rest>.*)$/;

const receiptHandleInvalid: Template = {
  name: "receipt_handle_invalid",
  head: /Failed to (?:ack message|change invisible duration) due to the invalid receipt handle, forgive to retry, /,
  wording: "Failed to ack message due to the invalid receipt handle, forgive to retry, clientId={}, consumerGroup={}, messageId={}, attempt={}, mq={}, endpoints={}, requestId={}, status message=[{}]",
  read(message) {
    const g = INVALID_HANDLE.exec(message)?.groups;
    if (!g) return undefined;
    const status = /, status message=\[(.*)\]$/.exec(g.rest!);
    const pairs = readPairs(status ? g.rest!.slice(0, status.index) : g.rest!);
    const msgId = pairs.get("messageId");
    const clientId = pairs.get("clientId");
    if (msgId === undefined || msgId === "" || (clientId !== undefined && !parseClientId(clientId))) return undefined;
    const mq = pairs.get("mq");
    const queue = mq === undefined ? undefined : parseGrpcMessageQueue(mq);
    const attempt = safeInt(pairs.get("attempt"));
    return [
      {
        kind: "instance_lifecycle",
        clientId,
        group: pairs.get("consumerGroup"),
        msgId,
        ...(queue ? queueOf(queue) : {}),
        detail: { action: "receipt_handle_invalid", operation: g.op === "ack message" ? "ack" : "change_invisible_duration", attempt, status: status?.[1] },
      },
    ];
  },
};

const rebalanceTrigger: Template = {
  name: "rebalance_trigger",
  head: /receive broker's notification\[/,
  wording: "receive broker's notification[{}], the consumer group: {} changed, rebalance immediately",
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
  head: /processQueue is dropped without process consume result\. /,
  wording: "processQueue is dropped without process consume result. messageQueue={}, msgs={}",
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
  head: /send expire msg back\. /,
  wording: "send expire msg back. topic={}, msgId={}, storeHost={}, queueId={}, queueOffset={}",
  read(message) {
    const g = SEND_EXPIRE_BACK.exec(message)?.groups;
    const [queueId, queueOffset] = [safeInt(g?.queueId), safeInt(g?.queueOffset)];
    if (!g || queueId === undefined || queueOffset === undefined) return undefined;
    // The line names the queue id and the broker's address but not the broker name, so `queue` stays unknown.
    const detail = { action: "consume_timeout", contextName: "TIME_OUT", storeHost: g.storeHost!, queueId };
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
  head: /consumeMessage exception: /,
  wording: "consumeMessage exception: {} Group: {} Msgs: {} MQ: {}",
  read(message) {
    const parts = splitConsumeException(message);
    // A line cut before its ` Group: ` (a paste or a viewer that keeps the first 200 characters) still states the
    // failed attempt, and RemotingHelper.exceptionSimpleDesc puts the exception first: the fact without its queue.
    if (!parts && !message.includes(" Group: ")) {
      const error = message.slice("consumeMessage exception: ".length).trim();
      return [{ kind: "consume_end", aboutMessages: true, success: false, detail: { action: "consume_exception", contextName: "EXCEPTION", error, exception: exceptionIn(error) } }];
    }
    const mq = parts && parseMessageQueue(parts.mq);
    if (!parts || !mq) return undefined;
    const messages = parseMessages(parts.msgs);
    const base = { kind: "consume_end" as const, aboutMessages: true, success: false, group: parts.group, ...queueOf(mq) };
    const detail = (m?: MessageToken) => ({ action: "consume_exception", contextName: "EXCEPTION", error: parts.error, keys: m && keysOf([m]) });
    if (messages.length === 0) return [{ ...base, detail: detail() }];
    return messages.map((m) => ({ ...base, ...messageFields(m), detail: detail(m) }));
  },
};

// 5.x logs this through slf4j with `%s` placeholders, which slf4j does not fill: the line carries no values at all.
const PRODUCER_RESEND =
  /^sendKernelImpl exception, resend at once, InvokeID: (?<invokeId>-?\d+|%s), RT: (?<rt>\d+|%s)ms, Broker: (?<mq>MessageQueue \[[^\]]*\]|%s)$/;

const producerResend: Template = {
  name: "producer_resend",
  head: /sendKernelImpl exception, resend at once, /,
  wording: "sendKernelImpl exception, resend at once, InvokeID: {}, RT: {}ms, Broker: {}",
  read(message) {
    const g = PRODUCER_RESEND.exec(message)?.groups;
    if (!g) return undefined;
    const mq = g.mq === "%s" ? null : parseMessageQueue(g.mq!);
    const rtMs = g.rt === "%s" ? null : safeInt(g.rt);
    if (mq === undefined || rtMs === undefined) return undefined;
    const detail = {
      action: "producer_resend",
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
  head: /Message(?:\{topic=| \[topic=)/,
  wording: "Message{topic='{}', flag={}, properties={…UNIQ_KEY={}…}, …}",
  atStart: true,
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
  wording: "Send [{}] times, still failed, cost [{}]ms, Topic: {}, BrokersSent: [{}]",
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
  head: /consumeMessageDirectly receive new message: /,
  wording: "consumeMessageDirectly receive new message: {}",
  read(message) {
    const m = parseMessages(message.slice("consumeMessageDirectly receive new message: ".length))[0];
    if (!m || (m.msgId === null && m.topic === null)) return undefined;
    const queue = m.brokerName !== null && m.queueId !== null ? queueName({ brokerName: m.brokerName, queueId: m.queueId }) : null;
    return [{ kind: "consume_start", aboutMessages: true, topic: m.topic, queue, ...messageFields(m), detail: { action: "consume_directly", direct: true, keys: keysOf([m]) } }];
  },
};

/**
 * A push consumer starting: the one line of the client's own log that says how its group consumes (CLUSTERING or
 * BROADCASTING), which broadcast_consumption reads (scope.ts rule 3). Not a join: `start OK` follows once it runs.
 */
const consumerStarting: Template = {
  name: "consumer_starting",
  head: /the consumer \[[^\]]*\] start beginning\. /,
  wording: "the consumer [{group}] start beginning. messageModel={}, isUnitMode={}",
  read(message) {
    const m = /^the consumer \[(?<group>[^\]\s]+)\] start beginning\. messageModel=(?<model>CLUSTERING|BROADCASTING), isUnitMode=(?<unit>true|false)\s*$/.exec(message);
    if (!m?.groups) return undefined;
    return [{ kind: "instance_lifecycle", group: m.groups.group, detail: { action: "starting", messageModel: m.groups.model, unitMode: m.groups.unit === "true" } }];
  },
};

/**
 * The broker answered a pull with OFFSET_ILLEGAL (the consumer asked for an offset the queue does not hold, e.g. after
 * the broker's store was replaced or rolled back) and the client moves the queue to the broker's `nextBeginOffset`, persisting it
 * ten seconds later (`fix the pull request offset`). Moved back, everything from there is consumed again: the
 * line is an offset reset of that queue. Moved forward, messages are skipped, not repeated.
 */
const pullOffsetIllegal: Template = {
  name: "pull_offset_illegal",
  head: /the pull request offset illegal, PullRequest \[/,
  wording: "the pull request offset illegal, PullRequest [consumerGroup={}, messageQueue={mq}, nextOffset={}] PullResult [pullStatus=OFFSET_ILLEGAL, nextBeginOffset={}, …]",
  read(message) {
    const mq = /MessageQueue \[[^\]]*\]/.exec(message);
    const queue = mq && parseMessageQueue(mq[0]);
    const group = /consumerGroup=([^,\s\]]+)/.exec(message)?.[1];
    const from = /\bnextOffset=(-?\d{1,19})/.exec(message)?.[1];
    const fromOffset = from?.startsWith("-") ? -1 : safeInt(from);
    const toOffset = safeInt(/\bnextBeginOffset=(\d+)/.exec(message)?.[1]);
    if (!queue || group === undefined || fromOffset === undefined || toOffset === undefined) return undefined;
    // A pull from -1 had no position yet: the broker's offset is where consumption now starts, read again from there.
    const action = fromOffset < 0 || toOffset < fromOffset ? "offset_reset" : "offset_skipped";
    return [{ kind: "instance_lifecycle", group, ...queueOf(queue), detail: { action, reason: "offset_illegal", fromOffset, toOffset } }];
  },
};

/**
 * A BROADCASTING consumer takes every queue of a topic; when the topic's queues change it logs the whole set (twice:
 * `messageQueueChanged {group} {topic} {mqSet} {mqSet}`), its new queue set as a clustering consumer's result line says it.
 */
const broadcastQueueChanged: Template = {
  name: "broadcast_queue_changed",
  head: /messageQueueChanged \S+ \S+ \[/,
  wording: "messageQueueChanged {group} {topic} {mqSet} {mqSet}",
  read(message) {
    const m = /^messageQueueChanged (\S+) (\S+) \[/.exec(message);
    if (!m) return undefined;
    const queues = [...new Set(messageQueuesIn(message).map((q) => queueName({ brokerName: q.broker, queueId: q.queueId })))];
    return [{ kind: "rebalance", group: m[1]!, topic: m[2]!, detail: { action: "result", allocatedBy: "client", queues } }];
  },
};

function lifecycle(name: string, wording: string, action: string): Template {
  const full = new RegExp(`^the consumer \\[(?<group>[^\\]\\s]+)\\] ${wording}\\.?$`);
  return {
    name,
    head: new RegExp(`the consumer \\[[^\\]]*\\] ${wording}`),
    wording: `the consumer [{group}] ${wording}`,
    read(message) {
      const group = full.exec(message)?.groups?.group;
      return group === undefined ? undefined : [{ kind: "instance_lifecycle", group, detail: { action } }];
    },
  };
}

/** A line naming one queue (`MessageQueue [...]`) anywhere after its head: the C++ client's and old clients' wordings. */
function queueLine(name: string, head: RegExp, wording: string, kind: EventKind, action: string, extra: (message: string) => Detail = () => ({})): Template {
  return {
    name,
    head,
    wording,
    read(message) {
      const mq = /MessageQueue \[[^\]]*\]/.exec(message);
      const queue = mq && parseMessageQueue(mq[0]);
      if (!queue) return undefined;
      const group = /(?:consumerGroup=|group=|GroupName )([^,\s\]]+)/.exec(message)?.[1];
      return [{ kind, group, ...queueOf(queue), detail: { action, ...extra(message) } }];
    },
  };
}

function clientLifecycle(name: string, head: RegExp, wording: string, action: string, read: (m: RegExpExecArray) => Partial<Draft> = () => ({})): Template {
  return headTemplate(name, head, wording, (m) => {
    const draft = read(m);
    return [{ kind: "instance_lifecycle", ...draft, detail: { action, ...draft.detail } }];
  });
}

/** Checked in order at the earliest head found; the first whose head matches there decides the line. */
export const TEMPLATES: Template[] = [
  resultChanged,
  brokerResultChanged,
  // 5.x's pop consumers log the same steps with `pop` in them, and 5.x says `try remove` where 4.x said `remove`.
  perQueue("rebalance_remove_mq", "remove unnecessary mq", "remove", { pattern: "(?:try )?remove unnecessary (?:pop )?mq", suffix: "(?:, because (?:pull|pop) is pause.*)?" }),
  perQueue("rebalance_truncate_mq", "truncateMessageQueueNotMyTopic remove unnecessary mq", "remove", { pattern: "truncateMessageQueueNotMyTopic remove unnecessary (?:pop )?mq", reason: "topic_unsubscribed" }),
  perQueue("rebalance_add_mq_failed", "add a new mq failed", "add_failed", { suffix: ", because lock failed", reason: "lock_failed" }),
  perQueue("rebalance_add_mq_failed", "add new mq failed", "add_failed", { reason: "offset_unavailable" }),
  perQueue("rebalance_add_mq", "add a new mq", "add", { pattern: "add a new (?:pop )?mq" }),
  perQueue("rebalance_mq_exists", "mq already exists", "exists", { pattern: "mq (?:pop )?already exists" }),
  assignmentsChanged,
  dropMq,
  receiptHandleInvalid,
  rebalanceTrigger,
  processQueueDropped,
  sendExpireMsgBack,
  consumeException,
  producerResend,
  producerResendMessage,
  producerSendFailed,
  consumeDirectly,
  consumerStarting,
  lifecycle("consumer_start", "start OK", "start"),
  lifecycle("consumer_shutdown", "shutdown OK", "shutdown"),
  // The C++ client (rocketmq-client-cpp 1.x/2.x): `Drop mq:{mq},because not responsive`, `Add mq:{mq}, request initial offset:{n}`
  queueLine("cpp_drop_mq", /Drop mq:\s*MessageQueue \[/, "Drop mq:{mq},because not responsive | according Pull timeout.", "rebalance", "remove", (m) => ({
    reason: /not responsive/.test(m) ? "not_responsive" : /Pull timeout/.test(m) ? "pull_timeout" : undefined,
  })),
  queueLine("cpp_add_mq", /Add mq:\s*MessageQueue \[/, "Add mq:{mq}, request initial offset:{}", "rebalance", "add"),
  queueLine("cpp_start_pull", /Start to pull MessageQueue \[/, "Start to pull {mq}, offset:{}, GroupName {}", "rebalance", "add"),
  queueLine("cpp_pull_request_dropped", /Pull request for queue\[MessageQueue \[/, "Pull request for queue[{mq}] has been set as dropped", "rebalance", "dropped"),
  // 3.x: `doRebalance, {group}, add a new pull request PullRequest [consumerGroup={}, messageQueue={mq}, …]`
  queueLine("rebalance_add_pull_request", /doRebalance, [^,]*, add a new pull request /, "doRebalance, {group}, add a new pull request {}", "rebalance", "add"),
  queueLine("pull_request_dropped", /the pull request\[PullRequest \[/, "the pull request[{}] is dropped.", "rebalance", "dropped"),
  queueLine("pop_request_dropped", /the pop request\[PopRequest \[/, "the pop request[{}] is dropped.", "rebalance", "dropped"),
  queueLine("lite_poll_dropped", /The message queue not be able to poll, because it's dropped\./, "The message queue not be able to poll, because it's dropped. group={}, messageQueue={mq}", "rebalance", "dropped"),
  broadcastQueueChanged,
  queueLine("orderly_queue_dropped", /the message queue not be able to consume, because it's dropped\./, "the message queue not be able to consume, because it's dropped. group={} {mq}", "rebalance", "dropped"),
  queueLine("lite_pull_cancelled", /The Pull Task is cancelled after doPullTask, /, "The Pull Task is cancelled after doPullTask, {mq}", "rebalance", "dropped"),
  {
    name: "offset_reset",
    head: /invoke reset offset operation from broker\. /,
    wording: "invoke reset offset operation from broker. brokerAddr={}, topic={}, group={}, timestamp={}",
    read(message) {
      const pairs = readPairs(message.slice(message.indexOf(". ") + 2));
      const group = pairs.get("group");
      if (group === undefined) return undefined;
      const resetTo = safeInt(pairs.get("timestamp"));
      return [{ kind: "instance_lifecycle", group, topic: pairs.get("topic"), detail: { action: "offset_reset", brokerAddr: pairs.get("brokerAddr"), resetTo } }];
    },
  },
  pullOffsetIllegal,
  clientLifecycle(
    "unregister_client",
    /unregister client\[Producer: (\S+) Consumer: (\S+)\] from broker\[/,
    "unregister client[Producer: {} Consumer: {}] from broker[{}] success",
    "unregister_client",
    (m) => ({ group: present(m[2]) ?? undefined, detail: { producerGroup: present(m[1]) ?? undefined } }),
  ),
  // The producer group stays in detail: a group on the event would open a membership of it (lib/diagnosis/members.ts),
  // and a producer is no member of any group that consumes.
  clientLifecycle("producer_start", /the producer \[([^\]]*)\] start OK/, "the producer [{}] start OK", "start", (m) => ({ detail: { role: "producer", producerGroup: present(m[1]!) ?? undefined } })),
  clientLifecycle("producer_shutdown", /the producer \[([^\]]*)\] shutdown OK/, "the producer [{}] shutdown OK", "shutdown", (m) => ({ detail: { role: "producer", producerGroup: present(m[1]!) ?? undefined } })),
  // MQClientInstance prints its clientId, shared by the process's producers and consumers.
  clientLifecycle("client_factory_start", /the client factory \[([^\]\s]+)\] start OK/, "the client factory [{}] start OK", "start", (m) => ({ clientId: m[1]! })),
  clientLifecycle("client_factory_shutdown", /the client factory \[([^\]\s]+)\] shutdown OK/, "the client factory [{}] shutdown OK", "shutdown", (m) => ({ clientId: m[1]! })),
  clientLifecycle("cpp_producer_start", /DefaultMQ(?:Producer|PushConsumer|PullConsumer):(\S+) start/, "DefaultMQProducer:{group} start", "start", (m) => ({ group: m[1] })),
  clientLifecycle(
    "close_channel",
    /closeChannel: close the connection to remote address\[([^\]]*)\] result: (\w+)/,
    "closeChannel: close the connection to remote address[{}] result: {}",
    "channel_closed",
    (m) => ({ detail: { remoteAddress: m[1], closed: m[2] === "true" } }),
  ),
  clientLifecycle("netty_client_close", /NETTY CLIENT PIPELINE: CLOSE (\S+)/, "NETTY CLIENT PIPELINE: CLOSE {}", "channel_closed", (m) => ({ detail: { remoteAddress: m[1] } })),
  clientLifecycle(
    "go_consume_panic",
    /consumeMessage(?:Concurrently|Orderly) panic/,
    "consumeMessageConcurrently panic (consumerGroup={}, underlayError={})",
    "consume_exception",
  ),
];

const TEMPLATE_SET = new TemplateSet(TEMPLATES);
const DEFAULT_OFFSET = ROCKETMQ_UTC_OFFSET;

const KEYLESS_KINDS: ReadonlySet<EventKind> = new Set(["rebalance", "instance_lifecycle"]);

/**
 * The clientId on the line names the process; otherwise the caller's instance does. A bare host from the caller
 * gains the pid the prefix prints (5.x `[%pid]`, Spring Boot), so it matches the `ip@pid` that clientId lines of
 * the same process give. A host the shipping envelope names (compose service, syslog host, CSV column) comes last.
 */
function identify(clientId: string | undefined, line: DecodedLine, ctx: ParseContext): { instance: string | null; raw?: string } {
  if (clientId !== undefined) return { instance: canonicalInstance(clientId).canonical, raw: clientId };
  const given = ctx.instance !== undefined && ctx.instance.trim() !== "" ? ctx.instance : line.envelope.host;
  if (given === undefined || given.trim() === "") return { instance: null };
  const identity = canonicalInstance(given);
  const withPid = identity.process === undefined && line.pid !== null ? `${identity.host}@${line.pid}` : identity.canonical;
  return { instance: withPid, raw: given };
}


/**
 * Adds the shared fields. The store refuses a keyed kind without msgId or bizKey, so an event about messages whose
 * id the line does not give is kept as the nearest keyless kind (instance_lifecycle; rebalance stays rebalance) and
 * marked `detail.unkeyed`, its template telling what it was.
 */
function finish(draft: Draft, template: string, line: DecodedLine, index: number, ctx: ParseContext): NormalizedEvent {
  const who = identify(draft.clientId, line, ctx);
  const msgId = draft.msgId ?? null;
  const unkeyed = draft.aboutMessages === true && msgId === null;
  return {
    id: recordFingerprint(FORMAT, ctx.instance ?? "", line.raw, index),
    kind: unkeyed && !KEYLESS_KINDS.has(draft.kind) ? "instance_lifecycle" : draft.kind,
    ts: line.time.ts,
    tsPrecision: line.time.precision,
    bizKey: null,
    msgId,
    offsetMsgId: draft.offsetMsgId ?? null,
    broker: "rocketmq",
    topic: draft.topic ?? null,
    // Rust's `{:?}` and Go's `%q` print a group quoted.
    group: unquoted(draft.group) ?? null,
    queue: draft.queue ?? null,
    queueOffset: draft.queueOffset ?? null,
    instance: who.instance,
    retryTimes: draft.retryTimes ?? null,
    redelivered: null,
    success: draft.success ?? null,
    detail: compact({
      template,
      ...draft.detail,
      instanceRaw: who.raw,
      unkeyed: unkeyed || undefined,
      exception: line.envelope.exception ?? draft.detail?.exception ?? undefined,
      dateFrom: line.time.dateFrom,
      timeFrom: line.time.timeFrom,
    }),
    source: ctx.source,
  };
}

type SignalAction =
  | "starting"
  | "trigger"
  | "result"
  | "consume_exception"
  | "consume_timeout"
  | "offset_reset"
  | "shutdown"
  | "start"
  | "channel_closed"
  | "producer_resend"
  | "dropped"
  | "add_failed"
  | "remove"
  | "add";

// The Python 5.x client names itself by its ClientType enum (`PUSH_CONSUMER:group, client_id:…`).
const CLIENT = String.raw`\b(?:consumer|producer|client|MQClientInstance|push ?consumer|pull ?consumer|LitePullConsumer|(?:LITE_)?(?:PUSH|SIMPLE)_CONSUMER|PRODUCER)\b`;

/**
 * What the Java, Go (logrus/zap key=value), C++ and gRPC clients and rocketmq-spring's listener container say in
 * words no template holds: a consume attempt that failed and will be retried, a consume timeout, an offset found
 * illegal and reset, a client started or shut down, a channel closed, a send retried, a queue added or removed.
 * Priority: a consume failure line often dumps a whole MessageExt, whose fields mention queues and offsets.
 */
export const SIGNALS: readonly Signal<SignalAction>[] = [
  {
    name: "starting",
    action: "starting",
    anchor: /\bstart beginning\b/,
    wording: "a consumer is starting, with its message model (the Go client's `the consumerGroup=G start beginning. messageModel=…`)",
  },
  {
    name: "trigger",
    action: "trigger",
    // The broker tells each member that the group's members changed; the Go client logs its receipt.
    anchor: /receive broker'?s notification|notifyConsumerIdsChanged|consumer ?ids? (?:changed|change)/i,
    wording: "the broker notified a change of the group's members: a rebalance follows",
  },
  {
    name: "result",
    action: "result",
    // The Go client's `MessageQueue do balance done` (rebalanceResultSet=…) and its pull consumer's result line.
    // Both clients' messageQueueChanged, called when a rebalance changed the instance's queues: Java's
    // `{topic} Rebalance changed, also update version: {old}, {new}` (RebalancePushImpl), Go's `the MessageQueue
    // changed, version also updated` (push_consumer.go).
    anchor: /\bdo balance done\b|\brebalance result changed\b|\bRebalance changed, also update version\b|\bthe MessageQueue changed, version also updated\b/i,
    wording: "the instance's new queue set after a rebalance (the Go client's `MessageQueue do balance done … rebalanceResultSet=[…]`)",
  },
  {
    name: "consume_timeout",
    action: "consume_timeout",
    anchor: /consume (?:message )?time(?:d)? ?out|consumeMessage\w{0,12} time ?out|consumeTimeout.{0,20}(?:expired|exceeded)|clean expired msg/i,
    wording: "a consume ran past consumeTimeout; the message is sent back",
  },
  {
    name: "consume_exception",
    action: "consume_exception",
    anchor:
      /consume (?:message |msg )?(?:fail(?:ed|ure)?|exception|error)|consumeMessage\w{0,12} (?:exception|error|panic)|send(?:ing)? (?:the )?message back|sendMessageBack\w{0,12} (?:exception|fail)|messages back to mq:.{0,200}failed|re-consume launched|consumeMessage (?:Orderly )?return (?:null|not OK)|fail(?:ed)? to consume|raised an exception while consuming|RECONSUME_LATER|(?:handle|process(?:ing)?) (?:the )?message (?:fail(?:ed)?|exception|error)/i,
    unless: /consume (?:message |msg )?success|CONSUME_SUCCESS/i,
    wording: "a consume attempt failed and will be retried",
  },
  {
    name: "offset_reset",
    action: "offset_reset",
    // LocalFileOffsetStore falls back to the `.bak` file a persist older: a BROADCASTING consumer's offsets go back.
    anchor: /readLocalOffset Exception, and try to correct|offset (?:is )?illegal|OFFSET_ILLEGAL|consumerOffset is -1|invalid (?:consumer )?offset|reset(?:ting)? (?:the )?(?:consumer )?offsets?|correct(?:ed)? (?:the )?offset|offsets? (?:was |were )?(?:corrected|reset to)/i,
    wording: "the consumer's offset was found illegal or reset",
  },
  {
    name: "shutdown",
    action: "shutdown",
    // The Go push consumer's pull loop ends on Shutdown with `push consumer close pullConsumer listener.`.
    anchor: new RegExp(`${CLIENT}.{0,60}\\bshut ?down\\b|\\bshut ?down (?:the )?(?:rocketmq )?(?:push[ _]|simple[ _]|lite[ _]push[ _])?(?:consumer|producer|client)\\b|\\bclose pullConsumer listener\\b`, "i"),
    // The 5.x clients log `Begin to shutdown …` and then `Shutdown the rocketmq … successfully`: the second states it
    // (the Python client's `begin to to shutdown {self}.`, then `shutdown {self} success.`).
    unless: /shut ?down (?:fail|error)|failed to shut ?down|begin to (?:to )?shut ?down/i,
    wording: "a client shut down",
  },
  {
    name: "start",
    action: "start",
    // The 5.x C++ push consumer says `PushConsumer started, groupName=g` (PushConsumerImpl.cpp).
    anchor: new RegExp(`${CLIENT}.{0,60}\\bstart(?:ed|s)?\\b.{0,20}\\b(?:OK|success(?:fully)?|succeed(?:ed)?)\\b|\\bstart(?:ed)? (?:the )?(?:consumer|producer|client) (?:OK|success(?:fully)?)\\b|\\bPushConsumer started, groupName=`, "i"),
    wording: "a client started",
  },
  {
    name: "channel_closed",
    action: "channel_closed",
    anchor: /closeChannel|close(?:d)? (?:the )?(?:channel|connection)\b|channel (?:is |was )?(?:closed|inactive|destroyed)|(?:remoting )?conn(?:ection)? (?:is |was )?closed/i,
    wording: "the client's channel to a broker or name server closed",
  },
  {
    name: "producer_resend",
    action: "producer_resend",
    anchor: /send (?:message )?(?:failed|fail|exception).{0,80}retr|retry (?:to )?send|\bresend/i,
    wording: "a send failed and the producer sends again",
  },
  {
    name: "dropped",
    action: "dropped",
    // 5.x `Process queue has been dropped, no longer receive message, mq=…`; the Go client's `quit pullMessage for
    // dropped queue`; any `… not be able to …, because it's dropped`.
    // The C++ client: `Pull request for {mq} is dropped, …`, `the queue has been marked as dropped`, `set as dropped`.
    anchor: /(?:process ?queue|pull ?request|pop ?request|message ?queue|the queue)\b[^.\n]{0,160}\b(?:has been|is|was) (?:marked as |set as )?dropped|\bset as dropped\b|because it(?:'s| is| was) dropped|for dropped queue/i,
    wording: "a queue's process queue was found dropped: the queue left this instance",
  },
  {
    name: "add_failed",
    action: "add_failed",
    anchor: /add (?:a )?new (?:pop )?(?:mq|message ?queue) fail/i,
    wording: "adding a queue failed (its lock or offset could not be had)",
  },
  {
    name: "remove",
    action: "remove",
    // The 5.x C++ push consumer: `Stop receiving messages from {queue} as it is not assigned to current client …` and
    // `ProcessQueue={queue} is expired. Remove it for now.` (PushConsumerImpl.cpp).
    anchor: /(?:remove|drop(?:ped)?)(?: unnecessary| the)? (?:pop )?(?:mq|message ?queue|process ?queue)|Stop receiving messages from \S{1,600} as it is not assigned|ProcessQueue=\S{1,600} is expired\. Remove it/i,
    // `remove unnecessary messageQueue offset` cleans the offset store; the queue stays.
    unless: /fail|messageQueue offset|offset ?table/i,
    wording: "a queue was removed from this instance",
  },
  {
    name: "add",
    action: "add",
    anchor: /add(?:ed)? (?:a )?(?:new )?(?:mq|message ?queue)\b/i,
    unless: /fail/i,
    wording: "a queue was added to this instance",
  },
];

const KINDS: Record<SignalAction, EventKind> = {
  starting: "instance_lifecycle",
  trigger: "rebalance",
  result: "rebalance",
  dropped: "rebalance",
  add_failed: "instance_lifecycle",
  consume_timeout: "consume_end",
  consume_exception: "consume_end",
  offset_reset: "instance_lifecycle",
  shutdown: "instance_lifecycle",
  start: "instance_lifecycle",
  channel_closed: "instance_lifecycle",
  producer_resend: "send_attempt",
  remove: "rebalance",
  add: "rebalance",
};

const MODEL = /\bmessageModel=(\w{1,20})/;
// The 5.x gRPC client names a queue `mq=broker.topic.queueId`.
const GRPC_MQ = /\bmq=([\w%-]{1,255}\.[\w%-]{1,255}\.\d{1,6})\b/;
// Outside a MessageExt dump, a UNIQ_KEY is still the id the application knows.
const UNIQ_KEY = /\bUNIQ_KEY[=:]\s?([0-9A-F]{32})\b/;
const MSG_ID = /\b(?:msgId|messageId|MsgId)[=:]\s?['"]?([0-9A-F]{32})\b/;
const RECONSUME = /\breconsumeTimes[=:]\s?(\d{1,4})\b/i;
const TOPIC = /\btopic[=:]\s?['"]?([%\w.-]{1,255})/i;

const SIGNAL_SET = new SignalSet<SignalAction, Draft>(SIGNALS, (signal, text) => {
  const kind = KINDS[signal.action];
  const queues = messageQueuesIn(text);
  // A dumped MessageExt is read as the templates read it: its id is the UNIQ_KEY, its queue and offset its own.
  const message = parseMessages(text)[0];
  const msgId = message?.msgId ?? UNIQ_KEY.exec(text)?.[1] ?? MSG_ID.exec(text)?.[1];
  const retry = message?.reconsumeTimes ?? RECONSUME.exec(text)?.[1];
  const ownQueue = message?.brokerName && message.queueId !== null ? { queue: queueName({ brokerName: message.brokerName, queueId: message.queueId }) } : {};
  const base: Draft = {
    kind,
    aboutMessages: kind === "consume_end" || kind === "send_attempt",
    clientId: clientIdIn(text) ?? rocketmqClientIdIn(text),
    group: groupIn(text) ?? null,
    topic: queues[0]?.topic ?? message?.topic ?? TOPIC.exec(text)?.[1] ?? null,
    ...ownQueue,
    ...(message ? { offsetMsgId: message.offsetMsgId, queueOffset: message.queueOffset } : {}),
    ...(msgId ? { msgId } : {}),
    ...(retry !== undefined && retry !== null ? { retryTimes: Number(retry) } : {}),
    ...(kind === "consume_end" ? { success: false } : {}),
    detail: {
      action: signal.action,
      signal: signal.name,
      exception: exceptionIn(text) ?? null,
      // The broadcast rule reads the model as the Java client prints it.
      ...(signal.action === "starting" ? { messageModel: MODEL.exec(text)?.[1]?.toUpperCase() } : {}),
    },
  };
  // A result names the whole set at once, as the Java template's `queues` does.
  if (signal.action === "result") return [{ ...base, detail: { ...base.detail, allocatedBy: "client", queues: queues.map((mq) => `${mq.broker}:${mq.queueId}`) } }];
  const grpcQueue = queues.length === 0 ? GRPC_MQ.exec(text)?.[1] : undefined;
  const grpc = grpcQueue === undefined ? undefined : parseGrpcMessageQueue(grpcQueue);
  if (grpc) return [{ ...base, ...queueOf(grpc) }];
  // A rebalance line is about its queues; other lines keep the first queue they name.
  if (queues.length === 0) return [base];
  const each = kind === "rebalance" ? queues : queues.slice(0, 1);
  return each.map((mq) => ({ ...base, topic: mq.topic, queue: `${mq.broker}:${mq.queueId}` }));
});

export function openClientLog(ctx: ParseContext): LineParser {
  const options = inputOptions(ctx, DEFAULT_OFFSET);
  const toEvents = (drafts: Draft[], line: DecodedLine, template: string) => drafts.map((draft, index) => finish(draft, template, line, index, ctx));
  return javaRecords(
    (line, lineNo) => readTemplateLine(line, lineNo, TEMPLATE_SET, options, toEvents, undefined, SIGNAL_SET),
    (line, lineNo) => readTemplateLine(line, lineNo, SIGNAL_SET, options, toEvents),
  );
}

/** One line read as a whole input. */
export function parseClientLogLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  return parseAlone(openClientLog(ctx), line, lineNo);
}

export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openClientLog(ctx));
}
