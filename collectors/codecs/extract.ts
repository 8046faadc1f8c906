/**
 * Fields read from anywhere in a line, whatever sentence holds them: the notations the clients print for partitions,
 * queues, channels, members and timeouts. What a signal (./signals.ts) reports is read here, so a new wording of a
 * known fact still yields its fields. Every pattern is bounded or anchored on a literal, so a pass is linear.
 */

export interface TopicPartition {
  topic: string;
  partition: number;
}

const TOPIC = "[A-Za-z0-9._-]{1,249}";
// kafka-python/aiokafka repr; librdkafka `t [0]`, `t[0]@12`; Java `t-0`, `{t-7=OffsetAndMetadata{…}}`.
// confluent-kafka-python's TopicPartition prints `TopicPartition{topic=t,partition=3,offset=-1001,error=None}`.
const PY_TP = /TopicPartition\(topic=u?['"]([^'"]{1,249})['"], ?partition=(\d{1,6})|TopicPartition\{topic=([^,{}\s]{1,249}), ?partition=(\d{1,6})/g;
// A structured logger's fields, a topic key then a partition key: franz-go's `topic: t, partition: 47`, logfmt's
// `topic=t partition=3`, JSON's `"topic":"t","partition":3`.
const KEYED_TP = new RegExp(`\\btopic["']?\\s?[:=]\\s?["']?(${TOPIC})["']?,?\\s{0,3}["']?partition["']?\\s?[:=]\\s?(\\d{1,6})\\b`, "g");
// Not a `key=value`'s value either: Java's `offsetEpoch=Optional[4]` is an epoch, not partition 4 of topic Optional.
const BRACKET_TP = new RegExp(`(?<![\\w.=-])(${TOPIC}) ?\\[(\\d{1,6})\\](?:@-?\\d+)?`, "g");
// Not a `key=value`'s value: `clientId=consumer-g-1` names a client, not partition 1 of topic consumer-g.
const DASH_TP = new RegExp(`(?<![\\w.=-])(${TOPIC})-(\\d{1,6})(?=[\\s,\\]}=)]|$)`, "g");
// A list the dash notation is trusted in: a [] or {} list, or a plain list, that a partition word leads, where `t-0`
// means a partition; a thread name such as `[consumer-group-1]` is not one.
const DASH_LIST = /(?:partitions?|assign(?:ed|ment)|revoked?|lost|Added|Removed)\b[^[{\n]{0,40}[[{][^\]}]{0,4000}|partitions?:?\s[^\]}\n]{0,4000}/gi;

// Java's map of offsets to commit: `{t-7=OffsetAndMetadata{offset=…}}`.
const OFFSETS_TP = new RegExp(`(?<![\\w.-])(${TOPIC})-(\\d{1,6})=OffsetAndMetadata`, "g");

// A JSON map of topics to partition lists (kafkajs' `memberAssignment: {"t":[0,2]}`, franz-go's `"added":{"t":[0,3]}`
// and `"revoking":{"t":[1]}`), trusted only under a key that names an assignment: elsewhere `"data":[0,1]` is a byte
// buffer.
const ASSIGNMENT_MAP = /(?:assignment|assigned|partitions|added|revoking|revoked)"?\s?[=:]\s?\{([^{}]{0,4000})\}/gi;
const MAP_ENTRY = new RegExp(`"(${TOPIC})":\\s?\\[([\\d,\\s]{0,2000})\\]`, "g");

// Sarama's `topic/partition`, only in its own sentences: `kafka: error while consuming t/0: …` (ConsumerError),
// `consumer/t/0 shutting down because …`, `added subscription to t/0`; elsewhere `a/1` is a path or a ratio, and
// `consumer/broker/1` names a broker.
const SLASH_TP = new RegExp(`(?:error while consuming |subscription to |(?<![\\w/])consumer/(?!broker/))(${TOPIC})/(\\d{1,6})\\b`, "g");

// The same map as Go's fmt prints it, `map[t:[0 1] u:[2]]`: sarama-cluster's notification under %+v
// (`Claimed:map[…]`, the partitions this member took; not `Released`), franz-go's fields under a text logger
// (`added=map[…]`, `revoking=map[…]`).
const CLAIMED_MAP = /\b(?:Claimed|added|revoking|revoked)[:=]map\[((?:[^\s:[\]]{1,249}:\[[\d ]{0,2000}\] ?){1,200})\]/g;
const GO_MAP_ENTRY = new RegExp(`(${TOPIC}):\\[([\\d ]{0,2000})\\]`, "g");

/** Partitions in every notation the Kafka clients print; distinct, in order of appearance. */
export function partitionsIn(text: string): TopicPartition[] {
  const found = new Map<string, TopicPartition>();
  const add = (topic: string, partition: string) => {
    const p = Number(partition);
    if (!/^\d/.test(topic) || /[A-Za-z_.]/.test(topic)) found.set(`${topic}-${p}`, { topic, partition: p });
  };
  for (const m of text.matchAll(PY_TP)) add((m[1] ?? m[3])!, (m[2] ?? m[4])!);
  if (found.size > 0) return [...found.values()];
  for (const m of text.matchAll(KEYED_TP)) add(m[1]!, m[2]!);
  if (found.size > 0) return [...found.values()];
  for (const m of text.matchAll(OFFSETS_TP)) add(m[1]!, m[2]!);
  if (found.size > 0) return [...found.values()];
  for (const map of text.matchAll(ASSIGNMENT_MAP)) {
    for (const m of map[1]!.matchAll(MAP_ENTRY)) for (const p of m[2]!.split(",")) if (p.trim() !== "") add(m[1]!, p.trim());
  }
  if (found.size > 0) return [...found.values()];
  for (const m of text.matchAll(SLASH_TP)) add(m[1]!, m[2]!);
  if (found.size > 0) return [...found.values()];
  for (const map of text.matchAll(CLAIMED_MAP)) {
    for (const m of map[1]!.matchAll(GO_MAP_ENTRY)) for (const p of m[2]!.split(" ")) if (p !== "") add(m[1]!, p);
  }
  if (found.size > 0) return [...found.values()];
  for (const m of text.matchAll(BRACKET_TP)) add(m[1]!, m[2]!);
  if (found.size > 0) return [...found.values()];
  for (const list of text.matchAll(DASH_LIST)) for (const m of list[0].matchAll(DASH_TP)) add(m[1]!, m[2]!);
  return [...found.values()];
}

const MESSAGE_QUEUE = /MessageQueue \[topic=([^,\]]{1,255}), brokerName=([^,\]]{1,255}), queueId=(\d{1,6})\]/g;
// The Go client: `messageQueue="topic@broker:3"`-like renderings vary; its structs print `{Topic:t BrokerName:b QueueId:3}`.
const GO_QUEUE = /\{?Topic:(\S{1,255}) BrokerName:(\S{1,255}) QueueId:(\d{1,6})\}?/g;

