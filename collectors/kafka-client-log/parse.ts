import { canonicalInstance } from "../../lib/events/instance.ts";
import { compact } from "../codecs/detail.ts";
import type { DetailValue, EventKind, NormalizedEvent } from "../../lib/events/model.ts";
import type { Envelope } from "../codecs/envelope.ts";
import { headTemplate, inputOptions, javaRecords, readTemplateLine, TemplateSet, withFields, type DecodedLine, type MessageTemplate } from "../codecs/log-record.ts";
import { clientIdIn, exceptionIn, generationIn, groupIn, memberIdIn, partitionsIn } from "../codecs/extract.ts";
import { SignalSet, type Signal } from "../codecs/signals.ts";
import { epochTime, type TimeLookup } from "../codecs/timestamp.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseAlone, parseLines, type LineParser, type LineResult, type ParseContext, type ParseResult } from "../types.ts";
import { OffsetResets, type ResetStrategy } from "./offset-resets.ts";

/**
 * Kafka consumer logs: the lines that say when a consumer joined its group, gave up, received or lost partitions,
 * or was thrown out for not polling. Read by message wherever the layout puts it (see ../codecs/log-record.ts):
 *
 *   Java kafka-clients 0.10 → 4.x   `[Consumer clientId=…, groupId=…] Revoke previously assigned partitions t-0`,
 *                                   0.10/1.x `Revoking previously assigned partitions [t-0] for group g`, …
 *   Spring Kafka containers         `g: partitions assigned: [t-0]`, `partitions revoked: [t-0]`
 *   kafka-python                    `Revoking previously assigned partitions {TopicPartition(topic='t', partition=0)} for group g`
 *   librdkafka `debug=cgrp`         `%7|1622554781.123|ASSIGN|rdkafka#consumer-1| [thrd:main]: Group "g": …`
 *   Kafka Connect worker groups     `[Worker clientId=connect-1, groupId=connect-cluster] Rebalance started`: kept
 *                                   apart as `worker_rebalance` lifecycle events, never as consumer rebalances.
 *
 * Offset resets (`… is out of range for partition t-0, resetting offset`, `Resetting offset for partition t-0 to …`,
 * an application's `Seeking to …`) are lifecycle events of the partition, paired in ./offset-resets.ts.
 * `Pausing partitions`, `Setting offset for partition … to the committed offset`, offset commits and a manual
 * `assign()` are not rebalances and match no template. Templates and events are listed in README.md.
 */

export const FORMAT = "kafka-client-log";

/** Kafka clients print the host's local time without a zone; containers run in UTC. */
const DEFAULT_OFFSET = "Z";

export type ConsumerAction =
  | "joining"
  | "joined"
  | "revoke"
  | "assign"
  | "lost"
  | "poll_timeout"
  | "leave_group"
  | "commit_failed"
  /** The member was fenced, or the coordinator no longer knows its id or generation, outside a commit. */
  | "membership_lost"
  | "worker_rebalance"
  | "offset_out_of_range"
  | "offset_reset"
  | "offset_skipped"
  /** An application's seek to the start or end: no event of its own, it says why the reset after it happened. */
  | "offset_seek"
  /** The group had no committed offset for the partition: no event of its own either. */
  | "offset_uncommitted";

export interface TopicPartition {
  topic: string;
  partition: number;
}

interface Draft {
  action: ConsumerAction;
  /** The template in words, partitions and values as `{}`. */
  wording: string;
  /** Revoked/assigned/lost partitions; an empty list is an empty assignment. */
  partitions?: TopicPartition[];
  /** Group named by the message itself (old clients, kafka-python, Spring Kafka, librdkafka). */
  group?: string;
  /** A Connect worker-group template: counts only under a `[Worker …]` prefix. */
  worker?: boolean;
  detail?: { [key: string]: DetailValue | undefined };
  /** What an offset line says of its partition (the first of `partitions`), for OffsetResets. */
  offsets?: { fromOffset?: number; toOffset?: number; strategy?: ResetStrategy };
}

type Template = MessageTemplate<Draft>;

/**
 * A failed commit whose reason means the member lost its place in the group (Errors.java's UNKNOWN_MEMBER_ID,
 * ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS; CommitFailedException; 3.7+ unknown member / stale epoch): its
 * partitions went to another member, which reads the uncommitted offsets again. Others ("This is not the correct
 * coordinator.", "The coordinator is loading…") are retried by the client and hand nothing over.
 */
const MEMBERSHIP_LOST =
  /The coordinator is not aware of this member|Specified group generation id is not valid|The group is rebalancing, so a rejoin is needed|group has already rebalanced|not part of an active group|unknown member ID|stale member epoch/;

// clientId and groupId come from configuration and cannot contain `]`; `instanceId=` appears with static membership.
const MEMBER_PREFIX = /\[(Consumer|Worker) (?:instanceId=([^,\]]*), )?clientId=([^,\]]*), groupId=([^\]]*)\]/;
const GENERATION = /^Generation\{generationId=(-?\d+), memberId='([^']*)', protocol='([^']*)'\}/;
// Topic names are [A-Za-z0-9._-]; a TopicPartition prints as `topic-N`, so the partition is the last `-N`.
const PARTITION = /^([A-Za-z0-9._-]+)-(\d+)$/;
const PY_PARTITION = /TopicPartition\(topic=u?'([^']*)', partition=(\d+)[^)]*\)/g;
const RDKAFKA_PARTITION = /([A-Za-z0-9._-]+) ?\[(\d+)\]/g;

/**
 * `a-0, b-1`, `[a-0, b-1]`, `{a-0}`, kafka-python's `set([TopicPartition(topic=u'a', partition=0)])`; a string names
 * the first token that is not a partition.
 */
export function parsePartitions(list: string): TopicPartition[] | string {
  const text = list.trim();
  if (text.includes("TopicPartition(")) {
    return [...text.matchAll(PY_PARTITION)].map((m) => ({ topic: m[1]!, partition: Number(m[2]) }));
  }
  const inner = text.replace(/^set\(\[?(.*?)\]?\)$/, "$1").replace(/^[[{](.*)[\]}]$/, "$1").trim();
  if (inner === "" || inner === "(none)") return [];
  const partitions: TopicPartition[] = [];
  // A log viewer's or a terminal's cut after a separator (`a-4, b-9,`) leaves the partitions before it whole.
  for (const token of inner.replace(/\s*,$/, "").split(/\s*,\s*/)) {
    const m = PARTITION.exec(token);
    if (!m || !Number.isSafeInteger(Number(m[2]))) return `"${token}" is not a topic-partition`;
    partitions.push({ topic: m[1]!, partition: Number(m[2]) });
  }
  return partitions;
}

/** librdkafka prints partitions as `topic [0]`, `topic[1]`. */
function rdkafkaPartitions(text: string): TopicPartition[] {
  return [...text.matchAll(RDKAFKA_PARTITION)].map((m) => ({ topic: m[1]!, partition: Number(m[2]) }));
}

