import { monthStartGmt8 } from "./clock.ts";
import type { Rng } from "./random.ts";

/** Identifiers as RocketMQ builds them, so ids in every output look and decode like real ones. */

function hex(value: number, digits: number): string {
  return Math.floor(value).toString(16).toUpperCase().padStart(digits, "0").slice(-digits);
}

export function ipHex(ip: string): string {
  return ip
    .split(".")
    .map((octet) => hex(Number(octet), 2))
    .join("");
}

/** MessageDecoder.createMessageId: store host IP, port and commit-log offset (the offsetMsgId). */
export function offsetMsgId(ip: string, port: number, commitLogOffset: number): string {
  return `${ipHex(ip)}${hex(port, 8)}${hex(Math.floor(commitLogOffset / 2 ** 32), 8)}${hex(commitLogOffset % 2 ** 32, 8)}`;
}

/**
 * MessageClientIDSetter: IP, low 16 bits of the pid and a class-loader hash, then ms since the start of the month
 * and a 16-bit counter. The UNIQ_KEY of a message (its msgId to applications), also used for trace request ids.
 */
export class UniqIds {
  private readonly prefix: string;
  private counter: number;

  constructor(ip: string, pid: number, rng: Rng) {
    this.prefix = `${ipHex(ip)}${hex(pid & 0xffff, 4)}${rng.hex(8)}`;
    this.counter = rng.int(0, 0xffff);
  }

  next(localTs: number): string {
    this.counter = (this.counter + 1) & 0xffff;
    return `${this.prefix}${hex(localTs - monthStartGmt8(localTs), 8)}${hex(this.counter, 4)}`;
  }
}

/** `ip@pid#nanotime`: the instanceName a 4.9+/5.x client derives when none is set. */
export function clientIdOf(ip: string, pid: number, nanotime: number): string {
  return `${ip}@${pid}#${nanotime}`;
}
