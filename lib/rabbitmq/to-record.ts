import type { ConsumeMessage } from "amqplib";
import { createHash } from "node:crypto";
import type { FirehoseRecord } from "../../collectors/rabbitmq-firehose/record.ts";

/**
 * A received amqplib message as the NDJSON record the firehose parser reads (collectors/rabbitmq-firehose/
 * record.ts). Header values become plain JSON: amqplib hands byte arrays over as Buffers.
 */

function jsonSafe(value: unknown, depth = 0): unknown {
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === null || typeof value !== "object" || depth > 16) return value;
  if (Array.isArray(value)) return value.map((v) => jsonSafe(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = jsonSafe(v, depth + 1);
  return out;
}

/** UTF-8 text stays readable in a recording; anything else travels as base64. */
function encodeBody(content: Buffer): Pick<FirehoseRecord, "body" | "bodyEncoding"> {
  const text = content.toString("utf8");
  return Buffer.from(text, "utf8").equals(content) ? { body: text, bodyEncoding: "utf8" } : { body: content.toString("base64"), bodyEncoding: "base64" };
}

export function toRecord(message: ConsumeMessage, vhost: string, key: string, receivedAt: number): FirehoseRecord {
  const { headers, ...properties } = message.properties;
  const defined = Object.fromEntries(Object.entries(properties).filter(([, v]) => v !== undefined));
  return {
    receivedAt,
    deliveryTag: message.fields.deliveryTag,
    ...(message.fields.redelivered ? { redelivered: true } : {}),
    vhost,
    key,
    exchange: message.fields.exchange,
    routingKey: message.fields.routingKey,
    headers: (jsonSafe(headers ?? {}) as Record<string, unknown>) ?? {},
    properties: jsonSafe(defined) as Record<string, unknown>,
    ...encodeBody(message.content),
  };
}

/**
 * What the broker sent, without what the collector added (receipt time, delivery tag): two receipts of one trace
 * message have the same digest.
 */
export function contentDigest(message: ConsumeMessage): string {
  const hash = createHash("sha256");
  hash.update(message.fields.routingKey);
  hash.update("\u0000");
  hash.update(JSON.stringify(jsonSafe(message.properties.headers ?? {})));
  hash.update("\u0000");
  hash.update(message.content);
  return hash.digest("hex").slice(0, 32);
}