/**
 * A partition-list template: the list runs to the end of the message or to ` for group g` (old clients,
 * kafka-python). `undefined` when the list does not parse, so the line is reported rather than read as fewer.
 */
function partitionTemplate(name: string, head: RegExp, action: "revoke" | "assign" | "lost", wording: string): Template {
  const full = new RegExp(`^(${head.source}:?)\\s*(.*?)(?: for group (\\S+))?$`);
  return {
    name,
    head,
    wording,
    read(message) {
      const m = full.exec(message);
      if (!m) return undefined;
      const partitions = parsePartitions(m[2]!);
      if (typeof partitions === "string") return `partitions: ${partitions}`;
      return [{ action, wording: `${m[1]} {}`, partitions, group: m[3] }];
    },
  };
}

/** A message whose template names no partitions; `detail.template` is the words it matched. */
function simple(name: string, head: RegExp, action: ConsumerAction, wording: string, read: (m: RegExpExecArray, message: string) => Partial<Draft> = () => ({})): Template {
  return headTemplate(name, head, wording, (m, message) => [{ action, wording: m[0], ...read(m, message) }]);
}

/** 2.5+ prints the Generation object; older clients print only the number. */
function readGeneration(text: string): { generationId: number; memberId?: string; protocol?: string } | undefined {
  const number = /^(-?\d+)\b/.exec(text);
  if (number) return { generationId: Number(number[1]) };
  const m = GENERATION.exec(text);
  return m ? { generationId: Number(m[1]), memberId: m[2], protocol: m[3] } : undefined;
}

const joined: Template = {
  name: "joined",
  // Java 2.x+ `… with generation {}`; 0.10/1.x and kafka-python `Successfully joined group {g} with generation {n}`
  head: /Successfully joined group(?: \S+)? with generation /,
  wording: "Successfully joined group with generation Generation{generationId={}, memberId='{}', protocol='{}'}",
  read(message) {
    const m = /^Successfully joined group(?: (\S+))? with generation (.*)$/.exec(message);
    if (!m) return undefined;
    const generation = readGeneration(m[2]!);
    if (!generation) return `generation: "${m[2]}" is neither a number nor Generation{…}`;
    return [{ action: "joined", wording: "Successfully joined group with generation {}", group: m[1], detail: { ...generation } }];
  },
};

const springContainer: Template = {
  name: "spring_partitions",
  // Spring Kafka's KafkaMessageListenerContainer: `partitions assigned: [t-0]`, since 2.3 prefixed by the group id.
  // Bounded like a group id (255), and begun only where such a run begins: otherwise every character of a long
  // dotted line starts a 255-character scan (a 1 MiB line of `a.` took 2-4 s).
  head: /(?:(?<![\w.-])[\w.-]{1,255}: )?partitions (?:assigned|revoked|lost):/,
  wording: "{group}: partitions assigned|revoked|lost: [{}]",
  atStart: true,
  read(message) {
    // The container prints the list last; what follows its closing bracket (a note pasted after it) is no partition.
    const m = /^(?:([\w.-]{1,255}): )?partitions (assigned|revoked|lost):\s*(\[[^\]]*\]|.*)/.exec(message);
    const partitions = m && parsePartitions(m[3]!);
    if (!m || partitions === null || typeof partitions === "string") return undefined;
    const action = m[2] === "assigned" ? "assign" : m[2] === "revoked" ? "revoke" : "lost";
    return [{ action, wording: `{group}: partitions ${m[2]}: [{}]`, partitions, group: m[1] }];
  },
};

/** librdkafka's epoch stamp (`%7|1622554781.123|FAC|…`), when the line has no time of its own before the message. */
function rdkafkaTime(text: string): TimeLookup {
  const epoch = /%\d\|(\d{9,10}\.\d{3})\|/.exec(text)?.[1];
  return epoch === undefined ? undefined : epochTime(Number(epoch), epoch);
}

/**
 * librdkafka (`debug=cgrp`, also through confluent-kafka-python/-go/.NET, node-rdkafka, rdkafka-ruby), matched by
 * its message whatever framed it (`%7|epoch|FAC|client| [thrd:main]: `, `LOG-7-FAC: `, an application logger).
 */
function rdkafkaTemplate(name: string, head: RegExp, wording: string, read: (m: RegExpExecArray, message: string) => Draft[]): Template {
  const template = headTemplate<Draft>(name, head, wording, (m, message, line) => {
    const group = /Group "([^"]*)"/.exec(message)?.[1];
    const clientId = /\|([^|\s]+#(?:consumer|producer)-\d+)\|/.exec(line.raw)?.[1];
    return read(m, message).map((d) => ({ ...d, group: d.group ?? group, detail: { ...d.detail, clientId } }));
  });
  return { ...template, ownTime: (_message, text) => rdkafkaTime(text) };
}

/**
 * librdkafka moved a partition's fetch position (`orders [0]: offset reset (at offset 1500 (leader epoch 3), broker 1)
 * to offset BEGINNING (leader epoch -1): fetch failed due to requested offset not available on the broker: Broker:
 * Offset out of range`). Back, or to BEGINNING, everything from there is consumed again; forward, or to END, it skips.
 */
function readRdkafkaReset(m: RegExpExecArray, message: string): Draft[] {
  const partition = Number(m[2]);
  const number = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : undefined);
  const [fromOffset, toOffset] = [number(m[3]!), number(m[4]!)];
  const strategy: ResetStrategy | undefined = m[4] === "BEGINNING" ? "earliest" : m[4] === "END" ? "latest" : undefined;
  const forward = fromOffset !== undefined && toOffset !== undefined ? toOffset >= fromOffset : strategy === "latest";
  const detail = { fromOffset, toOffset, strategy, reason: /out of range/i.test(message) ? "out_of_range" : undefined };
  return [{ action: forward ? "offset_skipped" : "offset_reset", wording: "{topic} [{partition}]: offset reset (at {}, broker {}) to {}: {reason}", partitions: [{ topic: m[1]!, partition }], detail }];
}

/** A join-state change names what the consumer does next. */
function joinStateAction(to: string): ConsumerAction | undefined {
  if (/unassign|revoke/.test(to)) return "revoke";
  if (/^(?:wait-join|wait-metadata|init)$/.test(to)) return "joining";
  if (/assign|^steady$/.test(to)) return "assign";
  return undefined;
}

