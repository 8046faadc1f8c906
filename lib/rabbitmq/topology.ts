import type { Channel } from "amqplib";
import { FatalSessionError } from "./reconnect.ts";

/**
 * The collector's queues in one vhost, declared on every (re)connect: after a broker restart a transient binding
 * or a deleted queue would otherwise silently end collection.
 *
 *   <queue>           durable; bound to the firehose and the event exchange; at most maxLength messages, the
 *                     oldest dropped first (x-overflow drop-head) and dead-lettered to <queue>.dropped
 *   <queue>.dropped   where the dropped messages go only to be counted (and dropped in turn beyond 10 000)
 */

const TRACE_EXCHANGE = "amq.rabbitmq.trace";
const EVENT_EXCHANGE = "amq.rabbitmq.event";
const TRACE_BINDINGS = ["publish.#", "deliver.#"] as const;
const EVENT_BINDINGS = ["consumer.*", "channel.*", "connection.*", "queue.deleted"] as const;

export interface Topology {
  queue: string;
  dropQueue: string;
}

/** What reconnecting cannot fix: the collector stops and says which command would. */
export class TopologyError extends FatalSessionError {}

export function dropQueueOf(queue: string): string {
  return `${queue}.dropped`;
}

export async function declareTopology(channel: Channel, vhost: string, queue: string, maxLength: number): Promise<Topology> {
  const dropQueue = dropQueueOf(queue);
  try {
    await channel.assertQueue(dropQueue, { durable: true, arguments: { "x-max-length": 10_000, "x-overflow": "drop-head" } });
    await channel.assertQueue(queue, {
      durable: true,
      arguments: { "x-max-length": maxLength, "x-overflow": "drop-head", "x-dead-letter-exchange": "", "x-dead-letter-routing-key": dropQueue },
    });
  } catch (error) {
    if (/PRECONDITION_FAILED/.test(String((error as Error).message))) {
      throw new TopologyError(`${(error as Error).message}: the queue exists with other arguments; delete it (rabbitmqctl delete_queue -p ${vhost} ${queue}) or collect into another --queue`);
    }
    throw error;
  }
  for (const key of TRACE_BINDINGS) await channel.bindQueue(queue, TRACE_EXCHANGE, key);
  try {
    for (const key of EVENT_BINDINGS) await channel.bindQueue(queue, EVENT_EXCHANGE, key);
  } catch (error) {
    if (/NOT_FOUND/.test(String((error as Error).message))) {
      throw new TopologyError(`${EVENT_EXCHANGE} does not exist: enable the plugin with rabbitmq-plugins enable rabbitmq_event_exchange`);
    }
    throw error;
  }
  return { queue, dropQueue };
}
