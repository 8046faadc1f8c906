import { canonicalInstance } from "../../lib/events/instance.ts";
import { compact } from "../codecs/detail.ts";
import type { DetailValue, NormalizedEvent } from "../../lib/events/model.ts";
import { channelIn, connectionIn, consumerTagIn, exceptionIn, heartbeatTimeoutSIn, queueNameIn, replyTextIn, timeoutMsIn, vhostIn } from "../codecs/extract.ts";
import { inputOptions, javaRecords, readTemplateLine, type DecodedLine } from "../codecs/log-record.ts";
import { SignalSet, type Signal } from "../codecs/signals.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseLines, type LineParser, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * A RabbitMQ consumer's or publisher's own log: Celery/kombu/py-amqp, pika, aio-pika/aiormq, amqplib,
 * rabbitmq-client, lapin, the Java client and Spring AMQP, the .NET client and MassTransit, php-amqplib, Go's
 * amqp091. There the signal is the broker's close as the client library renders it — `(406) PRECONDITION_FAILED -
 * delivery acknowledgement on channel 1 timed out`, `#method<channel.close>(reply-code=406, …)`, `Channel closed by
 * server: 406 (PRECONDITION-FAILED) with message "…"`, `ConnectionClosed: (320, "CONNECTION_FORCED - …")` — and the
 * process that wrote the log is the instance (`--instance`). Each close requeues the channel's unacknowledged
 * deliveries, so it is ownership evidence for the diagnosis whatever library printed it.
 */

export const FORMAT = "rabbitmq-client-log";

export type ClientAction = "ack_timeout" | "heartbeat_missed" | "connection_closed" | "channel_closed" | "connection_lost";

/**
 * In priority order: an ack timeout is also a 406 channel close, a missed heartbeat is also a forced close
 * (py-amqp's `ConnectionForced(…, 'Too many heartbeats missed')`), and a connection close names its channel 0.
 */
export const SIGNALS: readonly Signal<ClientAction>[] = [
  {
    name: "ack_timeout",
    action: "ack_timeout",
    anchor: /delivery acknowledge?ment (?:on channel \d{1,5} )?timed out|consumer ack(?:nowledgement)? timed out|timed out waiting (?:for|on) (?:a )?(?:consumer|delivery) acknowledgement/i,
    wording: "the broker closed the channel: a delivery was not acknowledged within consumer_timeout (406 PRECONDITION_FAILED)",
  },
  {
    name: "heartbeat_missed",
    action: "heartbeat_missed",
    // pika's stale-connection check names the beats it missed `meartbeats` in older releases; the .NET and Java
    // clients say `Heartbeat missing with heartbeat == 60 seconds` (MissedHeartbeatException in Java).
    anchor:
      // aiormq: `Server connection … was stuck. No frames were received in 183 seconds.` (its heartbeat check).
      /heartbeats? (?:were |was )?missed|No frames were received in|AMQP_STATUS_HEARTBEAT_TIMEOUT|missed (?:server |client )?heartbeats?|HeartbeatMissed|MissedHeartbeat|Heartbeat missing|HeartbeatTimeout|No activity or too many missed|(?:did not|didn't) respond to heartbeats|heartbeat time(?:d )?out|missed_heartbeats|no heartbeat/i,
    wording: "heartbeats were missed: the connection is declared dead",
  },
  {
    name: "connection_closed",
    action: "connection_closed",
    anchor:
      // amqplib prints any connection.close as `Connection closed: 541 (INTERNAL-ERROR) with message "…"`; the .NET
      // client a broker's hard error as `initiated by Peer, code=5xx`; lapin `Connection closed on channel 0 by
      // 60:40 => Hard(UNEXPECTEDFRAME) => …`. The other hard errors (5xx: a frame, syntax, command, channel-number,
      // resource, access or implementation fault) close the connection too, by name in whatever rendering
      // (py-amqp's `Basic.consume: (540) NOT_IMPLEMENTED - …`, Bunny's `Recovering from connection.close (CHANNEL_ERROR - …)`).
      // The method's name, not a program's `connection.close()` in a traceback.
      /CONNECTION[_-]FORCED|\b(?:FRAME|SYNTAX|CHANNEL|RESOURCE|INTERNAL)_ERROR\b|\b(?:COMMAND_INVALID|UNEXPECTED_FRAME|NOT_ALLOWED|NOT_IMPLEMENTED)\b|Connection closed on channel \d{1,5} by|=> Hard\(\w{1,40}\)|ConnectionForced|\bconnection\.close\b(?![(.\w-])|reply-code=320|code=320\b|\(320[,)]|\b320 \(|Connection closed: \d{3} \(|initiated by Peer, code=5\d\d\b|ConnectionClosedByBroker|clean connection shutdown|broker forced connection closure|connection (?:was )?closed by (?:the )?(?:remote )?(?:server|broker)/i,
    wording: "the broker or an operator closed the connection (CONNECTION_FORCED, connection.close)",
  },
  {
    name: "channel_closed",
    action: "channel_closed",
    anchor:
      /PRECONDITION[_-]FAILED|unknown delivery tag|NOT[_-]FOUND - |RESOURCE[_-]LOCKED|ACCESS[_-]REFUSED|channel\.close>|reply-code=40\d|\(40[3-6][,)]|\b40[3-6] \((?:PRECONDITION|NOT|RESOURCE|ACCESS)|channel error|ChannelClosedByBroker|Channel closed by server|AMQPProtocolChannelException|AMQPChannelClosedException|channel (?:is |was )?(?:already )?closed|Restarting Consumer/i,
    wording: "the broker closed the channel (406 PRECONDITION_FAILED, unknown delivery tag, channel.close): its unacked deliveries are requeued",
  },
  {
    name: "connection_lost",
    action: "connection_lost",
    anchor:
      // The Java client's ShutdownSignalException says `connection error` without a protocol method when the socket,
      // not the broker, ended the connection (`channel error`/`connection.close` name the broker's close); pika's
      // `Read empty data` and py-amqp's RecoverableConnectionError (`Socket was disconnected`) a read that found the
      // socket gone; librabbitmq's `a socket error occurred` (php-amqp's `Library error: …`); Bunny's reader loop
      // ending (`Exception in the reader loop: IOError: closed stream`); librabbitmq's status names
      // (`AMQP_STATUS_CONNECTION_CLOSED`, `…_SOCKET_ERROR`, `…_SOCKET_CLOSED`); NestJS's and amqp-connection-manager
      // users' `Disconnected from RMQ. Trying to reconnect`. Not oslo.messaging's `AMQP server on … is
      // unreachable`: it says so for a connection never made (ECONNREFUSED) as well as for one lost.
      /connection reset|\bconnection error\b|Read empty data|RecoverableConnectionError|Socket (?:was )?disconnected|a socket error occurred|Exception in the reader loop|AMQP_STATUS_(?:CONNECTION_CLOSED|SOCKET_ERROR|SOCKET_CLOSED)|\bDisconnected from (?:the )?(?:RabbitMQ|RMQ|AMQP)\b|ConnectionReset|ECONNRESET|StreamLost|initiated by Library|stream connection lost|connection (?:to (?:the )?broker )?(?:was )?lost|lost (?:the )?connection|socket (?:connection )?(?:was |is )?closed|This socket is closed|unexpected connection driver error|MalformedFrame|unexpectedly closed|\bEOF\b|broken pipe|EPIPE|AMQPConnectionError|connection (?:was )?(?:closed|dropped) unexpectedly|\bUnexpected close\b|ConnectionClosed/i,
    wording: "the connection to the broker was lost (reset, EOF, socket closed): the broker requeues its unacked deliveries",
  },
];

type Draft = { action: ClientAction; signal: string; detail: { [key: string]: DetailValue | undefined } };

const SIGNAL_SET = new SignalSet<ClientAction, Draft>(SIGNALS, (signal, text) => [
  {
    action: signal.action,
    signal: signal.name,
    detail: {
      channel: signal.action === "connection_closed" || signal.action === "connection_lost" ? undefined : channelIn(text),
      timeoutMs: timeoutMsIn(text),
      heartbeatTimeoutS: signal.action === "heartbeat_missed" ? heartbeatTimeoutSIn(text) : undefined,
      connection: connectionIn(text),
      vhost: vhostIn(text),
      consumerTag: consumerTagIn(text),
      reason: replyTextIn(text),
      exception: exceptionIn(text),
    },
  },
]);


function toEvents(drafts: Draft[], line: DecodedLine, ctx: ParseContext): NormalizedEvent[] {
  const who = ctx.instance ?? line.envelope.host;
  return drafts.map((draft) => ({
    id: recordFingerprint(FORMAT, line.raw),
    kind: "instance_lifecycle",
    ts: line.time.ts,
    tsPrecision: line.time.precision,
    bizKey: null,
    msgId: null,
    offsetMsgId: null,
    broker: "rabbitmq",
    topic: null,
    // The RabbitMQ collectors call the queue the group.
    group: queueNameIn(line.envelope.text) ?? null,
    queue: null,
    queueOffset: null,
    instance: who === undefined ? null : canonicalInstance(who).canonical,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail: compact({
      action: draft.action,
      template: `signal:${draft.signal}`,
      signal: draft.signal,
      ...draft.detail,
      exception: draft.detail.exception ?? line.envelope.exception,
      level: line.level ?? undefined,
      dateFrom: line.time.dateFrom,
      timeFrom: line.time.timeFrom,
    }),
    source: ctx.source,
  }));
}

/** Client logs print the host's local time without a zone; containers run in UTC. */
const DEFAULT_OFFSET = "Z";

/** An Erlang process id or a report header: a line the RabbitMQ node wrote (rabbitmq-server-log), not a client. */
const NODE_LINE = /<\d{1,6}\.\d{1,9}\.\d{1,9}>|=\w+ REPORT====/;

export function openClientLog(ctx: ParseContext): LineParser {
  const options = inputOptions(ctx, DEFAULT_OFFSET);
  const read = (line: string, lineNo: number): LineResult =>
    NODE_LINE.test(line) ? { events: [], skipped: true } : readTemplateLine(line, lineNo, SIGNAL_SET, options, (drafts, decoded) => toEvents(drafts, decoded, ctx));
  return javaRecords(read, (line, lineNo, first) => withFirstLine(read(line, lineNo), first));
}

/**
 * A close stated by an exception under a first line that said nothing: the first line still names whose it was
 * (Spring AMQP's `Received shutdown signal for consumer tag=amq.ctag-…` above the ShutdownSignalException).
 */
function withFirstLine(result: LineResult, first: string): LineResult {
  if (result.events.length === 0) return result;
  const events = result.events.map((e) => ({
    ...e,
    group: e.group ?? queueNameIn(first) ?? null,
    detail: compact({ ...e.detail, consumerTag: e.detail.consumerTag ?? consumerTagIn(first), connection: e.detail.connection ?? connectionIn(first), vhost: e.detail.vhost ?? vhostIn(first) }),
  }));
  return { ...result, events };
}

/** The signals in words, for `dupscope explain`. */
export const TEMPLATES = SIGNAL_SET.templates.map((t) => ({ name: t.name, wording: t.wording }));

/** Never throws for any input text. */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, openClientLog(ctx));
}