export interface MessageQueueRef {
  topic: string;
  broker: string;
  queueId: number;
}

// The 5.x C++ client's simpleNameOf, `namespace@topic@queueId@broker` (Protocol.cpp), only where its push consumer
// names a queue: elsewhere `ip@pid@0@hash` is a client id.
const CPP_QUEUE = /(?:messages from |ProcessQueue=)([^@\s]{0,255})@([^@\s]{1,255})@(\d{1,6})@([\w-]{1,255})/g;

/** RocketMQ message queues: Java's `MessageQueue [topic=…, brokerName=…, queueId=…]`, the Go client's struct, the C++ 5.x client's name. */
export function messageQueuesIn(text: string): MessageQueueRef[] {
  const found = new Map<string, MessageQueueRef>();
  for (const re of [MESSAGE_QUEUE, GO_QUEUE]) {
    for (const m of text.matchAll(re)) found.set(`${m[1]}|${m[2]}|${m[3]}`, { topic: m[1]!, broker: m[2]!, queueId: Number(m[3]) });
  }
  for (const m of text.matchAll(CPP_QUEUE)) found.set(`${m[2]}|${m[4]}|${m[3]}`, { topic: m[2]!, broker: m[4]!, queueId: Number(m[3]) });
  return [...found.values()];
}

function firstNumber(text: string, re: RegExp): number | undefined {
  const m = re.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : undefined;
}

function firstText(text: string, re: RegExp): string | undefined {
  const m = re.exec(text);
  const value = m?.[1] ?? m?.[2];
  return value === undefined || value === "" ? undefined : value;
}

