/**
 * The input formats by name, with the kind of source each is to diagnosis. collectors/registry.ts gives each a
 * parser and can only name formats listed here (FormatName); diagnosis reads an event's kind from the format its id or
 * source starts with. One list for both, in the layer both may import: a format added to the registry without a
 * kind, or a kind for a format the registry lacks, fails to compile or tests/contract/facts.test.ts.
 */

export const SOURCE_KINDS = ["trace", "client_log", "broker_log", "dedup_log", "kafka_log", "firehose", "otel", "other"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const FORMAT_KINDS = {
  "rocketmq-trace": "trace",
  "rocketmq-client-log": "client_log",
  "rocketmq-broker-log": "broker_log",
  "dedup-log": "dedup_log",
  "kafka-client-log": "kafka_log",
  "rabbitmq-firehose": "firehose",
  "rabbitmq-server-log": "broker_log",
  // A consumer's own log: the instance's lines, as a RocketMQ client log is.
  "rabbitmq-client-log": "client_log",
  "otlp-traces": "otel",
  // Normalized events are whatever their writer made them: the detail markers decide (lib/diagnosis/sources.ts).
  events: null,
} as const satisfies Record<string, SourceKind | null>;

export type FormatName = keyof typeof FORMAT_KINDS;
