import { MAX_TS, MIN_TS } from "../../lib/events/model.ts";
import { logTimeLength, parseLogTime } from "./log-time.ts";

/**
 * The line prefixes RocketMQ's own log files use, decoded into timestamp, level, thread, logger and message:
 *
 *   client 5.x (logback)   `%d{yyy-MM-dd HH:mm:ss.SSS,GMT+8} %-5p [%pid] [%t] [%logger{12}#%M:%L] - %m%n`
 *                          2026-11-30 20:00:01.204 INFO  [31337] [RebalanceService] [o.a.r.c.i.c.RebalanceImpl#updateProcessQueueTableInRebalance:399] - …
 *   client 4.x (InnerLogger) `yyyy-MM-dd HH:mm:ss,SSS LEVEL RocketmqClient - msg`
 *                          2026-11-30 20:00:01,204 INFO RocketmqClient - …
 *   broker (logback)       `%d{yyy-MM-dd HH:mm:ss,GMT+8} %p %t - %m%n`
 *                          2026-11-30 20:00:01 INFO NettyServerCodecThread_3 - …
 *
 * The 4.x and broker layouts have the same shape (`time level name - msg`); only the precision tells them apart, so
 * a plain line with milliseconds is read as 4.x (name = logger) and one without as broker.log (name = thread).
 */

/**
 * The 5.x and broker patterns print GMT+8 whatever the host's zone; 4.x prints host-local time, which for most
 * RocketMQ deployments is also +08:00. Callers override it through ParseContext.utcOffset.
 */
export const ROCKETMQ_UTC_OFFSET = "+08:00";

export type LogLayout = "client-5x" | "client-4x" | "broker";

export interface LogPrefix {
  layout: LogLayout;
  ts: number;
  precision: "ms" | "s";
  level: string;
  thread: string | null;
  logger: string | null;
  /** The process id the 5.x pattern prints (`[%pid]`). */
  pid: number | null;
  message: string;
}

/** ok: false means the line has a RocketMQ prefix whose timestamp is impossible (or the UTC offset is unusable). */
export type PrefixDecoding = { ok: true; prefix: LogPrefix } | { ok: false; message: string; reason: string };

const LEVEL = "(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)";
const AFTER_TIME_5X = new RegExp(`^ ${LEVEL} *\\[(\\d+)\\] \\[(.*?)\\] \\[([^\\]#\\s]*)#[^\\]\\s]*\\] - ?(.*)$`);
const AFTER_TIME_PLAIN = new RegExp(`^ ${LEVEL} (.+?) - ?(.*)$`);

interface Shape {
  layout: LogLayout;
  level: string;
  thread: string | null;
  logger: string | null;
  pid: number | null;
  message: string;
}

function readShape(rest: string, hasFraction: boolean): Shape | undefined {
  const five = AFTER_TIME_5X.exec(rest);
  if (five) {
    return { layout: "client-5x", level: five[1]!, pid: Number(five[2]), thread: five[3]!, logger: five[4]!, message: five[5]! };
  }
  const plain = AFTER_TIME_PLAIN.exec(rest);
  if (!plain) return undefined;
  const name = plain[2]!;
  return hasFraction
    ? { layout: "client-4x", level: plain[1]!, pid: null, thread: null, logger: name, message: plain[3]! }
    : { layout: "broker", level: plain[1]!, pid: null, thread: name, logger: null, message: plain[3]! };
}

function readTime(stamp: string, utcOffset: string): { ts: number; precision: "ms" | "s" } | string {
  let time;
  try {
    time = parseLogTime(stamp, utcOffset);
  } catch (error) {
    return (error as Error).message;
  }
  if (!time) return `impossible timestamp "${stamp}"`;
  if (time.ts < MIN_TS || time.ts >= MAX_TS) return `timestamp "${stamp}" is outside 2000-01-01..2100-01-01`;
  return time;
}

/** Decodes the prefix of one log line; undefined when the line has none (stack-trace frames, continuation lines). */
export function decodeLogPrefix(line: string, utcOffset: string): PrefixDecoding | undefined {
  const stampLength = logTimeLength(line);
  if (stampLength === 0) return undefined;
  const stamp = line.slice(0, stampLength);
  const shape = readShape(line.slice(stampLength), /[.,]\d+$/.test(stamp));
  if (!shape) return undefined;
  const time = readTime(stamp, utcOffset);
  if (typeof time === "string") return { ok: false, message: shape.message, reason: time };
  return { ok: true, prefix: { ...shape, ts: time.ts, precision: time.precision } };
}
