import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "../../collectors/dedup-log/parse.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import {
  createDedupLog,
  DEDUP_DECISIONS,
  DedupLogUsageError,
  type Broker,
  type DedupDecision,
  type DedupLayer,
  type DedupLog,
  type Delivery,
  type RedisMarkerClient,
} from "../../packages/dedup/src/index.ts";

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

/** A row of the table "One delivery, in order" of docs/dedup-log.md: what may follow `after` (null: the first line). */
export interface OrderRow {
  after: DedupDecision | null;
  allowed: Record<DedupDecision, boolean>;
}

/**
 * The table "One delivery, in order", read from docs/dedup-log.md itself: the one table both emitters are tested
 * against, so that the page, the Node.js emitter and the Java emitter cannot drift apart.
 */
export function orderTable(): OrderRow[] {
  const doc = readFileSync(path.join(import.meta.dirname, "..", "..", "docs", "dedup-log.md"), "utf8");
  const lines = doc.split("\n");
  const header = lines.findIndex((l) => l.startsWith("| after ↓ · next → |"));
  assert.ok(header >= 0, "docs/dedup-log.md has no table headed | after ↓ · next → |");
  const cells = (line: string) => line.split("|").slice(1, -1).map((c) => c.trim());
  const decision = (cell: string) => {
    const name = /^`(\w+)`$/.exec(cell)?.[1];
    assert.ok(name !== undefined && (DEDUP_DECISIONS as readonly string[]).includes(name), `not a decision: ${cell}`);
    return name as DedupDecision;
  };
  const next = cells(lines[header]!).slice(1).map(decision);
  const rows: OrderRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const [first, ...answers] = cells(line);
    assert.equal(answers.length, next.length, `a row of ${next.length} answers: ${line}`);
    const allowed = Object.fromEntries(
      answers.map((a, i) => {
        assert.ok(a === "yes" || a === "no", `yes or no: ${line}`);
        return [next[i]!, a === "yes"];
      }),
    ) as Record<DedupDecision, boolean>;
    rows.push({ after: first === "(first line)" ? null : decision(first!), allowed });
  }
  return rows;
}

/** Decisions that bring a delivery to `after`, each allowed by the table: `released` comes after `failed`. */
function stepsTo(after: DedupDecision | null): DedupDecision[] {
  if (after === null) return [];
  return after === "released" ? ["failed", "released"] : [after];
}

/**
 * A script (the language of emitters/java/test/dupscope/dedup/DedupLogScript.java) that puts one delivery per next
 * decision into the row's state and then asks for that decision, all in one millisecond; and what each of its
 * decision lines must give: a line, or a refusal.
 */
export function orderRowScript(row: OrderRow): { script: string; expected: ("line" | "refused")[] } {
  const script = ["log GID_points_award rocketmq 10.8.3.17@23817", "clock 1796011201206"];
  const expected: ("line" | "refused")[] = [];
  for (const next of DEDUP_DECISIONS) {
    const name = `${row.after ?? "first"}-${next}`;
    script.push(`delivery ${name} ORD-${name} M-${name}`);
    for (const step of stepsTo(row.after)) {
      script.push(`${name} redis ${step} points:ORD-${name}`);
      expected.push("line");
    }
    script.push(`${name} redis ${next} points:ORD-${name}`);
    expected.push(row.allowed[next] ? "line" : "refused");
  }
  return { script: script.join("\n") + "\n", expected };
}

/** What a script's output says of each decision line. */
export function outcomes(output: string): ("line" | "refused")[] {
  return output
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      if (l.startsWith("refused ")) return "refused";
      JSON.parse(l); // a whole dedup line, or the test fails here
      return "line";
    });
}

/** Runs a DedupLogScript script through the Node.js emitter: the same output the Java program prints. */
export function runDedupScript(script: string): string {
  let now = 0;
  let log: DedupLog | undefined;
  const deliveries = new Map<string, Delivery>();
  const out: string[] = [];
  for (const line of script.split("\n")) {
    if (line === "") continue;
    const w = line.split(" ");
    if (w[0] === "log") {
      log = createDedupLog({ group: w[1]!, broker: w[2] as Broker, instance: w[3]!, clock: () => now, write: (l) => out.push(l) });
    } else if (w[0] === "clock") {
      now = Number(w[1]);
    } else if (w[0] === "delivery") {
      deliveries.set(w[1]!, log!.delivery({ bizKey: w[2]!, ...(w[3] !== undefined ? { msgId: w[3] } : {}) }));
    } else {
      try {
        deliveries.get(w[0]!)!.log({ layer: w[1] as DedupLayer, decision: w[2] as DedupDecision, ...(w[3] !== undefined ? { dedupKey: w[3] } : {}) });
      } catch (error) {
        if (!(error instanceof DedupLogUsageError)) throw error;
        out.push(`refused ${error.message}`);
      }
    }
  }
  return out.map((l) => `${l}\n`).join("");
}
