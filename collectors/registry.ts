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

/** Every input format dupscope reads. The CLI, the HTTP ingest route and the contract test all go through here. */
export interface CollectorFormat {
  name: string;
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
    description: "RocketMQ trace messages as NDJSON {bornHost, body, storeTimestamp?, msgId?} (Pub/SubBefore/SubAfter/EndTransaction/Recall)",
    folder: "collectors/rocketmq-trace",
    open: stateless(parseTraceMessage),
  },
  {
    name: "rocketmq-client-log",
    description: "rocketmq_client.log (4.x and 5.x patterns): rebalances, dropped process queues, consume timeouts and exceptions, producer resends",
    folder: "collectors/rocketmq-client-log",
    open: openClientLog,
    templates: CLIENT_TEMPLATES,
  },
  {
    name: "rocketmq-broker-log",
    description: "broker.log consumer-group lines and transaction.log check-backs (second precision, GMT+8)",
    folder: "collectors/rocketmq-broker-log",
    open: openBrokerLog,
    templates: BROKER_TEMPLATES,
  },
  {
    name: "dedup-log",
    description: "the consumer's own dedup decisions, dedup log v1 (JSON lines, docs/dedup-log.md)",
    folder: "collectors/dedup-log",
    open: stateless(parseDedupLine),
  },
  {
    name: "kafka-client-log",
    description: "Kafka Java consumer logs: group joins, revoked/assigned/lost partitions, poll timeouts",
    folder: "collectors/kafka-client-log",
    open: openKafkaClientLog,
    templates: KAFKA_TEMPLATES,
  },
  {
    name: "rabbitmq-firehose",
    description: "RabbitMQ firehose (amq.rabbitmq.trace) and event exchange messages as NDJSON records, as `dupscope rabbitmq collect --record` writes them",
    folder: "collectors/rabbitmq-firehose",
    open: stateless(parseFirehoseLine),
  },
  {
    name: "rabbitmq-server-log",
    description: "RabbitMQ server log (3.9+ text format): connections closed unexpectedly, missed heartbeats, consumer ack timeouts (3.12, 3.13-4.2, 4.3), channel errors",
    folder: "collectors/rabbitmq-server-log",
    open: openServerLog,
    templates: RABBITMQ_WORDINGS,
  },
  {
    name: "rabbitmq-client-log",
    description:
      "a RabbitMQ consumer's or publisher's own log (Celery/kombu, pika, amqplib, lapin, Java/Spring AMQP, .NET, php-amqplib, Go): the broker's closes as the client renders them; the process is the instance",
    folder: "collectors/rabbitmq-client-log",
    open: openRabbitmqClientLog,
    templates: RABBITMQ_CLIENT_SIGNALS,
  },
  {
    name: "otlp-traces",
    description: "OpenTelemetry messaging spans, one OTLP/JSON ExportTraceServiceRequest per line (the Collector's file exporter); live: POST /v1/traces",
    folder: "collectors/otlp-traces",
    open: (ctx) => openOtlpTraces(ctx),
  },
  {
    name: "events",
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
