import { openBrokerLog, TEMPLATES as BROKER_TEMPLATES } from "./rocketmq-broker-log/parse.ts";
import { openClientLog, TEMPLATES as CLIENT_TEMPLATES } from "./rocketmq-client-log/parse.ts";
import { parseDedupLine } from "./dedup-log/parse.ts";
import { parseEventLine } from "./normalized-ndjson/parse.ts";
import { openKafkaClientLog, TEMPLATES as KAFKA_TEMPLATES } from "./kafka-client-log/parse.ts";
import { parseFirehoseLine } from "./rabbitmq-firehose/parse.ts";
import { openServerLog, WORDINGS as RABBITMQ_WORDINGS } from "./rabbitmq-server-log/parse.ts";
import { openClientLog as openRabbitmqClientLog, TEMPLATES as RABBITMQ_CLIENT_SIGNALS } from "./rabbitmq-client-log/parse.ts";
import { openOtlpTraces } from "./otlp-traces/parse.ts";
import { parseTraceMessage } from "./rocketmq-trace/parse.ts";
import { lineByLine, type LineParser, type LineResult, type ParseContext } from "./types.ts";
import { withUserPatterns } from "./codecs/user-patterns.ts";
import { ROCKETMQ_UTC_OFFSET } from "./rocketmq-client-log/parse.ts";
import type { Fact } from "../lib/events/facts.ts";
import type { FormatName } from "../lib/events/formats.ts";

/** Every input format dupscope reads. The CLI, the HTTP ingest route and the contract test all go through here. */
export interface CollectorFormat {
  /** A name lib/events/formats.ts lists, with the kind of source it is to diagnosis. */
  name: FormatName;
  /**
   * The facts (lib/events/facts.ts) this format's events may state; "any" for normalized events, which carry what
   * their writer gave them. tests/contract/facts.test.ts holds each format to its list.
   */
  facts: readonly Fact[] | "any";
  description: string;
  /** Folder with README.md and testdata/ (checked by tests/contract/collectors.test.ts). */
  folder: string;
  /** A parser for one input (a file, a request body): records may span lines, so it keeps state until `end()`. */
  open(ctx: ParseContext): LineParser;
  /** The message templates of a log format, by name and in words: what `dupscope explain` compares a line with. */
  templates?: readonly TemplateWording[];
}

export interface TemplateWording {
  name: string;
  wording: string;
}

/** For formats whose every record is one line. */
function stateless(parseLine: (line: string, lineNo: number, ctx: ParseContext) => LineResult): (ctx: ParseContext) => LineParser {
  return (ctx) => lineByLine((line, lineNo) => parseLine(line, lineNo, ctx));
}

