/**
 * Values RocketMQ's Java code writes into its logs through toString(): message queues, client ids, messages and
 * broker-side channel records. Pure text decoding shared by the client-log and broker-log parsers.
 */

export interface MessageQueueToken {
  topic: string;
  brokerName: string;
  queueId: number;
}

/** The event model's queue name: `brokerName:queueId` (a queue id alone is ambiguous across brokers). */
export function queueName(mq: Pick<MessageQueueToken, "brokerName" | "queueId">): string {
  return `${mq.brokerName}:${mq.queueId}`;
}

// Topic and broker names cannot hold commas or brackets (RocketMQ validates names), so the fields are bounded by them.
const MESSAGE_QUEUE = /MessageQueue \[topic=([^,[\]]+), brokerName=([^,[\]]+), queueId=(\d+)\]/g;
const MESSAGE_QUEUE_OPENING = /MessageQueue \[/g;

function toQueue(match: RegExpExecArray): MessageQueueToken | undefined {
  const queueId = Number(match[3]);
  if (!Number.isSafeInteger(queueId)) return undefined;
  return { topic: match[1]!, brokerName: match[2]!, queueId };
}

/** `MessageQueue [topic=order_paid, brokerName=broker-a, queueId=3]`, the whole text and nothing else. */
export function parseMessageQueue(text: string): MessageQueueToken | undefined {
  const trimmed = text.trim();
  const match = new RegExp(`^${MESSAGE_QUEUE.source}$`).exec(trimmed);
  return match ? toQueue(match) : undefined;
}

/**
 * Every MessageQueue in a collection's toString (`[MessageQueue [...], MessageQueue [...]]`, a Set of
 * MessageQueueAssignment, …). Undefined when one of them does not parse, so a garbled list is not read as a shorter one.
 */
export function parseMessageQueueList(text: string): MessageQueueToken[] | undefined {
  const openings = text.match(MESSAGE_QUEUE_OPENING)?.length ?? 0;
  const queues: MessageQueueToken[] = [];
  for (const match of text.matchAll(MESSAGE_QUEUE)) {
    const queue = toQueue(match);
    if (!queue) return undefined;
    queues.push(queue);
  }
  return queues.length === openings ? queues : undefined;
}

// The gRPC client's MessageQueueImpl prints `brokerName.topic.queueId`; topics cannot hold dots, broker names can.
const GRPC_QUEUE = /^(.+)\.([^.\s]+)\.(\d+)$/;
// The Node.js client formats its own, `topic@brokerName@queueId` (PushConsumer.ts `mq=%s@%s@%s`).
const NODE_QUEUE = /^([^@\s]+)@([^@\s]+)@(\d+)$/;

/** `broker-a.order_paid.3`, as the 5.x gRPC push consumer logs a queue. */
export function parseGrpcMessageQueue(text: string): MessageQueueToken | undefined {
  const node = NODE_QUEUE.exec(text.trim());
  const match = node ?? GRPC_QUEUE.exec(text.trim());
  if (!match) return undefined;
  const queueId = Number(match[3]);
  if (!Number.isSafeInteger(queueId)) return undefined;
  return node ? { brokerName: node[2]!, topic: node[1]!, queueId } : { brokerName: match[1]!, topic: match[2]!, queueId };
}

/**
 * `Assignments{assignmentList=[Assignment{messageQueue=broker-a.order_paid.0}, …]}`, or `null` before the first
 * assignment arrived (an empty list). Undefined when an entry does not parse.
 */
export function parseGrpcAssignments(text: string): MessageQueueToken[] | undefined {
  const trimmed = text.trim();
  if (trimmed === "null") return [];
  if (!trimmed.startsWith("Assignments{")) return undefined;
  const queues: MessageQueueToken[] = [];
  for (const match of trimmed.matchAll(/messageQueue=([^,}\s]+)/g)) {
    const queue = parseGrpcMessageQueue(match[1]!);
    if (!queue) return undefined;
    queues.push(queue);
  }
  return queues;
}

export interface ClientIdToken {
  raw: string;
  host: string;
  /** `pid#nanotime` (4.9+), `pid`, `DEFAULT` or a user-set name; the pid for the gRPC client. */
  instanceName: string;
  /** What follows: the unit name (remoting client) or `index@nanotime` (gRPC client). */
  suffix: string | null;
}

/** `10.0.0.5@31337#2104881822301`, `10.0.0.5@DEFAULT@unitA`, `app-host@31337@0@3k2j1h` (gRPC). */
export function parseClientId(text: string): ClientIdToken | undefined {
  const match = /^([^@\s,[\]]+)@([^@\s,[\]]+)(?:@([^\s,[\]]+))?$/.exec(text.trim());
  if (!match) return undefined;
  return { raw: match[0], host: match[1]!, instanceName: match[2]!, suffix: match[3] ?? null };
}

