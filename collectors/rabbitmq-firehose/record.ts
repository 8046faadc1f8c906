import { z } from "zod";

/**
 * One message received from `amq.rabbitmq.trace` (the firehose) or `amq.rabbitmq.event` (the event exchange
 * plugin), as one NDJSON line. The live collector (lib/rabbitmq/) writes exactly these lines, parses them with the
 * same parser as `dupscope ingest --format rabbitmq-firehose`, and can record them to a file, so a recording
 * replays into the same events.
 *
 *   {"receivedAt":1796024085578,"deliveryTag":17,"vhost":"/","exchange":"amq.rabbitmq.trace",
 *    "routingKey":"deliver.orders","headers":{…},"properties":{},"body":"{\"orderId\":…}","bodyEncoding":"utf8"}
 */
export const firehoseRecordSchema = z.object({
  /** Epoch ms when the collector received it: the firehose itself carries no time. */
  receivedAt: z.number().int().positive(),
  /**
   * The collector's delivery tag. Two byte-identical trace messages (a producer resending on the same channel)
   * received in the same millisecond stay two records through it.
   */
  deliveryTag: z.number().int().nonnegative().optional(),
  /** The collector's own queue redelivered it (the collector reconnected before acknowledging it). */
  redelivered: z.boolean().optional(),
  vhost: z.string().optional(),
  /**
   * The key source the collector was configured with (config.ts: `json:$.orderId`…), so that a recording parses
   * into the same business keys as the live collection did. Without it the parser's own setting applies.
   */
  key: z.string().optional(),
  exchange: z.string().optional(),
  routingKey: z.string().min(1),
  /** The message's headers table: the trace headers (`exchange_name`, `properties`, …) or the event's keys. */
  headers: z.record(z.string(), z.unknown()).default({}),
  /** The other AMQP properties of the received message (the event exchange sets `timestamp` in seconds). */
  properties: z.record(z.string(), z.unknown()).optional(),
  body: z.string().default(""),
  bodyEncoding: z.enum(["utf8", "base64"]).default("utf8"),
  /**
   * Consumer and channel.closed events name their channel only by Erlang pid; the collector adds the name
   * `channel.created` announced for that pid (`127.0.0.1:47946 -> 127.0.0.1:5672 (1)`) when it saw it.
   */
  channelName: z.string().optional(),
});

export type FirehoseRecord = z.output<typeof firehoseRecordSchema>;

export function bodyBytes(record: FirehoseRecord): Buffer {
  return Buffer.from(record.body, record.bodyEncoding === "base64" ? "base64" : "utf8");
}

export type Table = Record<string, unknown>;

export function table(value: unknown): Table {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Table) : {};
}

export function text(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

export function integer(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return null;
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * amqplib decodes AMQP timestamps as `{"!":"timestamp","value":<seconds>}`; a plain number is taken as seconds
 * too, since that is the unit AMQP 0-9-1 uses.
 */
export function amqpTimestampMs(value: unknown): number | null {
  const seconds = integer(table(value)["!"] === "timestamp" ? table(value).value : value);
  return seconds === null ? null : seconds * 1000;
}
