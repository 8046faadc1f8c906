import { text, type FirehoseRecord } from "../../collectors/rabbitmq-firehose/record.ts";

/**
 * Consumer events and `channel.closed` name their channel only by Erlang pid; `channel.created` gave that pid a
 * name (`127.0.0.1:47946 -> 127.0.0.1:5672 (1)`). The directory remembers the names of channels opened while
 * the collector ran and writes them into the records that need them. Channels opened before it started stay
 * unnamed: their consumer and close events keep only the pid (their connection's close still names them).
 */
export class ChannelDirectory {
  private readonly names = new Map<string, string>();
  private readonly byConnection = new Map<string, Set<string>>();

  constructor(private readonly maxChannels = 100_000) {}

  /** Learns from the record and returns it, with `channelName` where the headers give only a pid. */
  annotate(record: FirehoseRecord): FirehoseRecord {
    const h = record.headers;
    switch (record.routingKey) {
      case "channel.created": {
        const pid = text(h.pid);
        const name = text(h.name);
        if (pid !== null && name !== null) this.remember(pid, name, text(h.connection));
        return record;
      }
      case "channel.closed": {
        const pid = text(h.pid);
        const name = pid === null ? undefined : this.names.get(pid);
        if (pid !== null) this.names.delete(pid);
        return name === undefined ? record : { ...record, channelName: name };
      }
      case "consumer.created":
      case "consumer.deleted": {
        const pid = text(h.channel);
        const name = pid === null ? undefined : this.names.get(pid);
        return name === undefined ? record : { ...record, channelName: name };
      }
      case "connection.closed": {
        // Its channels die with it; not every client closes them first.
        const pid = text(h.pid);
        for (const channel of (pid === null ? undefined : this.byConnection.get(pid)) ?? []) this.names.delete(channel);
        if (pid !== null) this.byConnection.delete(pid);
        return record;
      }
      default:
        return record;
    }
  }

  get size(): number {
    return this.names.size;
  }

  private remember(pid: string, name: string, connectionPid: string | null): void {
    this.names.set(pid, name);
    if (connectionPid !== null) {
      const channels = this.byConnection.get(connectionPid) ?? new Set<string>();
      channels.add(pid);
      this.byConnection.set(connectionPid, channels);
    }
    // Close events missed while disconnected would leave names behind for good; the oldest go first.
    while (this.names.size > this.maxChannels) this.names.delete(this.names.keys().next().value!);
    while (this.byConnection.size > this.maxChannels) this.byConnection.delete(this.byConnection.keys().next().value!);
  }
}
