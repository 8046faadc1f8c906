import type { ChannelModel } from "amqplib";
import type { Socket } from "node:net";

/**
 * The name the broker gives this connection, `<client ip>:<port> -> <server ip>:<port>`, built from the socket's
 * two ends the way RabbitMQ prints addresses (IPv4-mapped IPv6 as plain IPv4, IPv6 in brackets). The collector
 * recognises its own connection and channel events by it.
 */
function address(ip: string | undefined): string {
  const plain = (ip ?? "").replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");
  return plain.includes(":") ? `[${plain}]` : plain;
}

export function localConnectionName(model: ChannelModel): string | null {
  // amqplib keeps the socket on the connection without declaring it in its types.
  const socket = (model.connection as unknown as { stream?: Socket }).stream;
  if (socket?.localPort === undefined || socket.remotePort === undefined) return null;
  return `${address(socket.localAddress)}:${socket.localPort} -> ${address(socket.remoteAddress)}:${socket.remotePort}`;
}