export interface MessageToken {
  /** The msgId applications and traces use: UNIQ_KEY, or the offset id when the message has none. */
  msgId: string | null;
  offsetMsgId: string | null;
  topic: string | null;
  brokerName: string | null;
  queueId: number | null;
  queueOffset: number | null;
  reconsumeTimes: number | null;
  keys: string[];
}

function numberField(text: string, name: string): number | null {
  const match = new RegExp(`(?:^|[\\[ ])${name}=(\\d+)`).exec(text);
  const value = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(value) ? value : null;
}

function textField(text: string, name: string): string | null {
  return new RegExp(`(?:^|[\\[ ])${name}=([^,\\]\\s]+)`).exec(text)?.[1] ?? null;
}

/** A Java HashMap's toString, `{KEYS=order-42, UNIQ_KEY=0A00…, TAGS=paid}`; values may hold spaces. */
function readProperties(segment: string): Map<string, string> {
  const start = segment.indexOf("properties={");
  const properties = new Map<string, string>();
  if (start < 0) return properties;
  const end = segment.indexOf("}", start);
  const body = segment.slice(start + "properties={".length, end < 0 ? undefined : end);
  for (const match of body.matchAll(/(?:^|, )([A-Za-z_][\w.-]*)=(.*?)(?=, [A-Za-z_][\w.-]*=|$)/g)) {
    properties.set(match[1]!, match[2]!);
  }
  return properties;
}

// Current clients print `Message{topic='t', …}`, old 4.x ones `Message [topic=t, …]`.
function readTopic(segment: string): string | null {
  const match = /Message(?:\{topic='([^']*)'| \[topic=([^,\]]*))/.exec(segment);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

function readMessage(segment: string): MessageToken {
  // MessageExt's own fields come before `toString()=Message{…}`; its `msgId=` field is the offset id, the id
  // applications see (MessageClientExt.getMsgId) is the UNIQ_KEY property.
  const cut = segment.indexOf("toString()=");
  const header = cut < 0 ? "" : segment.slice(0, cut);
  const properties = readProperties(segment);
  const offsetMsgId = textField(header, "msgId");
  const uniqKey = properties.get("UNIQ_KEY");
  return {
    msgId: uniqKey !== undefined && uniqKey !== "" ? uniqKey : offsetMsgId,
    offsetMsgId,
    topic: readTopic(segment),
    brokerName: textField(header, "brokerName"),
    queueId: numberField(header, "queueId"),
    queueOffset: numberField(header, "queueOffset"),
    reconsumeTimes: numberField(header, "reconsumeTimes"),
    keys: (properties.get("KEYS") ?? "").split(/\s+/).filter((key) => key !== ""),
  };
}

function segmentsStartingWith(text: string, marker: string): string[] {
  const starts: number[] = [];
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) starts.push(at);
  return starts.map((start, i) => text.slice(start, starts[i + 1]));
}

/**
 * The messages in a MessageExt toString or a list of them (`[MessageExt [brokerName=…, queueOffset=…, msgId=…,
 * toString()=Message{topic='…', properties={…UNIQ_KEY=…}, …}], …]`), or in a producer's `Message{topic='…', …}`
 * (`Message [topic=…, …]` in old 4.x clients).
 */
export function parseMessages(text: string): MessageToken[] {
  for (const marker of ["MessageExt [", "Message{topic=", "Message [topic="]) {
    const segments = segmentsStartingWith(text, marker);
    if (segments.length > 0) return segments.map(readMessage);
  }
  return [];
}

export interface ChannelToken {
  clientId: string | null;
  /** The client's `ip:port` as the broker sees it. */
  remoteAddress: string | null;
}

/**
 * A broker's ClientChannelInfo toString, `ClientChannelInfo [channel=[id: 0x5c1f0a7e, L:/10.0.0.2:10911 -
 * R:/10.0.0.5:53211], clientId=10.0.0.5@31337#…, language=JAVA, …]` (`!` instead of `-` once the channel is
 * closed; older brokers print `channel=/10.0.0.5:53211`), or a bare `10.0.0.5:53211`.
 */
export function parseChannel(text: string): ChannelToken {
  const clientId = /clientId=([^,\]\s]+)/.exec(text)?.[1] ?? null;
  const remote =
    /R:\/?([^\]\s,]+)/.exec(text)?.[1] ??
    /channel=\/([^\]\s,]+)/.exec(text)?.[1] ??
    /^\/?(\S+:\d{1,5})$/.exec(text.trim())?.[1] ??
    null;
  return { clientId: clientId !== null && parseClientId(clientId) ? clientId : null, remoteAddress: remote };
}
