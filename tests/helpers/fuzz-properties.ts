import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { FORMATS } from "../../collectors/registry.ts";

/**
 * Properties of the real ingest endpoints under hostile input, run by tests/integration/fuzz.test.ts (bounded, in
 * CI) and scripts/fuzz.ts (`npm run fuzz -- --minutes 10`) against a built server on each store:
 *
 * - POST /api/v1/events, a batch mixing valid events with arbitrary lines, bytes, JSON values and events carrying
 *   what the database cannot hold: the answer is 200 (or 413/415); every valid line is stored, exactly once (the
 *   same batch again stores nothing); every other line is reported by its number; the server stays healthy.
 * - POST /api/v1/ingest/{format} with mutated real lines of each collector's fixtures: 200 (or 413); rejections
 *   name lines of the body; posting it again stores nothing; the server stays healthy.
 */

/**
 * Runs `property` in rounds of `runsPerRound` until `seconds` have passed, and returns how many cases ran. Rounds
 * rather than fast-check's interruptAfterTimeLimit: that interrupts the case in flight when time is up, and an
 * interrupted async case reads as a failure (then "shrinks" down to any value).
 */
export async function assertFor<T>(property: fc.IAsyncProperty<T>, seconds: number, runsPerRound = 25): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let cases = 0;
  do {
    await fc.assert(property, { numRuns: runsPerRound });
    cases += runsPerRound;
  } while (Date.now() < until);
  return cases;
}

export interface Target {
  url: string;
  token: string;
}

const T0 = Date.UTC(2026, 10, 30, 12);
let serial = 0;

/**
 * A valid event. Its id is filled in when the property runs (ID below), not when the value is generated: fast-check
 * runs a value again while shrinking, and a replay must not find its event stored by the earlier run.
 */
const ID = "__FUZZ_ID__";
let executions = 0;
const validEvent = fc.record({ offset: fc.nat({ max: 86_400_000 }), retry: fc.nat({ max: 16 }), key: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== "" && !/[\u0000\ud800-\udfff]/.test(s)) }).map(({ offset, retry, key }) => {
  const n = serial++;
  return JSON.stringify({ id: ID, kind: "consume_start", ts: T0 + offset, broker: "rocketmq", bizKey: `FUZZ-${key.trim()}-${n}`, msgId: `FM-${n}`, retryTimes: retry, source: "fuzz" });
});

const deep = fc.integer({ min: 33, max: 20_000 }).map((depth) => `{"kind":"consume_start","ts":${T0},"broker":"rocketmq","bizKey":"D","source":"fuzz","detail":{"x":${"[".repeat(depth)}1${"]".repeat(depth)}}}`);
const hostileText = fc.constantFrom("\\u0000", "\\ud800", "\\udc00", "a\\u0000b", "\\ud83d");
/** An event that is valid but for one value the database cannot hold. */
const unstorable = fc.tuple(validEvent, hostileText, fc.constantFrom("bizKey", "detail")).map(([line, bad, where]) => {
  const event = JSON.parse(line) as Record<string, unknown>;
  const text = JSON.stringify(where === "bizKey" ? { ...event, bizKey: "X" } : { ...event, detail: { v: "X" } });
  return text.replace('"X"', `"${bad}"`);
});
/** Anything else a broken exporter might send on one line. */
const junk = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? "null"),
  deep,
  unstorable,
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
).map((s) => s.replace(/[\r\n]/g, " "));

type Line = { valid: boolean; text: string };
const batch = fc.array(fc.oneof(validEvent.map((text): Line => ({ valid: true, text })), junk.map((text): Line => ({ valid: false, text }))), { minLength: 1, maxLength: 40 });

async function post(target: Target, pathname: string, body: Buffer, type: string): Promise<{ status: number; body: { accepted?: number; duplicates?: number; rejected?: { line: number }[] } }> {
  const response = await fetch(`${target.url}${pathname}`, { method: "POST", body: new Uint8Array(body), headers: { "content-type": type, authorization: `Bearer ${target.token}` } });
  const text = await response.text();
  return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : {} };
}

async function healthy(target: Target): Promise<void> {
  const health = await fetch(`${target.url}/api/health`);
  assert.equal(health.status, 200, "the server stays healthy");
}

/** A line as bytes: text with characters past U+00FF as UTF-8, other junk as raw bytes, so invalid UTF-8 reaches the server. */
function bytesOf(line: Line): Buffer {
  return Buffer.from(line.text, /[^\x00-\xff]/.test(line.text) ? "utf8" : "latin1");
}

