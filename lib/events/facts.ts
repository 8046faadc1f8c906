import type { NormalizedEvent } from "./model.ts";

/**
 * The one contract between collectors and diagnosis: every fact a collector may state about a consumer group or an
 * instance, as the event's kind and `detail.action`. Collectors declare which of these they emit (their `facts` in
 * collectors/registry.ts); diagnosis declares what it makes of each (lib/diagnosis/sources.ts, READS). A fact that
 * a collector emits and diagnosis does not read, or one diagnosis reads and no collector emits, fails
 * tests/contract/facts.test.ts; a word that is not listed here fails to compile on either side.
 */
export const FACTS = {
  rebalance: [
    "joining", // Kafka: the member is (re)joining its group
    "joined", // Kafka: joined with a generation
    "revoke", // Kafka: partitions given up
    "assign", // Kafka: partitions taken
    "lost", // Kafka: partitions lost without a revoke
    "membership_lost", // Kafka: the member was fenced or is unknown to the coordinator, outside a commit
    "add", // RocketMQ: a queue added to this instance
    "remove", // RocketMQ: a queue removed from this instance
    "result", // RocketMQ: the instance's whole new queue set
    "trigger", // RocketMQ: a rebalance was triggered
    "dropped", // RocketMQ: a process queue found dropped
    "dropped_without_result", // RocketMQ: a queue dropped with no rebalance result to say where it went
    "consumer_created", // RabbitMQ event exchange: a consumer subscribed to the queue
    "consumer_deleted", // RabbitMQ event exchange: a consumer went away
    "queue_deleted", // RabbitMQ event exchange: the queue was deleted
  ],
  instance_lifecycle: [
    "commit_failed", // Kafka: an offset commit refused
    "leave_group", // Kafka: the member left (LeaveGroup)
    "poll_timeout", // Kafka: max.poll.interval.ms exceeded
    "offset_out_of_range", // Kafka: the fetch offset was out of range
    "offset_reset", // offsets reset or rewound (Kafka, RocketMQ client and broker)
    "offset_skipped", // Kafka: an offset reset that went forward
    "worker_rebalance", // Kafka Connect: a worker-group rebalance
    "channel_closed", // a channel closed (RocketMQ remoting, AMQP)
    "channel_expired", // RocketMQ broker: a client channel expired
    "channel_inactive", // RocketMQ broker: a client channel went inactive
    "channel_opened", // RabbitMQ: a channel opened
    "connected", // RocketMQ broker: a consumer connected
    "connection_opened", // RabbitMQ: a connection opened
    "connection_closed", // RabbitMQ: a connection closed, cleanly or forced
    "connection_lost", // RabbitMQ: a TCP connection lost
    "heartbeat_missed", // RabbitMQ: heartbeats missed
    "ack_timeout", // RabbitMQ: a delivery not acknowledged within consumer_timeout
    "group_removed", // RocketMQ broker: a consumer group removed
    "unregistered", // RocketMQ broker: a client unregistered
    "producer_connected", // RocketMQ broker: a producer registered with its producer group
    "producer_disconnected", // RocketMQ broker: a producer left its producer group (unregistered, inactive or expired)
    "producer_group_removed", // RocketMQ broker: a producer group's last channel left
    "unregister_client", // RocketMQ client: the client unregistered itself
    "start", // RocketMQ client: a client started
    "starting", // RocketMQ client: a consumer starting, with its message model
    "shutdown", // RocketMQ client: a client shut down
    "receipt_handle_invalid", // RocketMQ 5: an ack refused for an expired receipt handle
    "consume_exception", // RocketMQ client: a consume failure whose message the line does not name
    "add_failed", // RocketMQ: a rebalance failed to take a queue (lock or offset unavailable): no change of ownership
    "exists", // RocketMQ: a rebalance found a queue already held: no change of ownership
    "producer_resend", // RocketMQ client: a send retried whose message the line does not name
  ],
} as const;

type FactKind = keyof typeof FACTS;
export type Fact = { [K in FactKind]: `${K}/${(typeof FACTS)[K][number]}` }[FactKind];

/**
 * A set of facts that answers for an event without building its `kind/action` string: diagnosis asks it of every
 * context line of every pair.
 */
export class FactSet {
  private readonly byKind = new Map<string, ReadonlySet<string>>();

  constructor(readonly facts: readonly Fact[]) {
    for (const fact of facts) {
      const slash = fact.indexOf("/");
      const kind = fact.slice(0, slash);
      this.byKind.set(kind, new Set([...(this.byKind.get(kind) ?? []), fact.slice(slash + 1)]));
    }
  }

  has(fact: string): boolean {
    const slash = fact.indexOf("/");
    return this.byKind.get(fact.slice(0, slash))?.has(fact.slice(slash + 1)) ?? false;
  }

  /** Whether `e` states one of the facts. */
  states(e: Pick<NormalizedEvent, "kind" | "detail">): boolean {
    const action = e.detail.action;
    return typeof action === "string" && (this.byKind.get(e.kind)?.has(action) ?? false);
  }
}

/** Whether `e` states one of `facts`. */
export function states(e: Pick<NormalizedEvent, "kind" | "detail">, facts: FactSet): boolean {
  return facts.states(e);
}