/** An AMQP channel number: `on channel 2`, `channel=2`, `channel: 2`, `Channel 2`, the Java client's `AMQChannel(amqp://…/,2)`. */
export const channelIn = (text: string) => firstNumber(text, /\bchannel(?:Id)?[ =:#]{1,3}(\d{1,5})\b/i) ?? firstNumber(text, /\bAMQChannel\([^,()\s]{0,300},(\d{1,5})\)/);

/**
 * The heartbeat timeout named where a connection is given up, in seconds: the .NET and Java clients' `Heartbeat
 * missing with heartbeat == 60 seconds`, pika's `too many missed heartbeats in the last 60 seconds` (`meartbeats`, or
 * `No reply in 60 seconds`, in older releases), the node's `missed heartbeats from client, timeout: 60s`, `did not
 * respond to heartbeats for 30s`.
 */
export function heartbeatTimeoutSIn(text: string): number | undefined {
  const m = /heartbeat == (\d{1,6}) seconds|beats in the last (\d{1,6}) seconds|No reply in (\d{1,6}) seconds|heartbeats?\b[^.\n]{0,40}?\b(?:timeout:? |for )(\d{1,6}) ?s\b/i.exec(text);
  const value = m?.[1] ?? m?.[2] ?? m?.[3] ?? m?.[4];
  return value === undefined ? undefined : Number(value);
}

/** RabbitMQ's ack timeout, `Timeout value used: 1800000 ms` (3.8.15+) or `Timeout used: … ms` (3.13+). */
export const timeoutMsIn = (text: string) => firstNumber(text, /Timeout (?:value )?used: (\d{1,12}) ms/);

/**
 * Kafka's member id: `memberId='…'`, `member_id=…`, `memberId: …`, `member …` in librdkafka's words, and the 3.7+
 * consumer's state machine `Member <id> with epoch N transitioned from …` (KIP-848).
 */
export const memberIdIn = (text: string) =>
  firstText(text, /\b[Mm]ember_?[Ii]d['"]?\s?[=:]\s?['"]?([^\s'",)}\]]{1,255})/) ??
  firstText(text, /\b[Mm]ember_?[Ii]d ([\w.-]{0,200}[-\d][\w.-]{0,200})/) ??
  firstText(text, /\bMember ([\w-]{1,255}) with epoch -?\d/);

/**
 * Kafka's generation or member epoch: `generation 12`, `generationId=12`, `generation_id=12`, `Member m with epoch 3`,
 * `local epoch 3`, `memberEpoch=3`. A bare `epoch` is not one: `leader epoch 3`, `LeaderAndEpoch{…, epoch=5}` and
 * `offsetEpoch=…` name a partition leader's epoch.
 */
export const generationIn = (text: string) =>
  firstNumber(text, /\b(?:generation(?:_?id)?|member[ _]?epoch|(?:with|local) epoch)[ =:]{1,3}(-?\d{1,10})\b/i);

/**
 * A consumer group: `groupId=g`, `group_id=g`, `group=g`, `groupName=g`, `group: g`, `Group "g"`, `group g`,
 * `consumerGroup=g`, and brod's log prefix `Group member (g,coor=…,cb=…,generation=N)`.
 */
export const groupIn = (text: string) =>
  firstText(text, /\bGroup member \(([^,()\s]{1,255}),coor=/) ??
  firstText(text, /\b(?:group(?:_?[Ii]d|Name)?|consumerGroup|consumer_group)['"]?\s?[=:]\s?['"]?([^\s'",)}\]]{1,255})|\b[Gg]roup ["']([^"']{1,255})["']/) ??
  firstText(text, /\b[Gg]roup[:=]? (?!coordinator|is\b|has\b|was\b|id\b|metadata\b|generation\b|membership\b|rebalance\b|assignment\b|session\b|member\b)([A-Za-z0-9._-]{1,255})\b/);

/**
 * A client id: `clientId=c`, `client.id=c`, `clientID: c`, or a librdkafka handle name (`rdkafka#consumer-1`) however
 * it is framed: `|rdkafka#consumer-1|` in its own lines, `name=…` in a binding's log object.
 */