function encode(lines: Line[]): Buffer {
  return Buffer.concat(lines.flatMap((l, i) => (i < lines.length - 1 ? [bytesOf(l), Buffer.from("\n")] : [bytesOf(l)])));
}

/** What the server reads a line as: its bytes decoded as UTF-8, bad sequences replaced. */
const asServerReads = (line: Line) => new TextDecoder("utf-8").decode(bytesOf(line));

export function eventsProperty(target: Target) {
  return fc.asyncProperty(batch, async (generated) => {
    const run = `fuzz-${process.pid}-${Date.now()}-${executions++}`;
    const lines = generated.map((l, i) => ({ ...l, text: l.text.replace(ID, `${run}-${i}`) }));
    const body = encode(lines);
    const first = await post(target, "/api/v1/events", body, "application/x-ndjson");
    assert.ok([200, 413, 415].includes(first.status), `status ${first.status}`);
    if (first.status !== 200) return healthy(target);
    const valid = lines.flatMap((l, i) => (l.valid ? [i + 1] : []));
    const other = lines.flatMap((l, i) => (l.valid || asServerReads(l).trim() === "" ? [] : [i + 1]));
    const rejected = first.body.rejected!.map((r) => r.line);
    assert.equal(first.body.accepted, valid.length, "every valid line is stored");
    assert.deepEqual(rejected, other, "every other line is reported by its number");
    const again = await post(target, "/api/v1/events", body, "application/x-ndjson");
    assert.deepEqual([again.body.accepted, again.body.duplicates], [0, valid.length], "stored exactly once");
    await healthy(target);
  });
}

const root = path.join(import.meta.dirname, "..", "..");

/** Each log format's fixture lines, to mutate. */
function realLines(): { format: string; lines: string[] }[] {
  return FORMATS.filter((f) => f.name !== "events").map((format) => {
    const testdata = path.join(root, format.folder, "testdata");
    const lines = readdirSync(testdata)
      .filter((name) => /\.(log|ndjson)$/.test(name))
      .flatMap((name) => readFileSync(path.join(testdata, name), "utf8").split("\n"))
      .filter((line) => line.trim() !== "");
    return { format: format.name, lines };
  });
}

type Mutation =
  | { kind: "insert"; at: number; text: string }
  | { kind: "delete"; at: number; length: number }
  | { kind: "replace"; at: number; text: string }
  | { kind: "cut"; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("\u0000", "\ud800", "\t", "]", "{", "\u0001", "\u0002", "9".repeat(30))) }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), text: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
);

function mutate(line: string, m: Mutation): string {
  const at = line.length === 0 ? 0 : m.at % line.length;
  switch (m.kind) {
    case "insert":
      return line.slice(0, at) + m.text + line.slice(at);
    case "delete":
      return line.slice(0, at) + line.slice(at + m.length);
    case "replace":
      return line.slice(0, at) + m.text + line.slice(at + m.text.length);
    case "cut":
      return line.slice(0, at);
  }
}

export function formatProperty(target: Target) {
  const sources = realLines();
  const formatBatch = fc.constantFrom(...sources).chain(({ format, lines }) =>
    fc.tuple(
      fc.constant(format),
      fc.array(fc.tuple(fc.constantFrom(...lines), fc.option(mutation, { freq: 2 })), { minLength: 1, maxLength: 30 }).map((picked) => picked.map(([line, m]) => (m === null ? line : mutate(line, m)).replace(/[\r\n]/g, " "))),
    ),
  );
  return fc.asyncProperty(formatBatch, async ([format, lines]) => {
    const body = Buffer.from(lines.join("\n"), "utf8");
    const first = await post(target, `/api/v1/ingest/${format}?instance=10.0.0.5@4121`, body, "text/plain");
    assert.ok([200, 413].includes(first.status), `${format}: status ${first.status}`);
    if (first.status === 200) {
      for (const r of first.body.rejected!) assert.ok(r.line >= 1 && r.line <= lines.length, `${format}: rejection names line ${r.line} of ${lines.length}`);
      const again = await post(target, `/api/v1/ingest/${format}?instance=10.0.0.5@4121`, body, "text/plain");
      assert.equal(again.body.accepted, 0, `${format}: posting the same lines again stores nothing`);
    }
    await healthy(target);
  });
}
