import { hostname, networkInterfaces } from "node:os";

/**
 * `instance` names the consumer process so that dupscope can match the dedup log with what the broker and the
 * client logs say about the same process (docs/dedup-log.md, `instance`).
 */

/** `ip@pid`: the first non-internal IPv4 address of this host (the hostname when there is none) and the pid. */
export function defaultInstance(): string {
  const ipv4 = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;
  return `${ipv4 ?? hostname()}@${process.pid}`;
}

/** The parts of an amqplib channel this reads: its number, and its connection's socket. */
export interface AmqpChannelLike {
  ch?: unknown;
  connection?: unknown;
}

interface SocketLike {
  localAddress?: string;
  localPort?: number;
  remoteAddress?: string;
  remotePort?: number;
}

function address(ip: string | undefined): string {
  const plain = (ip ?? "").replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");
  return plain.includes(":") ? `[${plain}]` : plain;
}

/**
 * The name RabbitMQ (and so dupscope's RabbitMQ collector) gives a consumer channel:
 * `<client ip>:<port> -> <server ip>:<port>@<channel number>`, e.g. `10.8.3.17:47946 -> 10.8.0.2:5672@1`.
 * With it as `instance`, the dedup lines of a delivery join the broker's record of that delivery and of the
 * channel closing. Reads amqplib internals (`channel.ch`, `channel.connection.stream`), which amqplib does not
 * declare in its types; returns undefined when they are not there (then use defaultInstance()). Call it after the
 * channel is open: the name belongs to that connection and channel.
 */
export function rabbitmqInstance(channel: AmqpChannelLike): string | undefined {
  const ch = channel.ch;
  const connection = channel.connection as { stream?: SocketLike } | undefined;
  const socket = connection?.stream;
  if (typeof ch !== "number" || socket?.localPort === undefined || socket.remotePort === undefined) return undefined;
  return `${address(socket.localAddress)}:${socket.localPort} -> ${address(socket.remoteAddress)}:${socket.remotePort}@${ch}`;
}