export const clientIdIn = (text: string) =>
  firstText(text, /\bclient[._]?[Ii][Dd]['"]?\s?[=:]\s?['"]?([^\s'",)}\]]{1,255})/) ?? firstText(text, /(?<![\w.#-])([\w.-]{1,200}#(?:consumer|producer)-\d{1,6})(?![\w-])/);

/** A name as a Rust `{:?}` or Go `%q` renders it, `"g"`: the name without its quotes. */
export function unquoted(name: string | null | undefined): string | null | undefined {
  const m = name === undefined || name === null ? null : /^(["'])(.+)\1$/.exec(name);
  return m ? m[2] : name;
}

/** An AMQP connection as the broker names it: `(10.0.0.1:5555 -> 10.0.0.2:5672`. */
export const connectionIn = (text: string) => firstText(text, /(\d{1,3}(?:\.\d{1,3}){3}:\d{1,5} -> \d{1,3}(?:\.\d{1,3}){3}:\d{1,5})/);

/** A RabbitMQ consumer tag: `amq.ctag-…`. */
export const consumerTagIn = (text: string) => firstText(text, /\b(amq\.ctag-[A-Za-z0-9_-]{1,64})/);

/** A RabbitMQ queue named in a reply text: `queue 'orders'`. */
export const queueNameIn = (text: string) => firstText(text, /\bqueue '([^']{1,255})'/);

/** A RabbitMQ vhost: `vhost '/'`, `vhost: '/'`. */
// pika's connection parameters print `virtual_host=v` (`<URLParameters host=h port=5672 virtual_host=v ssl=False>`).
export const vhostIn = (text: string) => firstText(text, /\bvhost:? '([^']{0,255})'|\bvirtual_host=([^\s,>'"]{1,255})/);

const EXCEPTION_NAME = /\b((?:[A-Za-z_$][\w$]{0,80}(?:\.|\\{1,2}|::)){0,12}[A-Z][\w$]{0,80}(?:Exception|Error|Failed|Forced|Closed(?:By(?:Broker|Client))?|Lost|Timeout|Refused))\b(?=[:(\s'">,]|$)/;
const PY_EXCEPTIONS = /(?<![\w$])exceptions\.[A-Z]\w{0,80}(?=[:(\s'"]|$)/;

/**
 * The exception or error class a line names, in Java, Python, .NET, PHP or JS renderings: the last dotted or
 * backslashed segment chain ending in Exception/Error, or a known AMQP/Kafka error name (pika's AMQPHeartbeatTimeout,
 * ConnectionForced, StreamLost, ChannelClosedByBroker…), also Ruby's `::` namespaces (Bunny's AccessRefused, …), and
 * any class of a Python `exceptions` module (py-amqp's `amqp.exceptions.NotAllowed`, named after the AMQP error).
 */
export function exceptionIn(text: string): string | undefined {
  // A PHP class inside a JSON context (`"PhpAmqpLib\\Exception\\…"`) keeps its escaping in the raw line: the name has one.
  const named = EXCEPTION_NAME.exec(text);
  // The module's literal is found first and its dotted path read backwards from there, so a long dotted line costs
  // one pass rather than one path per position.
  const module = PY_EXCEPTIONS.exec(text);
  const path = module ? (/(?:[A-Za-z_]\w{0,80}\.){0,8}$/.exec(text.slice(Math.max(0, module.index - 800), module.index))?.[0] ?? "") : "";
  const python = module ? { at: module.index - path.length, name: path + module[0] } : undefined;
  if (named && (!python || named.index <= python.at)) return named[1]!.replaceAll("\\\\", "\\");
  return python?.name;
}

/** The reply text of an AMQP close: `reply-text=…`, `text='…'`, or a `PRECONDITION_FAILED - …` sentence. */
export const replyTextIn = (text: string) =>
  firstText(text, /\breply-text=([^,)]{1,300})|\btext=["']([^"']{1,300})/) ?? firstText(text, /\b([A-Z_]{6,30} - [^"'\n)]{1,300})/);

/** A RocketMQ clientId: `ip@pid`, `ip@instance`, `ip@pid#…`. */
export const rocketmqClientIdIn = (text: string) => firstText(text, /\b(\d{1,3}(?:\.\d{1,3}){3}@[\w#.-]{1,128})/);