export const FORMATS: readonly CollectorFormat[] = [
  {
    name: "rocketmq-trace",
    facts: [],
    description: "RocketMQ trace messages as NDJSON {bornHost, body, storeTimestamp?, msgId?} (Pub/SubBefore/SubAfter/EndTransaction/Recall)",
    folder: "collectors/rocketmq-trace",
    open: stateless(parseTraceMessage),
  },
  {
    name: "rocketmq-client-log",
    facts: ["rebalance/add", "rebalance/dropped", "rebalance/dropped_without_result", "rebalance/remove", "rebalance/result", "rebalance/trigger", "instance_lifecycle/add_failed", "instance_lifecycle/channel_closed", "instance_lifecycle/consume_exception", "instance_lifecycle/exists", "instance_lifecycle/offset_reset", "instance_lifecycle/offset_skipped", "instance_lifecycle/producer_resend", "instance_lifecycle/receipt_handle_invalid", "instance_lifecycle/shutdown", "instance_lifecycle/start", "instance_lifecycle/starting", "instance_lifecycle/unregister_client"],
    description: "rocketmq_client.log (4.x and 5.x patterns): rebalances, dropped process queues, consume timeouts and exceptions, producer resends",
    folder: "collectors/rocketmq-client-log",
    open: withUserPatterns("rocketmq-client-log", ROCKETMQ_UTC_OFFSET, openClientLog),
    templates: CLIENT_TEMPLATES,
  },
  {
    name: "rocketmq-broker-log",
    facts: ["rebalance/add", "rebalance/remove", "rebalance/trigger", "instance_lifecycle/channel_closed", "instance_lifecycle/channel_expired", "instance_lifecycle/channel_inactive", "instance_lifecycle/connected", "instance_lifecycle/group_removed", "instance_lifecycle/offset_reset", "instance_lifecycle/unregistered", "instance_lifecycle/producer_connected", "instance_lifecycle/producer_disconnected", "instance_lifecycle/producer_group_removed"],
    description: "broker.log consumer-group lines and transaction.log check-backs (second precision, GMT+8)",
    folder: "collectors/rocketmq-broker-log",
    open: withUserPatterns("rocketmq-broker-log", ROCKETMQ_UTC_OFFSET, openBrokerLog),
    templates: BROKER_TEMPLATES,
  },
  {
    name: "dedup-log",
    facts: [],
    description: "the consumer's own dedup decisions, dedup log v1 (JSON lines, docs/dedup-log.md)",
    folder: "collectors/dedup-log",
    open: stateless(parseDedupLine),
  },
  {
    name: "kafka-client-log",
    facts: ["rebalance/joining", "rebalance/joined", "rebalance/revoke", "rebalance/assign", "rebalance/lost", "rebalance/membership_lost", "instance_lifecycle/commit_failed", "instance_lifecycle/leave_group", "instance_lifecycle/poll_timeout", "instance_lifecycle/offset_out_of_range", "instance_lifecycle/offset_reset", "instance_lifecycle/offset_skipped", "instance_lifecycle/worker_rebalance"],
    description: "Kafka Java consumer logs: group joins, revoked/assigned/lost partitions, poll timeouts",
    folder: "collectors/kafka-client-log",
    open: withUserPatterns("kafka-client-log", "Z", openKafkaClientLog),
    templates: KAFKA_TEMPLATES,
  },
  {
    name: "rabbitmq-firehose",
    facts: ["instance_lifecycle/channel_opened", "instance_lifecycle/channel_closed", "instance_lifecycle/connection_opened", "instance_lifecycle/connection_closed", "rebalance/consumer_created", "rebalance/consumer_deleted", "rebalance/queue_deleted"],
    description: "RabbitMQ firehose (amq.rabbitmq.trace) and event exchange messages as NDJSON records, as `dupscope rabbitmq collect --record` writes them",
    folder: "collectors/rabbitmq-firehose",
    open: stateless(parseFirehoseLine),
  },
  {
    name: "rabbitmq-server-log",
    facts: ["instance_lifecycle/ack_timeout", "instance_lifecycle/channel_closed", "instance_lifecycle/connection_closed", "instance_lifecycle/connection_lost", "instance_lifecycle/heartbeat_missed"],
    description: "RabbitMQ server log (3.9+ text format): connections closed unexpectedly, missed heartbeats, consumer ack timeouts (3.12, 3.13-4.2, 4.3), channel errors",
    folder: "collectors/rabbitmq-server-log",
    open: withUserPatterns("rabbitmq-server-log", "Z", openServerLog),
    templates: RABBITMQ_WORDINGS,
  },
  {
    name: "rabbitmq-client-log",
    facts: ["instance_lifecycle/ack_timeout", "instance_lifecycle/channel_closed", "instance_lifecycle/connection_closed", "instance_lifecycle/connection_lost", "instance_lifecycle/heartbeat_missed"],
    description:
      "a RabbitMQ consumer's or publisher's own log (Celery/kombu, pika, amqplib, lapin, Java/Spring AMQP, .NET, php-amqplib, Go): the broker's closes as the client renders them; the process is the instance",
    folder: "collectors/rabbitmq-client-log",
    open: withUserPatterns("rabbitmq-client-log", "Z", openRabbitmqClientLog),
    templates: RABBITMQ_CLIENT_SIGNALS,
  },
  {
    name: "otlp-traces",
    facts: ["instance_lifecycle/channel_closed"],
    description: "OpenTelemetry messaging spans, one OTLP/JSON ExportTraceServiceRequest per line (the Collector's file exporter); live: POST /v1/traces",
    folder: "collectors/otlp-traces",
    open: (ctx) => openOtlpTraces(ctx),
  },
  {
    name: "events",
    facts: "any",
    description: "normalized events as NDJSON (docs/event-model.md)",
    folder: "collectors/normalized-ndjson",
    open: stateless(parseEventLine),
  },
];

export function findFormat(name: string): CollectorFormat | undefined {
  return FORMATS.find((f) => f.name === name);
}

export function formatNames(): string {
  return FORMATS.map((f) => f.name).join(", ");
}
