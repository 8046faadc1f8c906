import type { NormalizedEvent } from "../events/model.ts";
import { canonicalInstance } from "../events/instance.ts";

/**
 * RabbitMQ names a consumer by its connection and channel, `127.0.0.1:34170 -> 127.0.0.1:5672@1`
 * (docs/event-model.md), which says little at a glance and is mostly the broker's own address. Clients usually name
 * their connection too (`connection_name`, reported by the event exchange and the server log as
 * `clientProvidedName`), so a lane can read "invoice-worker-a · 127.0.0.1:34170 · channel 1": who, from where, on
 * which channel.
 */

export interface ChannelName {
  /** The name the client gave its connection, when one of the key's events reported it. */
  client: string | null;
  /** The client's end of the connection (`127.0.0.1:34170`), or the whole name when it is not an address pair. */
  peer: string;
  /** Null for a connection-level identity. */
  channel: number | null;
}

/** Connection (the identity's host part) → the name its client gave it, from whichever event reported it. */
export function clientNames(events: readonly NormalizedEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const e of events) {
    const name = e.detail.clientProvidedName;
    if (e.broker === "rabbitmq" && e.instance !== null && typeof name === "string" && name.trim() !== "") names.set(canonicalInstance(e.instance).host, name.trim());
  }
  return names;
}

/** `<client end> -> <broker end>`, as RabbitMQ names a network connection. */
const ADDRESS_PAIR = /^(\S+) -> \S+$/;

export function channelName(instance: string, names: ReadonlyMap<string, string>): ChannelName {
  const { host, process } = canonicalInstance(instance);
  // The collector writes the `@` of a pid-named connection as %40 only to keep it apart from the channel.
  const connection = host.replaceAll("%40", "@");
  return {
    client: names.get(host) ?? null,
    peer: ADDRESS_PAIR.exec(connection)?.[1] ?? connection,
    channel: process !== undefined && /^\d+$/.test(process) ? Number(process) : null,
  };
}

/** A mark's note about this process: `invoice-worker-a (1)`, RabbitMQ's own notation for a connection's channel. */
export function shortName(name: ChannelName): string {
  return `${name.client ?? name.peer}${name.channel === null ? "" : ` (${name.channel})`}`;
}

/**
 * A connection the broker opened itself, named by its Erlang pid rather than by addresses: a shovel or federation
 * link moving messages inside the broker, not an application.
 */
export function insideBroker(instance: string): boolean {
  return instance.startsWith("<");
}

/**
 * The names a reader knows RabbitMQ channels by, for every channel of these events whose connection the client
 * named: `127.0.0.1:34170 -> 127.0.0.1:5672@1` → `invoice-worker-a (1)`. Channels without a name keep their
 * identity, which then is all there is to go by.
 */
export function readableChannels(events: readonly NormalizedEvent[]): Map<string, string> {
  const names = clientNames(events);
  const readable = new Map<string, string>();
  for (const e of events) {
    if (e.broker !== "rabbitmq" || e.instance === null || readable.has(e.instance)) continue;
    const name = channelName(e.instance, names);
    if (name.client !== null) readable.set(e.instance, shortName(name));
  }
  return readable;
}
