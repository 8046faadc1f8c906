/**
 * A RabbitMQ consumer is a channel of a connection, and the broker names a connection by its client and server
 * ends: `127.0.0.1:47946 -> 127.0.0.1:5672` (firehose `connection` header, event exchange `name`, server log).
 * The canonical instance is `<connection>@<channel number>`, which lib/events/instance.ts reads as host
 * `<connection>` and process `<channel>`: a connection-level event (connection.closed, a server-log close) then
 * matches every channel of that connection, while two channels, or two connections, stay apart.
 *
 * Connections made inside the broker (shovels, federation) are named by the Erlang pid of the connection,
 * `<rabbit@node.1796019944.1440.0>`; its `@` is written `%40` so it does not read as a host@process separator.
 */

export function connectionIdentity(name: string): string {
  return name.trim().replaceAll("@", "%40");
}

export function channelIdentity(connection: string, channel: number): string {
  return `${connectionIdentity(connection)}@${channel}`;
}

const CHANNEL_NAME = /^(.*\S) \((\d+)\)$/;

/** `127.0.0.1:47946 -> 127.0.0.1:5672 (1)`, the channel name `channel.created` announces, into its parts. */
export function parseChannelName(name: string): { connection: string; channel: number } | null {
  const m = CHANNEL_NAME.exec(name.trim());
  return m && Number.isSafeInteger(Number(m[2])) ? { connection: m[1]!.trim(), channel: Number(m[2]) } : null;
}