const RDKAFKA_TEMPLATES: Template[] = [
  rdkafkaTemplate("rdkafka_join_state", /Group "[^"]*" changed join state (\S+) -> (\S+)/, 'Group "{}" changed join state {} -> {}', (m) => {
    const action = joinStateAction(m[2]!);
    return action ? [{ action, wording: 'Group "{}" changed join state {} -> {}', detail: { joinState: `${m[1]} -> ${m[2]}` } }] : [];
  }),
  rdkafkaTemplate("rdkafka_rebalancing", /Group "[^"]*" (?:is rebalancing|initiating rebalance)/, 'Group "{}" is rebalancing …', () => [
    { action: "joining", wording: 'Group "{}" is rebalancing …' },
  ]),
  // 1.6+ cooperative rebalances say `delegating incremental assign|revoke of …`.
  rdkafkaTemplate("rdkafka_delegating", /(?:Group "[^"]*": )?delegating (?:incremental )?(assign|revoke) of (\d+) partition\(s\)/, 'Group "{}": delegating assign|revoke of {} partition(s) …', (m) => [
    { action: m[1] === "assign" ? "assign" : "revoke", wording: `Group "{}": delegating ${m[1]} of {} partition(s) …`, detail: { partitionCount: Number(m[2]) } },
  ]),
  rdkafkaTemplate("rdkafka_new_assignment", /Group "[^"]*": new assignment of (\d+) partition\(s\)(?: in join state (\S+))?/, 'Group "{}": new assignment of {} partition(s) …', (m) => [
    // Eager rebalances hand an empty assignment while the old one is revoked.
    { action: m[2]?.startsWith("wait-revoke") ? "revoke" : "assign", wording: 'Group "{}": new assignment of {} partition(s) …', detail: { partitionCount: Number(m[1]) } },
  ]),
  rdkafkaTemplate("rdkafka_unassign", /(?:Group "[^"]*": )?unassign(?:ing (\d+) partition\(s\)| done)/, 'Group "{}": unassigning {} partition(s)', (m, message): Draft[] =>
    // At start-up librdkafka unassigns an assignment it never had: nothing is given up.
    /no previous assignment/.test(message) ? [] : [{ action: "revoke", wording: 'Group "{}": unassigning {} partition(s)', detail: { partitionCount: m[1] === undefined ? undefined : Number(m[1]) } }],
  ),
  rdkafkaTemplate("rdkafka_rebalance_in_progress", /Group "[^"]*" heartbeat error response in state \S+ .*?: Broker: Group rebalance in progress/, 'Group "{}" heartbeat error response …: Broker: Group rebalance in progress', () => [
    { action: "joining", wording: 'Group "{}" heartbeat error response …: Broker: Group rebalance in progress', detail: { reason: "Group rebalance in progress" } },
  ]),
  rdkafkaTemplate("rdkafka_max_poll", /Application maximum poll interval \((\d+)ms\) exceeded by (\d+)ms/, "Application maximum poll interval ({}ms) exceeded by {}ms …: leaving group", (m) => [
    { action: "poll_timeout", wording: "Application maximum poll interval ({}ms) exceeded by {}ms …: leaving group", detail: { maxPollIntervalMs: Number(m[1]), exceededByMs: Number(m[2]) } },
  ]),
  rdkafkaTemplate("rdkafka_lost", /Group "[^"]*": current assignment (?:of (\d+) partition\(s\) lost|no longer considered lost)/, 'Group "{}": current assignment of {} partition(s) lost: {}', (m, message) =>
    // `no longer considered lost`: an assign() took the assignment back; nothing was lost.
    m[1] === undefined ? [] : [{ action: "lost", wording: 'Group "{}": current assignment of {} partition(s) lost: {}', detail: { partitionCount: Number(m[1]), reason: /lost: (.*)$/.exec(message)?.[1] } }],
  ),
  rdkafkaTemplate("rdkafka_offset_reset", /(?<![\w.-])([\w.-]{1,249}) \[(\d{1,6})\]: offset reset \(at (?:offset )?(-?\d{1,20}|[A-Z]{1,12})[^)]{0,40}\)?[^)]{0,40}\) to (?:offset )?(-?\d{1,20}|[A-Z]{1,12})/, "{topic} [{partition}]: offset reset (at offset {}, broker {}) to offset {}: {reason}", readRdkafkaReset),
  rdkafkaTemplate("rdkafka_leave", /(?:Group "[^"]*": leave\b|LeaveGroup response received)/, 'Group "{}": leave (in state {})', () => [{ action: "leave_group", wording: 'Group "{}": leave (in state {})' }]),
  rdkafkaTemplate("rdkafka_rebalance_cb", /RebalanceCb: Local: (Assign|Revoke) partitions: (.*)$/, "RebalanceCb: Local: Assign|Revoke partitions: {}", (m) => [
    { action: m[1] === "Assign" ? "assign" : "revoke", wording: `RebalanceCb: Local: ${m[1]} partitions: {}`, partitions: rdkafkaPartitions(m[2]!) },
  ]),
];

/** kafka-python's own wordings that the Java templates do not cover. */
const PYTHON_TEMPLATES: Template[] = [
  simple("py_joined_v1", /Joined group '[^']*' \(generation -?\d+\) with member_id /, "joined", "Joined group '{}' (generation {}) with member_id {}", (m, message) => {
    const g = /^Joined group '([^']*)' \(generation (-?\d+)\) with member_id (\S+)/.exec(message)!;
    return { group: g[1], detail: { generationId: Number(g[2]), memberId: g[3] } };
  }),
  simple("py_heartbeat_expired", /Heartbeat poll expired, leaving group/, "poll_timeout", "Heartbeat poll expired, leaving group"),
  simple("py_leaving", /Leaving consumer group \(([^)]*)\)/, "leave_group", "Leaving consumer group ({})", (m) => ({ group: /\(([^)]*)\)/.exec(m[0])![1] })),
];

/** kafkajs, usually as JSON lines whose other fields carry the group. */
const KAFKAJS_TEMPLATES: Template[] = [
  simple("kafkajs_joined", /\[(?:Runner|ConsumerGroup)\] (?:Consumer has joined the group|Chosen as group leader)/, "joined", "[Runner] Consumer has joined the group"),
  simple("kafkajs_rejoin", /\[Runner\] The coordinator is not aware of this member, re-joining the group/, "joining", "[Runner] The coordinator is not aware of this member, re-joining the group"),
];

/** Kafka Connect's worker group (`[Worker clientId=…, groupId=…]`): connectors and tasks move, not partitions. */
const WORKER_TEMPLATES: Template[] = [
  simple("worker_rebalance_started", /Rebalance started/, "worker_rebalance", "Rebalance started", () => ({ worker: true })),
  simple("worker_joined", /Joined group at generation (-?\d+) with protocol version/, "worker_rebalance", "Joined group at generation {} with protocol version {} and got assignment: {}", (m) => ({
    worker: true,
    detail: { generationId: Number(/generation (-?\d+)/.exec(m[0])![1]) },
  })),
  simple("worker_forcing_rebalance", /Current config state offset \S+ does not match group assignment \S+\. Forcing rebalance\./, "worker_rebalance", "Current config state offset {} does not match group assignment {}. Forcing rebalance.", () => ({ worker: true })),
];

