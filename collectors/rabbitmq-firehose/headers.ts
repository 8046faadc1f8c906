import type { DetailValue } from "../../lib/events/model.ts";
import { amqpTimestampMs, integer, strings, table, text, type Table } from "./record.ts";

/**
 * The headers the broker itself writes into a message on its way round, which tell a redelivery from a replay
 * (formats.md §4):
 *
 *   x-delivery-count   quorum queues: how many earlier deliveries were returned (→ retryTimes)
 *   x-acquired-count   4.3 quorum queues: how many times a consumer acquired it
 *   x-death            dead-lettering: per (queue, reason) the count, exchange, routing keys and time
 *   x-shovelled        a shovel moved it: the shovel's name, type and source/destination
 */

export interface MessageMarks {
  retryTimes: number | null;
  detail: { [key: string]: DetailValue };
}

function deaths(value: unknown): DetailValue[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry) => {
    const t = table(entry);
    return {
      queue: text(t.queue),
      reason: text(t.reason),
      count: integer(t.count),
      exchange: typeof t.exchange === "string" ? t.exchange : null,
      routingKeys: strings(t["routing-keys"]),
      time: amqpTimestampMs(t.time),
    };
  });
}

function shovels(value: unknown): DetailValue[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry) => {
    const t = table(entry);
    return {
      name: text(t["shovel-name"]),
      type: text(t["shovel-type"]),
      vhost: text(t["shovel-vhost"]),
      by: text(t["shovelled-by"]),
      srcQueue: text(t["src-queue"]),
      srcExchange: text(t["src-exchange"]),
      destQueue: text(t["dest-queue"]),
      destExchange: text(t["dest-exchange"]),
    };
  });
}

export function messageMarks(headers: Table): MessageMarks {
  const detail: { [key: string]: DetailValue } = {};
  const deliveryCount = integer(headers["x-delivery-count"]);
  if (deliveryCount !== null) detail.deliveryCount = deliveryCount;
  const acquiredCount = integer(headers["x-acquired-count"]);
  if (acquiredCount !== null) detail.acquiredCount = acquiredCount;
  const xDeath = deaths(headers["x-death"]);
  if (xDeath.length > 0) detail.xDeath = xDeath;
  const firstDeathQueue = text(headers["x-first-death-queue"]);
  if (firstDeathQueue !== null) detail.firstDeathQueue = firstDeathQueue;
  const firstDeathReason = text(headers["x-first-death-reason"]);
  if (firstDeathReason !== null) detail.firstDeathReason = firstDeathReason;
  const xShovelled = shovels(headers["x-shovelled"]);
  if (xShovelled.length > 0) detail.xShovelled = xShovelled;
  return { retryTimes: deliveryCount !== null && deliveryCount >= 0 ? deliveryCount : null, detail };
}
