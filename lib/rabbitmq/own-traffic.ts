import { text, type FirehoseRecord } from "../../collectors/rabbitmq-firehose/record.ts";

/**
 * The collector is a RabbitMQ client too: its connection, channel and consumer show up on the event exchange,
 * every event it receives is traced as `deliver.<its queue>`, and its tracing probe as a publish. None of that is
 * the application's, so it is dropped before parsing. Connection names of earlier sessions are kept a while: the
 * broker may report the old connection's close after the collector reconnected.
 */
export class OwnTraffic {
  private readonly connections: string[] = [];

  constructor(private readonly queues: ReadonlySet<string>) {}

  addConnection(name: string): void {
    this.connections.unshift(name);
    this.connections.length = Math.min(this.connections.length, 16);
  }

  isOwn(record: FirehoseRecord): boolean {
    const h = record.headers;
    const mine = (name: string | null) => name !== null && this.connections.includes(name);
    const myChannel = (name: string | null | undefined) => typeof name === "string" && this.connections.some((c) => name.startsWith(`${c} (`));
    const key = record.routingKey;
    if (key.startsWith("deliver.")) return this.queues.has(key.slice("deliver.".length)) || mine(text(h.connection));
    if (key.startsWith("publish.")) return mine(text(h.connection));
    switch (key) {
      case "connection.created":
      case "connection.closed":
        return mine(text(h.name));
      case "channel.created":
        return myChannel(text(h.name));
      case "channel.closed":
        return myChannel(record.channelName);
      case "consumer.created":
      case "consumer.deleted":
        return this.queues.has(text(h.queue) ?? "");
      case "queue.deleted":
        return this.queues.has(text(h.name) ?? "");
      default:
        return false;
    }
  }
}