// Java's `t-0`; kafka-python's and aiokafka's `TopicPartition(topic='t', partition=0)`.
const TOPIC_PARTITION = "([A-Za-z0-9._-]+-\\d+|TopicPartition\\(topic=u?'[^']*', partition=\\d+\\))";
// A pasted line whose partition was elided (`[...]`, `…`, `***`, `<redacted>`) still states the reset.
const ELIDED_PARTITION = "(?:\\[\\.{3}\\]|\\.{3}|…|\\*{3,}|<[^>\\s]{1,40}>)";

/** One partition named by an offset line, as TopicPartition prints it. */
function onePartition(token: string): TopicPartition[] | undefined {
  const partitions = parsePartitions(token);
  return typeof partitions === "string" || partitions.length !== 1 ? undefined : partitions;
}

const strategyOf = (word: string): ResetStrategy => (/^(?:earliest|beginning)$/i.test(word) ? "earliest" : "latest");

/** Fetcher (0.10 – 3.4), AbstractFetch (3.5, 3.6), FetchCollector (3.7+): the position the consumer stood at. */
const offsetOutOfRange: Template = {
  name: "offset_out_of_range",
  head: /Fetch (?:offset \d+|position FetchPosition\{offset=\d+)/,
  atStart: true,
  wording: "Fetch position FetchPosition{offset={}, …} is out of range for partition {}, resetting offset",
  read(message) {
    const m = new RegExp(`^Fetch (?:offset (\\d+)|position FetchPosition\\{offset=(\\d+).*?\\}) is out of range(?: for (?:topic-)?partition ${TOPIC_PARTITION})?`).exec(message);
    if (!m) return undefined;
    const fromOffset = Number(m[1] ?? m[2]);
    if (!Number.isSafeInteger(fromOffset)) return "offset: not a whole number";
    const partitions = m[3] === undefined ? [] : onePartition(m[3]);
    if (partitions === undefined) return `partitions: "${m[3]}" is not a topic-partition`;
    // Without auto.offset.reset the client throws OffsetOutOfRangeException to the application instead.
    const policy = /no reset policy is configured/.test(message) ? "none" : "reset";
    return [{ action: "offset_out_of_range", wording: this.wording, partitions, detail: { fromOffset, policy }, offsets: { fromOffset } }];
  },
};

/** Fetcher (0.9 – 2.2), SubscriptionState (2.3+): where the partition was moved. */
const offsetReset: Template = {
  name: "offset_reset",
  head: /Resetting offset for partition /,
  atStart: true,
  wording: "Resetting offset for partition {} to position FetchPosition{offset={}, …}.",
  read(message) {
    const m = new RegExp(`^Resetting offset for partition (?:${TOPIC_PARTITION}|${ELIDED_PARTITION}) to (?:offset (\\d+)|position FetchPosition\\{offset=(\\d+)|(earliest|latest) offset|(the committed offset))`).exec(message);
    if (!m) return undefined;
    // 0.9 – 1.0 at DEBUG: the consumer resumes where its group committed, as `Setting offset …` says later.
    if (m[5] !== undefined) return [];
    const partitions = m[1] === undefined ? [] : onePartition(m[1]);
    if (partitions === undefined) return `partitions: "${m[1]}" is not a topic-partition`;
    const to = m[2] ?? m[3];
    const toOffset = to === undefined ? undefined : Number(to);
    if (toOffset !== undefined && !Number.isSafeInteger(toOffset)) return "offset: not a whole number";
    const strategy = m[4] === undefined ? undefined : strategyOf(m[4]);
    return [{ action: "offset_reset", wording: this.wording, partitions, offsets: { toOffset, strategy } }];
  },
};

/**
 * An application's `seekToBeginning` / `seekToEnd` (the reset line follows with the offset), or its `seek` to an
 * offset, which moves the partition there and logs nothing more.
 */
const offsetSeek: Template = {
  name: "offset_seek",
  head: /Seeking to (?:(?:EARLIEST|LATEST|earliest|latest) offset of|beginning of|end of|offset \d+ for) partition /,
  atStart: true,
  wording: "Seeking to {EARLIEST|LATEST} offset of partition {}",
  read(message) {
    const to = new RegExp(`^Seeking to offset (\\d+) for partition ${TOPIC_PARTITION}`).exec(message);
    if (to) {
      const partitions = onePartition(to[2]!);
      const toOffset = Number(to[1]);
      if (partitions === undefined || !Number.isSafeInteger(toOffset)) return undefined;
      // Says where and why itself: nothing for OffsetResets to pair.
      return [{ action: "offset_reset", wording: "Seeking to offset {} for partition {}", partitions, detail: { reason: "seek", toOffset } }];
    }
    const m = new RegExp(`^Seeking to (EARLIEST|LATEST|earliest|latest|beginning|end) (?:offset )?of partition ${TOPIC_PARTITION}$`).exec(message);
    if (!m) return undefined;
    const partitions = onePartition(m[2]!);
    if (partitions === undefined) return `partitions: "${m[2]}" is not a topic-partition`;
    return [{ action: "offset_seek", wording: this.wording, partitions, offsets: { strategy: strategyOf(m[1]!) } }];
  },
};

/** ConsumerCoordinator (INFO from 2.3, DEBUG before): the group has no committed offset, so auto.offset.reset decides. */
const offsetUncommitted: Template = headTemplate("offset_uncommitted", /Found no committed offset for partition /, "Found no committed offset for partition {}", (m, message) => {
  const token = message.slice(m[0].length).trim();
  const partitions = onePartition(token);
  return partitions === undefined ? `partitions: "${token}" is not a topic-partition` : [{ action: "offset_uncommitted", wording: "Found no committed offset for partition {}", partitions, offsets: {} }];
});

/** Checked in order at the earliest head found; the first whose head matches there decides the line. */
export const TEMPLATES: Template[] = [
  // 0.10/1.x and kafka-python name the group last: `(Re-)joining group my-group`.
  simple("joining", /\(Re-\)joining group/, "joining", "(Re-)joining group", (m, message) => {
    const group = /^ (\S+)$/.exec(message.slice(m[0].length))?.[1];
    return group ? { group } : {};
  }),
  simple("request_rejoin", /Request joining group due to: /, "joining", "Request joining group due to: {}", (m, message) => ({
    wording: "Request joining group due to: {}",
    detail: { reason: message.slice(m[0].length) },
  })),
  joined,
  partitionTemplate("revoke", /(?:Revoke|Revoking) previously assigned partitions/, "revoke", "Revoke previously assigned partitions {}"),
  partitionTemplate("assign", /(?:Adding|Setting) newly assigned partitions/, "assign", "Adding newly assigned partitions: {}"),
  partitionTemplate("lost", /Lost previously assigned partitions/, "lost", "Lost previously assigned partitions {}"),
  partitionTemplate("py_assignment", /Updated partition assignment/, "assign", "Updated partition assignment: [{}]"),
  springContainer,
  // 3.7+ with group.protocol=consumer capitalises it (AbstractHeartbeatRequestManager).
  simple(
    "poll_timeout",
    /(?:This member will leave the group because )?[Cc]onsumer poll timeout has expired\./,
    "poll_timeout",
    "consumer poll timeout has expired. …",
  ),
  {
    // 3.7+ with group.protocol=consumer, when poll() is called again after the timeout: the member rejoins.
    name: "poll_timeout_rejoin",
    head: /Time between subsequent calls to poll\(\) was longer than the configured max\.poll\.interval\.ms, exceeded approximately by /,
    wording: "Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded approximately by {} ms. Member {} will rejoin the group now.",
    read(message) {
      const m = /exceeded approximately by (\d+) ms\. Member (\S+) will rejoin the group now\./.exec(message);
      if (!m) return undefined;
      return [{ action: "joining", wording: this.wording, detail: { reason: "poll timeout", exceededMs: Number(m[1]), memberId: m[2] } }];
    },
  },
  {
    // After a poll timeout this repeats it; it is kept as the leave it is, not as a second timeout.
    name: "leave_group",
    head: /Member \S+ sending LeaveGroup request to coordinator /,
    wording: "Member {} sending LeaveGroup request to coordinator {} due to {}",
    read(message) {
      const m = /^Member (\S+) sending LeaveGroup request to coordinator (.*?)(?: due to (.*?))?\.?$/.exec(message);
      if (!m) return undefined;
      return [{ action: "leave_group", wording: this.wording, detail: { memberId: m[1], reason: m[3] } }];
    },
  },
  {
    // 2.5+ CommitFailedException outside an active group, 3.7+ CommitRequestManager's own wordings.
    name: "commit_failed",
    head: /(?:Offset commit failed on partition |Commit cannot be completed since the group has already rebalanced|Offset commit cannot be completed since the consumer is not part of an active group|OffsetCommit failed with (?:unknown member ID|stale member epoch)|(?:Asynchronous |Synchronous )?(?:auto-)?[Cc]ommit of offsets \{.*?\} failed)/,
    wording: "Offset commit failed on partition {} at offset {}: {}",
    read(message) {
      const partition = /^Offset commit failed on partition (\S+) at offset (\d+): (.*)$/.exec(message);
      if (partition) {
        const partitions = parsePartitions(partition[1]!);
        if (typeof partitions === "string") return undefined;
        const reason = partition[3]!;
        return [{ action: "commit_failed", wording: this.wording, partitions, detail: { offset: Number(partition[2]), reason, membershipLost: MEMBERSHIP_LOST.test(reason) } }];
      }
      const partitions = [...message.matchAll(/([A-Za-z0-9._-]+-\d+)=OffsetAndMetadata/g)].flatMap((m) => {
        const parsed = parsePartitions(m[1]!);
        return typeof parsed === "string" ? [] : parsed;
      });
      return [
        {
          action: "commit_failed",
          wording: "Commit cannot be completed since the group has already rebalanced …",
          partitions,
          detail: { reason: message.slice(0, 300), membershipLost: MEMBERSHIP_LOST.test(message) },
        },
      ];
    },
  },
  offsetOutOfRange,
  offsetReset,
  offsetSeek,
  offsetUncommitted,
  simple("lost_generation_reset", /Giving away all assigned partitions as lost since generation/, "lost", "Giving away all assigned partitions as lost since generation has been reset, …"),
  simple("commit_failing", /Failing OffsetCommit request since the consumer is not part of an active group/, "commit_failed", "Failing OffsetCommit request since the consumer is not part of an active group", () => ({
    detail: { membershipLost: true },
  })),
  ...RDKAFKA_TEMPLATES,
  ...PYTHON_TEMPLATES,
  ...KAFKAJS_TEMPLATES,
  ...WORKER_TEMPLATES,
];

const TEMPLATE_SET = new TemplateSet(TEMPLATES);

/**
 * The coordinator's error names and librdkafka's log contexts, in whatever client's rendering: Java's
 * Errors.java names and exception classes, kafka-python/aiokafka's `UnknownMemberIdError`, librdkafka's
 * `|COMMITFAIL|`, `|REJOIN|`, `|ASSIGN|`, `|REVOKE|`, `|UNASSIGN|`, `|CGRPSTATE|` (plain, or re-emitted as JSON
 * with `fac`), kafkajs's and Sarama's messages. Priority matters: a commit refused because the member was fenced is a
 * commit failure (its reason names the fencing); the CommitFailedException's text mentions max.poll.interval.ms.
 */
// The 3.7+/4.x consumer (KIP-848) logs its state machine: `Member m with epoch 3 transitioned from STABLE to FENCED.`
// The protocol's own codes and Errors.java messages travel in every client: 22 ILLEGAL_GENERATION (`The provided
// generation id is not the current generation` before 2.x, `Specified group generation id is not valid`), 25
// UNKNOWN_MEMBER_ID (`The coordinator is not aware of this member`), 82 FENCED_INSTANCE_ID, 110 FENCED_MEMBER_EPOCH,
// 113 STALE_MEMBER_EPOCH (`The member epoch is stale`); a bare code counts only under an error-code key.
const MEMBER_GONE_CODE = /\berror[_ ]?code\b["']?\W{0,3}(?:22|25|82|110|113)\b/i;
const MEMBER_GONE =
  /UnknownMemberId|not aware of this member|dropped out of the consumer group|generation id is not the current generation|another consumer with the same group\.instance\.id|member epoch is stale|group generation id is not valid|transitioned from \w{1,20} to FENCED|\bgot fenced\b|UNKNOWN_MEMBER_ID|unknown member|member[ _]?id (?:was |is )?not (?:recognized|known|valid)|member is not known|IllegalGeneration|ILLEGAL_GENERATION|illegal generation|FENCED_(?:MEMBER_EPOCH|INSTANCE_ID)|FencedInstanceId|FencedMemberEpoch|stale member epoch|member (?:was |has been )?fenced|fenced (?:member|from)|\b(?:has been|was|gets|got|is) fenced\b|fenced group\.instance\.id|member id \S{1,255} is not valid|no longer (?:a )?(?:part|member) of the group|not part of the group anymore|generation(?: id)?(?: \S{1,255})? is not\s{1,3}current|membership out of date/i;
// 27 REBALANCE_IN_PROGRESS (`The group is rebalancing, so a rejoin is needed`; Sarama's `A rebalance for the group is
// in progress`), 79 MEMBER_ID_REQUIRED: the member has to join (again).
const REBALANCING_CODE = /\berror[_ ]?code\b["']?\W{0,3}(?:27|79)\b/i;
const REBALANCING = /REBALANCE_IN_PROGRESS|RebalanceInProgress|rebalance (?:for the group )?(?:is )?in progress|already rebalanced/i;

export const SIGNALS: readonly Signal<ConsumerAction>[] = [
  {
    name: "commit_failed",
    action: "commit_failed",
    anchor:
      /\|COMMITFAIL\||"COMMITFAIL"|CommitFailed|Auto-commit of offsets\b[^\n]{0,4000}\bfailed|\b(?:offset )?commit(?:ting)?\b[^.\n]{0,60}\bfail(?:ed|ure)\b|commit(?:ting)? (?:of )?(?:the )?offsets? (?:failed|threw|cannot|error)|offsets? commit (?:failed|cannot|error|request failed)|commit (?:failed|cannot be completed|error)|fail(?:ed|ure)? (?:to |while )commit|(?:unable|could not) (?:to )?commit|error (?:while |when )?committing|OffsetCommit(?:Request)?.{0,40}(?:fail|error|refused)|commit(?:Sync|Async).{0,60}(?:fail|exception)/i,
    unless: /commit(?:ted)? (?:succeeded|successfully)|Successfully committed|commit succeeded/i,
    wording: "an offset commit failed or was refused (COMMITFAIL, CommitFailedException, Offset commit failed …)",
  },
  {
    name: "membership_lost",
    action: "membership_lost",
    anchor: new RegExp(`${MEMBER_GONE.source}|${MEMBER_GONE_CODE.source}`, "i"),
    // The Java coordinator's `JoinGroup failed: …. Need to re-join the group.` and brod's `re-joining group,
    // reason::unknown_member_id` are the rejoin itself, whatever reason they give; kafkajs logs every protocol error
    // response (`[Connection] Response Heartbeat(…)`) before its runner logs what it does about it.
    unless: /Need to re-join the group|\bre-?joining (?:the )?group, reason\b|\[Connection\] Response /,
    wording: "the member was fenced or is no longer known to the coordinator (UnknownMemberId, ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH …)",
  },
  {
    name: "poll_timeout",
    action: "poll_timeout",
    anchor: /max\.poll\.interval\.ms|poll(?:ing)? (?:interval|timeout) (?:exceeded|expired|elapsed)|time between subsequent calls to poll/i,
    // ConsumerConfig's dump of its values at start-up.
    unless: /max\.poll\.interval\.ms ?= ?\d/,
    wording: "max.poll.interval.ms exceeded",
  },
  {
    name: "lost",
    action: "lost",
    anchor: /partitions? (?:were |have been )?lost|Lost previously assigned partitions|onPartitionsLost|\|LOST\||\bassignment (?:was |has been )?lost\b/i,
    // librdkafka's `current assignment no longer considered lost`: an assign() took it back.
    unless: /no longer considered lost/,
    wording: "partitions lost",
  },
  {
    name: "revoke",
    action: "revoke",
    // A rebalance listener that failed in onPartitionsRevoked still gave the partitions up (without its own commit).
    // Not a join state that closes librdkafka's `(state up, join-state wait-revoke-rebalance_cb)` summary: that is
    // where the handle stands (CGRPTERM at close), not a revocation.
    anchor: /\|REVOKE\||\|UNASSIGN\||\brevok(?:e|ed|ing)\b(?![\w-]*\))|\bRevokedPartitions\b|State transition from \w{1,30} to PARTITIONS_REVOKED|partitions? (?:were |have been )?unassigned|UnassignedPartitions|REVOKE_PARTITIONS|unassign(?:ing|ed)? (?:all )?partitions|\bon_?partitions_?revoked\b/i,
    unless: /\b(?:Pausing|Resuming)\b/,
    wording: "partitions revoked (REVOKE, UNASSIGN, revoked partitions …)",
  },
  {
    name: "assign",
    action: "assign",
    anchor:
      // segmentio/kafka-go's reader logs its assignment as `subscribed to topics and partitions: map[{topic:t
      // partition:0}:-1 …]` (reader.go); sarama-cluster's notification, as its README's `Rebalanced: %+v` prints it,
      // `&{Type:rebalance OK Claimed:map[t:[0 1]] …}`.
      /\|ASSIGN\||State transition from \w{1,30} to PARTITIONS_ASSIGNED|new group session begun|subscribed to topics and partitions|Type:rebalance OK Claimed:|\bAssignedPartitions\b|assigned partitions|partitions? (?:were |have been )?assigned|Added partitions|newly assigned|Partitions assigned|Updated partition assignment|ASSIGN_PARTITIONS|Reconciling assignment|Updating assignment with|assignments? received|Target assignment acked|new current assignment|\bon_?partitions_?assigned\b/i,
    // librdkafka's ASSIGN in join state init is the application's own assign(), not the group's.
    // franz-go begins every session, also one that added nothing (`"added":{}`, as a field `added={}`, `added: , lost:`,
    // `added=map[]`).
    unless: /\b(?:Pausing|Resuming)\b|Setting offset for partition|Seeking to|join state init|Notifying assignor|\badded"?\s?[=:]\s?(?:\{\}|,|map\[\])|Claimed:map\[\]/,
    wording: "partitions assigned (ASSIGN, assigned partitions, Reconciling assignment …)",
  },
  {
    name: "joined",
    action: "joined",
    // franz-go logs a follower's join as the bare message `joined` with its fields after it (member_id, generation),
    // in whatever logger renders them. The fields are read up to the next `joined` only: a window from every one of a
    // line's `joined`s made a line repeating it cost 600 steps a word (tests/unit/collectors/signals.test.ts).
    anchor: /\bjoined (?:the )?(?:consumer )?group|transitioned from \w{1,20} to STABLE|JoinGroup response: GenerationId|\|CGRPSTATE\|.{0,300}-> up\b|\bjoined\b(?:[^j\n]|j(?!oined)){0,600}\bgeneration/i,
    wording: "joined the group",
  },
  {
    name: "joining",
    action: "joining",
    anchor:
      // kafka-go's partition watcher: `Partition changes found, rebalancing group: g.` (`reblancing` before 0.4.x).
      /\|REJOIN\||Partition changes found|transitioned from \w{1,20} to JOINING|State transition from \w{1,30} to REBALANCING|\brejoin|\bre-join|(?:re-?)?joining (?:the )?(?:consumer )?group|Attempt(?:ing)? to join|JoinGroup request|rebalanc(?:e|ing) (?:start|begin|trigger|needed|required)|preparing to rebalance|\|CGRPSTATE\|.{0,300}-> (?:wait-join|join|wait-sync|wait-assign|wait-metadata)|REBALANCE_IN_PROGRESS|RebalanceInProgress|rebalance in progress|because (?:it|the group) is rebalancing|since (?:the )?group is rebalancing|marking this rebalance as failed|(?:failed to |attempt(?:ing)? to )join (?:the )?group|Join group failed|MemberIdRequired|rebalance for the group is in progress|needs to have a valid member id|\berror[_ ]?code\b["']?\W{0,3}(?:27|79)\b/i,
    wording: "the member is (re)joining its group (REJOIN, rejoining, REBALANCE_IN_PROGRESS …)",
  },
  {
    name: "offset_out_of_range",
    action: "offset_out_of_range",
    anchor: /OffsetOutOfRange|OFFSET_OUT_OF_RANGE|offsets? (?:is )?out of range/i,
    wording: "a fetch offset was out of range",
  },
  {
    name: "offset_reset",
    action: "offset_reset",
    anchor: /\brewind(?:ing)?\b|\breset(?:ting)? (?:the )?(?:consumer )?offsets?|offsets? (?:were |was )?(?:reset|rewound)|seek(?:ing)? (?:back|to (?:the )?(?:beginning|earliest|last committed|committed))/i,
    unless: /Resetting the last seen epoch|Setting offset for partition/,
    wording: "offsets reset or rewound",
  },
  {
    name: "leave_group",
    action: "leave_group",
    anchor: /LeaveGroup|\bleav(?:e|ing) (?:the )?(?:consumer )?group|transitioned from \w{1,20} to (?:PREPARE_)?LEAVING/i,
    // The Java client's echo of the LeaveGroup it just logged.
    unless: /Resetting generation/,
    wording: "the member left its group (LeaveGroup)",
  },
];

const COMMIT_WORD = /(?<![A-Za-z])commit(?:s|ted|ting)?\b|OffsetCommit|commit(?:Sync|Async)|Committer/i;

const SIGNAL_SET = new SignalSet<ConsumerAction, Draft>(SIGNALS, (signal, text) => {
  const partitions = partitionsIn(text);
  const generation = generationIn(text);
  const lostMember = MEMBER_GONE.test(text) || MEMBER_GONE_CODE.test(text) || REBALANCING.test(text) || REBALANCING_CODE.test(text) || MEMBERSHIP_LOST.test(text);
  // A coordinator error met by a commit (a stack through commitSync, a committer class) is the commit refused.
  // Not a class that only has Commit in its name (CommitRequestManager logs OffsetFetch failures too).
  const action = signal.action === "membership_lost" && COMMIT_WORD.test(text) ? "commit_failed" : signal.action;
  // Kafka Connect rewinds a sink task to its last committed offsets when a commit fails: everything since is redelivered.
  const rewound = action === "commit_failed" && /\brewind/i.test(text);
  return [
    ...(rewound ? [{ action: "offset_reset" as const, wording: "signal:rewind", ...(partitions.length > 0 ? { partitions } : {}), group: groupIn(text), detail: { signal: "rewind", reason: "rewound to the last committed offsets after a failed commit" } }] : []),
    {
      action,
      wording: `signal:${signal.name}`,
      ...(partitions.length > 0 ? { partitions } : {}),
      group: groupIn(text),
      detail: {
        signal: signal.name,
        memberId: memberIdIn(text),
        generationId: generation,
        clientId: clientIdIn(text),
        exception: exceptionIn(text),
        membershipLost: action === "commit_failed" ? lostMember : undefined,
        // 3.1+ cooperative `Updating assignment with` prints the same block as 3.7+'s `Reconciling assignment`.
        reconciling: signal.name === "assign" && /Reconciling assignment|Updating assignment with/.test(text) ? true : undefined,
      },
    },
  ];
}, (_message, text) => rdkafkaTime(text));


interface Member {
  type: "Consumer" | "Worker";
  clientId: string | null;
  groupId: string | null;
  groupInstanceId?: string;
}

function memberOf(line: DecodedLine): Member | undefined {
  const m = MEMBER_PREFIX.exec(line.prefix);
  if (!m) return undefined;
  return {
    type: m[1] as Member["type"],
    groupInstanceId: m[2],
    clientId: m[3]!,
    // KafkaConsumer prints the literal "null" for a consumer without group.id (manual assignment).
    groupId: m[4] === "null" || m[4] === "" ? null : m[4]!,
  };
}

function kindOf(action: ConsumerAction): EventKind {
  return action === "joining" || action === "joined" || action === "revoke" || action === "assign" || action === "lost" || action === "membership_lost" ? "rebalance" : "instance_lifecycle";
}


function eventsOf(draft: Draft, member: Member | undefined, line: DecodedLine, ctx: ParseContext, inputGroup: string | undefined): NormalizedEvent[] {
  // A Connect worker's group is not a consumer group: its rebalances move connectors and tasks, not partitions.
  const action: ConsumerAction = member?.type === "Worker" ? "worker_rebalance" : draft.action;
  const named = member ? member.groupId : (draft.group ?? line.envelope.fields?.groupId);
  const group = named === undefined ? (inputGroup ?? null) : named;
  const detail = withLineFields(draft, line.envelope);
  const clientId = member?.clientId ?? (typeof detail.clientId === "string" ? detail.clientId : undefined);
  // Default client ids (consumer-<group>-<n>) repeat on every host, so the collector's --instance names the
  // process when it is known; the client id stays in detail.
  const who = ctx.instance ?? line.envelope.host ?? clientId;
  const time = line.time;
  const base = (queue: TopicPartition | undefined): NormalizedEvent => ({
    id: queue === undefined ? recordFingerprint(FORMAT, line.raw) : recordFingerprint(FORMAT, line.raw, `${queue.topic}-${queue.partition}`),
    kind: kindOf(action),
    ts: time.ts,
    tsPrecision: time.precision,
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "kafka",
    topic: queue?.topic ?? null,
    group,
    queue: queue === undefined ? null : `${queue.topic}-${queue.partition}`,
    queueOffset: null,
    instance: who === undefined ? null : canonicalInstance(who).canonical,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: compact({
      action,
      template: draft.wording,
      ...detail,
      clientId,
      groupInstanceId: member?.groupInstanceId,
      groupFrom: named === undefined && inputGroup !== undefined ? "input" : undefined,
      partition: queue?.partition,
      partitions: draft.partitions !== undefined && draft.partitions.length === 0 ? [] : undefined,
      exception: line.envelope.exception ?? detail.exception,
      dateFrom: time.dateFrom,
      timeFrom: time.timeFrom,
    }),
    source: ctx.source,
  });
  const partitions = draft.partitions ?? (kindOf(action) === "rebalance" && line.envelope.fields !== undefined ? partitionsIn(fieldsOnly(line.envelope.fields)) : undefined);
  if (partitions === undefined || partitions.length === 0) return [base(undefined)];
  return partitions.map((p) => base(p));
}

/**
 * What a template did not read from its sentence, read by the extractors from the whole record: a JSON logger's
 * `memberId`/`generationId` fields (kafkajs), a binding's handle name (node-rdkafka's `name`), an id later in the
 * line. The template's own reading wins.
 */
function withLineFields(draft: Draft, envelope: Envelope): NonNullable<Draft["detail"]> {
  const detail = draft.detail ?? {};
  if (detail.memberId !== undefined && detail.generationId !== undefined && detail.clientId !== undefined && detail.exception !== undefined) return detail;
  const whole = withFields(envelope);
  return {
    ...detail,
    memberId: detail.memberId ?? memberIdIn(whole),
    generationId: detail.generationId ?? generationIn(whole),
    clientId: detail.clientId ?? clientIdIn(whole),
    // A wrapper's message quoting the client's exception (`The error is: …CommitFailedException: …`).
    exception: detail.exception ?? exceptionIn(whole),
  };
}

/** A record's fields without its message: partitions a template did not read from the message are not in it. */
const fieldsOnly = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(" | ");

/**
 * An offset line's draft as its event says it: a seek only tells the reset after it why; a reset states where the
 * partition was when the line before said so, and whether it went back.
 */
function resolveOffsets(draft: Draft, member: Member | undefined, line: DecodedLine, ctx: ParseContext, resets: OffsetResets): Draft | undefined {
  if (draft.offsets === undefined) return draft;
  const partition = draft.partitions?.[0];
  const consumer = `${member?.clientId ?? ""}\u0000${ctx.instance ?? line.envelope.host ?? ""}`;
  const tp = partition === undefined ? null : `${partition.topic}-${partition.partition}`;
  const { fromOffset, toOffset, strategy } = draft.offsets;
  if (draft.action === "offset_out_of_range") {
    if (fromOffset !== undefined) resets.outOfRange(consumer, tp, line.time.ts, fromOffset);
    return draft;
  }
  if (tp === null) return draft;
  if (draft.action === "offset_seek") {
    if (strategy !== undefined) resets.seek(consumer, tp, line.time.ts, strategy);
    return undefined;
  }
  if (draft.action === "offset_uncommitted") {
    resets.uncommitted(consumer, tp, line.time.ts);
    return undefined;
  }
  const outcome = resets.reset(consumer, tp, line.time.ts, toOffset, strategy);
  return { ...draft, action: outcome.action, detail: { ...draft.detail, fromOffset: outcome.fromOffset, toOffset, strategy: outcome.strategy, reason: outcome.reason } };
}

/** Worker-only wordings (`Rebalance started`) mean something else outside a Connect worker's prefix. */
function toEvents(drafts: Draft[], line: DecodedLine, ctx: ParseContext, groups: Set<string>, resets: OffsetResets): NormalizedEvent[] {
  const member = memberOf(line);
  if (member?.type === "Consumer" && member.groupId !== null) groups.add(member.groupId);
  // Spring Kafka before 2.3 logs `partitions assigned: […]` without the group: when the input's consumer lines name
  // one group only, it is that one (`detail.groupFrom: "input"`).
  const inputGroup = groups.size === 1 ? [...groups][0] : undefined;
  return drafts
    .filter((d) => !d.worker || member?.type === "Worker")
    .flatMap((draft) => {
      const resolved = resolveOffsets(draft, member, line, ctx, resets);
      return resolved === undefined ? [] : eventsOf(resolved, member, line, ctx, inputGroup);
    });
}

/** Kafka's issues name what is wrong (`timestamp: …`, `partitions: …`) rather than the template. */
function describe(template: string, problem: { time?: string; fields?: string }): string {
  if (problem.time !== undefined) return `timestamp: ${problem.time}`;
  return problem.fields ?? `${template}: the line's fields do not parse`;
}

const BLOCK_LIST = /^(Added|Revoked) partitions \([^)]*\):\s*(.*)$/;
const BLOCK_MEMBER = /^Member:\s+(\S{1,255})$/;

/**
 * The 3.7+/4.x consumer's `Reconciling assignment with local epoch N` block, and the cooperative `Updating assignment
 * with` block of the classic consumer (3.1+): its `Added partitions (assigned - owned): [t-0]` and `Revoked partitions
 * (owned - assigned): [t-1]` lines say which partitions moved, and its `Member:` line names the member. The block's
 * first line is read as an assignment (its signal); these lines give it its partitions and member.
 */
function reconciliationBlock(events: NormalizedEvent[], text: string): NormalizedEvent[] | undefined {
  const head = events[0];
  if (head === undefined || head.detail.reconciling !== true) return undefined;
  const member = BLOCK_MEMBER.exec(text);
  if (member) return events.map((e) => ({ ...e, detail: { ...e.detail, memberId: member[1]! } }));
  const m = BLOCK_LIST.exec(text);
  if (!m) return undefined;
  const partitions = parsePartitions(m[2]!);
  if (typeof partitions === "string") return undefined;
  // Both lists empty (Revoked comes last): the reconciliation moved nothing, and the block states no fact.
  if (partitions.length === 0) return m[1] === "Revoked" && !events.some((e) => e.queue !== null) ? [] : undefined;
  const action = m[1] === "Added" ? "assign" : "revoke";
  const moved = partitions.map((p): NormalizedEvent => ({
    ...head,
    id: recordFingerprint(FORMAT, head.id, action, `${p.topic}-${p.partition}`),
    topic: p.topic,
    queue: `${p.topic}-${p.partition}`,
    detail: { ...head.detail, action, template: "signal:reconciliation", partition: p.partition },
  }));
  // The block's first line stands for the whole until a list names partitions; then the partitions do.
  const kept = events.filter((e) => e.queue !== null);
  return [...kept, ...moved];
}

export function openKafkaClientLog(ctx: ParseContext): LineParser {
  const options = inputOptions(ctx, DEFAULT_OFFSET);
  const groups = new Set<string>();
  const resets = new OffsetResets();
  const read = (line: string, lineNo: number, signalsOnly = false) =>
    readTemplateLine(
      line,
      lineNo,
      signalsOnly ? SIGNAL_SET : TEMPLATE_SET,
      options,
      (drafts, decoded) => toEvents(drafts, decoded, ctx, groups, resets),
      describe,
      signalsOnly ? undefined : SIGNAL_SET,
    );
  return javaRecords(
    (line, lineNo) => read(line, lineNo),
    (line, lineNo, first) => withFirstLine(read(line, lineNo, true), first),
    reconciliationBlock,
  );
}

/**
 * A record whose first line said nothing and whose continuation states the fact: the first line still says whose it
 * is (brod's `Group member (g,coor=…,generation=18):` then `failed to join group`).
 */
function withFirstLine(result: LineResult, first: string): LineResult {
  if (result.events.length === 0) return result;
  const group = groupIn(first);
  const generation = generationIn(first);
  const events = result.events.map((e) => ({
    ...e,
    group: e.group ?? group ?? null,
    detail: compact({ ...e.detail, generationId: e.detail.generationId ?? generation, memberId: e.detail.memberId ?? memberIdIn(first), clientId: e.detail.clientId ?? clientIdIn(first) }),
  }));
  return { ...result, events };
}

/** One line read as a whole input. */
export function parseKafkaClientLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  return parseAlone(openKafkaClientLog(ctx), line, lineNo);
}

/** Never throws for any input text; throws for a ParseContext.utcOffset that is not an offset (configuration). */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openKafkaClientLog(ctx));
}
