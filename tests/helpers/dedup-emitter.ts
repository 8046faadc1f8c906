import assert from "node:assert/strict";
import { parse } from "../../collectors/dedup-log/parse.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import type { RedisMarkerClient } from "../../lib/dedup-emitter/index.ts";

/** A clock the test moves by hand, starting at 2026-11-30T04:00:01.204Z. */
export function manualClock(start = 1796011201204) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** SET NX PX and DEL over a Map, with expiry by the given clock: the two commands the Redis layer uses. */
export function fakeRedis(now: () => number): RedisMarkerClient & { keys: Map<string, { value: string; expiresAt: number }>; calls: string[] } {
  const keys = new Map<string, { value: string; expiresAt: number }>();
  const calls: string[] = [];
  const live = (key: string) => {
    const entry = keys.get(key);
    if (entry !== undefined && entry.expiresAt <= now()) keys.delete(key);
    return keys.get(key);
  };
  return {
    keys,
    calls,
    async set(key, value, px, ttlMs, nx) {
      calls.push(`SET ${key} ${value} ${px} ${ttlMs} ${nx}`);
      if (live(key) !== undefined) return null;
      keys.set(key, { value, expiresAt: now() + ttlMs });
      return "OK";
    },
    async del(key) {
      calls.push(`DEL ${key}`);
      const existed = live(key) !== undefined;
      keys.delete(key);
      return existed ? 1 : 0;
    },
  };
}

/** The lines through the dupscope collector: asserts it reports no issue, returns the events. */
export function collected(lines: readonly string[]): NormalizedEvent[] {
  const result = parse(lines.map((l) => `${l}\n`).join(""), { source: "dedup-log:emitter-test" });
  assert.deepEqual(result.issues, [], `the collector rejected emitter output:\n${lines.join("\n")}`);
  assert.equal(result.events.length, lines.length);
  return result.events;
}

/** `instance layer decision` per event, the way docs/dedup-log.md draws a story. */
export function story(events: readonly NormalizedEvent[]): string[] {
  return events.map((e) => `${e.instance} ${String(e.detail.layer)} ${String(e.detail.decision)}`);
}
