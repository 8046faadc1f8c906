// npm run eval:diagnosis [-- --keys N] [--seeds 1,2,3] [--skew-ms MS] [--with-skew] [--errors N] [--write-docs] [--spans]
//                        [--raw-retention DURATION]
// Grades the diagnosis engine against the simulator's truth: simulate every scenario in memory, parse every line
// through the registry's parsers, select each key's input with lib/diagnosis/scope.ts exactly as the API does,
// diagnose, and compare verdict by verdict with truth.json. Exit code 1 when a target fails.
//   --keys N        keys in total, split evenly over the seeds (default 10,000)
//   --skew-ms MS    how far each simulated host's clock may be off (default 200)
//   --with-skew     also run with every host up to ±2 s off, and grade that run too
//   --errors N      list up to N examples of each kind of mistake
//   --write-docs    replace the "Evaluation" section of docs/diagnosis.md with the measured tables
//   --spans         grade OpenTelemetry spans (lib/simulator/otel: Kafka and RocketMQ 5 through the Java agent's
//                   instrumentations, plus the Kafka consumers' client logs) instead of the RocketMQ 4 cluster's files
//   --raw-retention DURATION  (e.g. 1h, 1d) raw keyless lines older than this before a key's first event are gone when
//                   it is diagnosed, as DUPSCOPE_RETENTION_EVENTS leaves them: the groups' members must still tell
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findFormat } from "../collectors/registry.ts";
import type { LineResult } from "../collectors/types.ts";
import { diagnoseKey } from "../lib/diagnosis/diagnose.ts";
import { instanceRelation } from "../lib/diagnosis/identity.ts";
import { foldHoldings, holdingChangesIn, holdingsFor, queuesOf, type HoldingInterval } from "../lib/diagnosis/holdings.ts";
import { foldMembers, memberChangesIn, membersFor, membersSpan, type MemberInterval } from "../lib/diagnosis/members.ts";
import { contextOf, contextScope, msgIdsOf, type ContextScope } from "../lib/diagnosis/scope.ts";
import { CONTEXT_ROW_LIMIT } from "../lib/queries/diagnosis-input.ts";
import type { Delivery, KeyDiagnosis, Verdict } from "../lib/diagnosis/types.ts";
import { CAUSES, OUTCOMES, type Cause, type Outcome } from "../lib/diagnosis/vocabulary.ts";
import { canonicalInstance } from "../lib/events/instance.ts";
import type { NormalizedEvent } from "../lib/events/model.ts";
import { runSpanSimulation } from "../lib/simulator/otel/run.ts";
import { runSimulation, type SimulationResult, type Truth } from "../lib/simulator/run.ts";
import type { DuplicateTruth } from "../lib/simulator/truth.ts";

const TARGET_CAUSE = 0.99;
const TARGET_OUTCOME = 0.99;
const DEFAULT_KEYS = 10_000;
const DEFAULT_SEEDS = [1, 2, 3];
const DEFAULT_SKEW_MS = 200;
/** The issue's clock-skew requirement, ±2 s, applied to every host: two hosts can then be up to 4 s apart. */
const WITH_SKEW_MS = 2000;
/** A second-precision line and the few ms between a consume start and its first dedup line, beyond the skew. */
const MATCH_SLACK_MS = 1500;
const DOCS = path.join(import.meta.dirname, "..", "docs", "diagnosis.md");

// ---------------------------------------------------------------------------------------------------- options

interface Options {
  keys: number;
  seeds: number[];
  skewMs: number;
  withSkew: boolean;
  errors: number;
  writeDocs: boolean;
  /** Grade the OpenTelemetry span simulation (lib/simulator/otel) instead of the RocketMQ cluster's files. */
  spans: boolean;
  rawRetentionMs: number | null;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const int = (name: string, fallback: number): number => {
    const raw = value(name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) usage(`--${name} must be a whole number`);
    return n;
  };
  const seeds = value("seeds")?.split(",").map(Number) ?? DEFAULT_SEEDS;
  if (seeds.length === 0 || seeds.some((s) => !Number.isSafeInteger(s))) usage("--seeds must be a comma-separated list of whole numbers");
  const keys = int("keys", DEFAULT_KEYS);
  if (keys === 0) usage("--keys must be positive");
  const retention = value("raw-retention");
  const rawRetentionMs = retention === undefined ? null : durationMs(retention);
  return {
    keys,
    seeds,
    skewMs: int("skew-ms", DEFAULT_SKEW_MS),
    withSkew: argv.includes("--with-skew"),
    errors: int("errors", 0),
    writeDocs: argv.includes("--write-docs"),
    spans: argv.includes("--spans"),
    rawRetentionMs,
  };
}

function durationMs(text: string): number {
  const m = /^(\d+)(m|h|d)$/.exec(text);
  if (m === null) usage("--raw-retention takes a whole number of minutes, hours or days: 30m, 6h, 1d");
  return Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "m" | "h" | "d"];
}

function usage(message: string): never {
  console.error(`${message}\nusage: npx tsx bench/eval-diagnosis.ts [--keys N] [--seeds 1,2,3] [--skew-ms MS] [--with-skew] [--errors N] [--write-docs] [--spans] [--raw-retention 1d]`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------------- ingest

interface Ingested {
  events: NormalizedEvent[];
  lines: number;
  issues: string[];
}

/** Every data file of the manifest through its registry parser, line by line, as `dupscope ingest` would. */
function ingest(result: SimulationResult): Ingested {
  const out: Ingested = { events: [], lines: 0, issues: [] };
  for (const entry of result.manifest.files) {
    const file = result.files.find((f) => f.path === entry.path);
    const format = findFormat(entry.format);
    if (file === undefined || format === undefined) {
      out.issues.push(`${entry.path}: ${file === undefined ? "not written" : `unknown format ${entry.format}`}`);
      continue;
    }
    const ctx = { source: `${entry.format}:${entry.path}`, ...(entry.instance === undefined ? {} : { instance: entry.instance }) };
    const lines = file.text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const parser = format.open(ctx);
    const take = (parsed: LineResult) => {
      for (const e of parsed.events) out.events.push(e);
      if (parsed.issue !== undefined) out.issues.push(`${entry.path}:${parsed.issue.line}: ${parsed.issue.code} ${parsed.issue.reason}`);
    };
    lines.forEach((line, i) => take(parser.line(line, i + 1)));
    take(parser.end());
    out.lines += lines.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------- selection

/** Keyless events by ts, for range lookups. */
class TimeIndex {
  private readonly lists = new Map<string, NormalizedEvent[]>();

  add(key: string, e: NormalizedEvent): void {
    const list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, [e]);
    else list.push(e);
  }

  seal(): void {
    for (const list of this.lists.values()) list.sort((a, b) => a.ts - b.ts);
  }

  range(key: string, from: number, to: number): NormalizedEvent[] {
    const list = this.lists.get(key) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.ts < from) lo = mid + 1;
      else hi = mid;
    }
    const found: NormalizedEvent[] = [];
    for (let i = lo; i < list.length && list[i]!.ts <= to; i++) found.push(list[i]!);
    return found;
  }
}

/** The store's indexes in memory: by bizKey, and keyless events by msgId, by group and (groupless) by host. */
class EventIndex {
  readonly byKey = new Map<string, NormalizedEvent[]>();
  private readonly keylessByMsgId = new Map<string, NormalizedEvent[]>();
  private readonly byGroup = new TimeIndex();
  private readonly byHost = new TimeIndex();
  /** The groups' members over the whole run, as the store folds them (lib/store/group-members.ts). */
  readonly members: MemberInterval[];
  /** Who held which queue over the whole run, as the store folds it (lib/store/group-holdings.ts). */
  readonly holdings: HoldingInterval[];

  /** rawRetentionMs: raw keyless lines older than that before a key's last event are gone when it is diagnosed. */
  constructor(events: readonly NormalizedEvent[], private readonly rawRetentionMs: number | null) {
    for (const e of events) {
      if (e.bizKey !== null) push(this.byKey, e.bizKey, e);
      else this.addKeyless(e);
    }
    this.byGroup.seal();
    this.byHost.seal();
    const memberChanges = memberChangesIn(events);
    this.members = foldMembers(memberChanges);
    this.holdings = foldHoldings(holdingChangesIn(events), memberChanges);
  }

  private addKeyless(e: NormalizedEvent): void {
    if (e.msgId !== null) push(this.keylessByMsgId, e.msgId, e);
    if (e.group !== null) this.byGroup.add(e.group, e);
    else if (e.instance !== null) this.byHost.add(canonicalInstance(e.instance).host, e);
  }

  /** scope.ts, rule 1: the key's events plus keyless events naming one of its msgIds, in time order. */
  keyEvents(bizKey: string): NormalizedEvent[] {
    const own = this.byKey.get(bizKey) ?? [];
    const named = msgIdsOf(own).flatMap((id) => this.keylessByMsgId.get(id) ?? []);
    return stableByTs([...own, ...named]);
  }

  /**
   * The oldest raw line still stored when the key is diagnosed, as its first events arrive. (Diagnosed again when a
   * later event arrives past the retention, the key would have lost its own first events too: the store then shows
   * the diagnosis it kept, which this run does not model.)
   */
  private rawFrom(events: readonly NormalizedEvent[]): number {
    return this.rawRetentionMs === null ? -Infinity : Math.min(...events.map((e) => e.ts)) - this.rawRetentionMs;
  }

  /** scope.ts, rule 2: keyless events of the key's groups and hosts within its window, those the retention left. */
  context(events: NormalizedEvent[], scope: ContextScope): NormalizedEvent[] {
    const from = this.rawFrom(events);
    const candidates = [
      ...scope.windows.flatMap((w) => [
        ...scope.groups.flatMap((g) => this.byGroup.range(g, w.from, w.to)),
        ...scope.hosts.flatMap((h) => this.byHost.range(h, w.from, w.to)),
      ]),
    ].filter((e) => e.ts >= from);
    return stableByTs(contextOf(events, candidates));
  }

  /** The key's groups' members, as the store answers (membersFor), each knowing whether its first line is still stored. */
  membersOf(events: readonly NormalizedEvent[], scope: ContextScope): MemberInterval[] {
    const from = this.rawFrom(events);
    return membersFor(this.members, scope.groups, membersSpan(events), scope).map((i) => ({ ...i, sinceRaw: i.since !== null && i.since >= from }));
  }

  /** Who held the key's queues, as the store answers (holdingsFor), each knowing whether its take is still stored. */
  holdingsOf(events: readonly NormalizedEvent[]): HoldingInterval[] {
    const from = this.rawFrom(events);
    return holdingsFor(this.holdings, queuesOf(events), membersSpan(events)).map((i) => ({ ...i, sinceRaw: i.since !== null && i.since >= from }));
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The API's order: time, ties in arrival order (Array.prototype.sort is stable). */
function stableByTs(events: NormalizedEvent[]): NormalizedEvent[] {
  return events.sort((a, b) => a.ts - b.ts);
}

// ---------------------------------------------------------------------------------------------------- grading

interface EngineDuplicate {
  bizKey: string;
  verdict: Verdict;
  first: Delivery;
  second: Delivery;
}

type Predicted = Cause | "missed";
type Actual = Cause | "spurious";

interface Row {
  seed: number;
  bizKey: string;
  group: string;
  truth: DuplicateTruth | null;
  engine: EngineDuplicate | null;
  /** How the engine's pair relates to truth's, for matched rows. */
  pairing: Pairing | null;
}

/**
 * same: both deliveries agree; other_first: the duplicate agrees, its partner does not; swapped and crossed: see
 * matchDuplicates.
 */
type Pairing = "same" | "other_first" | "swapped" | "crossed";

/** Per seed, key and group: a lost key's defect, or a key's normal retry count. */
interface Sides<T> {
  truth: Map<string, T>;
  engine: Map<string, T>;
}

interface Tally {
  keys: number;
  events: number;
  lines: number;
  issues: string[];
  contextMax: number;
  contextOverLimit: number;
  rows: Row[];
  lost: Sides<string>;
  retries: Sides<number>;
  ms: { simulate: number; parse: number; diagnose: number };
}

function emptyTally(): Tally {
  return {
    keys: 0,
    events: 0,
    lines: 0,
    issues: [],
    contextMax: 0,
    contextOverLimit: 0,
    rows: [],
    lost: { truth: new Map(), engine: new Map() },
    retries: { truth: new Map(), engine: new Map() },
    ms: { simulate: 0, parse: 0, diagnose: 0 },
  };
}

const keyGroup = (bizKey: string, group: string | null) => `${bizKey}\u0000${group ?? ""}`;
const seeded = (seed: number, bizKey: string, group: string | null) => `${seed}\u0000${keyGroup(bizKey, group)}`;

/**
 * How far the engine's view of a truth delivery can be from it: the same message, retry round and process, and a
 * start within the host's clock skew (the engine reads skewed host clocks; truth keeps the model's true time).
 * null when they cannot be the same delivery; otherwise smaller is closer.
 */
function deliveryDistance(d: Delivery, msgId: string, retryTimes: number, instance: string, at: number, toleranceMs: number): number | null {
  if (d.msgId !== null && d.msgId !== msgId) return null;
  if (d.retryTimes !== null && d.retryTimes !== retryTimes) return null;
  if (instanceRelation(d.instance, instance) === "different") return null;
  const dt = Math.abs(d.start - at);
  return dt > toleranceMs ? null : dt;
}

/**
 * A duplicate is its second delivery: each delivery repeats at most once. Truth and engine duplicates of one key and
 * group are matched on that delivery, as many as possible and then closest; the rest are missed (truth only) or
 * spurious (engine only). Two deliveries closer than the hosts' clock skew have no knowable order, so the engine may
 * name the other one the duplicate: such a pair matches too, at a higher cost, and is counted as swapped.
 *
 * The same holds between two duplicates of one key: when two processes consume copies of a message within the
 * clocks' disagreement (two processes sharing a clientId take the resent copy in the same millisecond), which of
 * them repeats the first delivery and which repeats the other copy has no knowable answer: it depends only on
 * their order. When two matched duplicates of one key, closer than that, were each given the other's cause, they
 * are matched the other way round and counted as crossed.
 */
function matchDuplicates(seed: number, truths: DuplicateTruth[], engine: EngineDuplicate[], toleranceMs: number, orderUnknowableMs: number): Row[] {
  const links = truths.map((t) => engine.map((e) => link(t, e, toleranceMs)));
  const rows: Row[] = [];
  const usedT = new Set<DuplicateTruth>();
  const usedE = new Set<EngineDuplicate>();
  for (const [i, j] of assign(links.map((row) => row.map((l) => l?.cost ?? null)))) {
    const t = truths[i]!;
    const e = engine[j]!;
    usedT.add(t);
    usedE.add(e);
    rows.push({ seed, bizKey: t.bizKey, group: t.group, truth: t, engine: e, pairing: links[i]![j]!.pairing });
  }
  uncross(rows, orderUnknowableMs);
  for (const t of truths) if (!usedT.has(t)) rows.push({ seed, bizKey: t.bizKey, group: t.group, truth: t, engine: null, pairing: null });
  for (const e of engine) if (!usedE.has(e)) rows.push({ seed, bizKey: e.bizKey, group: e.verdict.group ?? "", truth: null, engine: e, pairing: null });
  return rows;
}

/** Re-pairs, in place, two matched rows whose causes are crossed between deliveries of no knowable order. */
function uncross(rows: Row[], orderUnknowableMs: number): void {
  const wrong = (r: Row) => r.engine !== null && r.truth !== null && r.engine.verdict.cause !== r.truth.cause;
  for (const a of rows) {
    for (const b of rows) {
      if (a === b || !wrong(a) || !wrong(b)) continue;
      const [ta, tb, ea, eb] = [a.truth!, b.truth!, a.engine!, b.engine!];
      if (ta.cause !== eb.verdict.cause || tb.cause !== ea.verdict.cause) continue;
      if (Math.abs(ta.secondAt - tb.secondAt) > orderUnknowableMs) continue;
      [a.engine, b.engine] = [eb, ea];
      a.pairing = "crossed";
      b.pairing = "crossed";
    }
  }
}

function link(t: DuplicateTruth, e: EngineDuplicate, toleranceMs: number): { cost: number; pairing: Pairing } | null {
  const second = deliveryDistance(e.second, t.msgIds[1], t.retryTimes[1], t.secondInstance, t.secondAt, toleranceMs);
  const first = deliveryDistance(e.first, t.msgIds[0], t.retryTimes[0], t.firstInstance, t.firstAt, toleranceMs);
  if (second !== null) return { cost: second + (first ?? toleranceMs), pairing: first === null ? "other_first" : "same" };
  const swappedSecond = deliveryDistance(e.second, t.msgIds[0], t.retryTimes[0], t.firstInstance, t.firstAt, toleranceMs);
  const swappedFirst = deliveryDistance(e.first, t.msgIds[1], t.retryTimes[1], t.secondInstance, t.secondAt, toleranceMs);
  if (swappedSecond === null || swappedFirst === null) return null;
  return { cost: 2 * toleranceMs + swappedSecond + swappedFirst, pairing: "swapped" };
}

/**
 * Minimum-cost assignment (Hungarian method) of rows to columns over the allowed (non-null) cells. A forbidden cell
 * costs more than any set of allowed ones, so the most pairs are matched first and the cheapest such set wins.
 */
function assign(costs: (number | null)[][]): [number, number][] {
  const rows = costs.length;
  const cols = costs[0]?.length ?? 0;
  const n = Math.max(rows, cols);
  if (rows === 0 || cols === 0) return [];
  const forbidden = 1e12;
  const cost = (i: number, j: number) => (i < rows && j < cols ? (costs[i]![j] ?? forbidden) : forbidden);
  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(n + 1).fill(0);
  const owner = new Array<number>(n + 1).fill(0);
  const way = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    owner[0] = i;
    let j0 = 0;
    const minv = new Array<number>(n + 1).fill(Infinity);
    const used = new Array<boolean>(n + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = owner[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const reduced = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (reduced < minv[j]!) {
          minv[j] = reduced;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[owner[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (owner[j0] !== 0);
    do {
      const j1 = way[j0]!;
      owner[j0] = owner[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const pairs: [number, number][] = [];
  for (let j = 1; j <= n; j++) {
    const i = owner[j]! - 1;
    if (i >= 0 && i < rows && j - 1 < cols && (costs[i]![j - 1] ?? null) !== null) pairs.push([i, j - 1]);
  }
  return pairs;
}

function engineDuplicates(diagnosis: KeyDiagnosis): EngineDuplicate[] {
  const byId = new Map(diagnosis.deliveries.map((d) => [d.id, d]));
  return diagnosis.duplicates.map((verdict) => ({ bizKey: diagnosis.bizKey, verdict, first: byId.get(verdict.deliveries[0])!, second: byId.get(verdict.deliveries[1])! }));
}

function diagnose(index: EventIndex, bizKey: string, tally: Tally): KeyDiagnosis {
  const events = index.keyEvents(bizKey);
  const scope = contextScope(events);
  const context = scope === undefined ? [] : index.context(events, scope);
  tally.contextMax = Math.max(tally.contextMax, context.length);
  // The store caps each merged context window at CONTEXT_ROW_LIMIT rows; counted here, not applied.
  if (context.length > CONTEXT_ROW_LIMIT) tally.contextOverLimit++;
  return diagnoseKey({ bizKey, events, context, members: scope === undefined ? [] : index.membersOf(events, scope), holdings: index.holdingsOf(events) });
}

/**
 * Lost keys and normal retries per key and group. Truth lists a lost key in neither duplicates nor normal retries,
 * so a group the engine flags lost does not count its skipped retry as a normal retry either: one definition on
 * both sides.
 */
function recordEngineKey(seed: number, diagnosis: KeyDiagnosis, tally: Tally): void {
  const lostGroups = new Set(diagnosis.lost.map((l) => l.group));
  for (const l of diagnosis.lost) tally.lost.engine.set(seeded(seed, diagnosis.bizKey, l.group), l.defect ?? "none");
  for (const r of diagnosis.normalRetries) {
    if (lostGroups.has(r.group)) continue;
    const id = seeded(seed, diagnosis.bizKey, r.group);
    tally.retries.engine.set(id, (tally.retries.engine.get(id) ?? 0) + 1);
  }
}

function recordTruth(seed: number, truth: Truth, tally: Tally): Map<string, DuplicateTruth[]> {
  for (const l of truth.lost) tally.lost.truth.set(seeded(seed, l.bizKey, l.group), l.defect);
  for (const r of truth.normalRetries) tally.retries.truth.set(seeded(seed, r.bizKey, r.group), r.retries);
  const duplicates = new Map<string, DuplicateTruth[]>();
  for (const d of truth.duplicates) push(duplicates, keyGroup(d.bizKey, d.group), d);
  return duplicates;
}

/** One seed: simulate, parse, diagnose every key, grade. */
function evaluateSeed(seed: number, keys: number, skewMs: number, spans: boolean, rawRetentionMs: number | null, tally: Tally): void {
  let t0 = performance.now();
  const result = spans ? runSpanSimulation({ keys, seed, skewMs }) : runSimulation({ scenario: "all", keys, seed, skewMs });
  tally.ms.simulate += performance.now() - t0;

  t0 = performance.now();
  const ingested = ingest(result);
  const index = new EventIndex(ingested.events, rawRetentionMs);
  tally.ms.parse += performance.now() - t0;
  tally.lines += ingested.lines;
  tally.events += ingested.events.length;
  tally.issues.push(...ingested.issues.map((i) => `seed ${seed}: ${i}`));

  t0 = performance.now();
  const engine = new Map<string, EngineDuplicate[]>();
  for (const bizKey of index.byKey.keys()) {
    const diagnosis = diagnose(index, bizKey, tally);
    for (const e of engineDuplicates(diagnosis)) push(engine, keyGroup(bizKey, e.verdict.group), e);
    recordEngineKey(seed, diagnosis, tally);
  }
  tally.ms.diagnose += performance.now() - t0;
  tally.keys += index.byKey.size;

  const truth = recordTruth(seed, result.truth, tally);
  const toleranceMs = skewMs + MATCH_SLACK_MS;
  for (const id of new Set([...truth.keys(), ...engine.keys()])) {
    tally.rows.push(...matchDuplicates(seed, truth.get(id) ?? [], engine.get(id) ?? [], toleranceMs, 2 * skewMs));
  }
}

// ---------------------------------------------------------------------------------------------------- report

const SHORT: Record<Predicted, string> = {
  producer_retry: "PR",
  upstream_resend: "UR",
  rebalance: "RB",
  ack_lost: "AL",
  consume_timeout: "CT",
  commit_failed: "CF",
  offset_rollback: "OR",
  shared_client_id: "SC",
  broadcast_consumption: "BC",
  invisible_timeout: "IT",
  retry_after_failure: "RF",
  dlq_replay: "DLQ",
  delayed_double_write: "DDW",
  transaction_checkback: "TX",
  unknown: "UNK",
  missed: "missed",
};

const actualOf = (r: Row): Actual => r.truth?.cause ?? "spurious";
const predictedOf = (r: Row): Predicted => r.engine?.verdict.cause ?? "missed";
const matched = (r: Row): r is Row & { truth: DuplicateTruth; engine: EngineDuplicate } => r.truth !== null && r.engine !== null;

const pct = (n: number, d: number) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(2)}%`);
const count = (n: number) => n.toLocaleString("en-US");

function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === "number" ? count(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(cells[0]!), rule, ...cells.slice(1).map((r) => line(r as string[]))].join("\n");
}

function perCause(rows: Row[]): string {
  const body = CAUSES.map((cause) => {
    const support = rows.filter((r) => r.truth?.cause === cause).length;
    const predicted = rows.filter((r) => r.engine?.verdict.cause === cause).length;
    const correct = rows.filter((r) => matched(r) && r.truth.cause === cause && r.engine.verdict.cause === cause).length;
    return [cause, support, predicted, correct, pct(correct, predicted), pct(correct, support)];
  }).filter((r) => r[1] !== 0 || r[2] !== 0);
  return table(["cause", "support (truth)", "predicted", "right", "precision", "recall"], body);
}

function confusion(rows: Row[]): string {
  const actuals = [...CAUSES, "spurious" as const].filter((a) => rows.some((r) => actualOf(r) === a));
  const predicted = [...CAUSES, "missed" as const].filter((p) => rows.some((r) => predictedOf(r) === p));
  const body = actuals.map((a) => [a, ...predicted.map((p) => rows.filter((r) => actualOf(r) === a && predictedOf(r) === p).length)]);
  return table(["truth \\ engine", ...predicted.map((p) => SHORT[p])], body);
}

function outcomeTable(rows: Row[]): string {
  const actuals = [...OUTCOMES, "spurious" as const];
  const predicted = [...OUTCOMES, "missed" as const];
  const outcomeOf = (r: Row, side: "truth" | "engine"): Outcome | null => (side === "truth" ? (r.truth?.outcome ?? null) : (r.engine?.verdict.outcome ?? null));
  const body = actuals.map((a) => [
    a,
    ...predicted.map(
      (p) => rows.filter((r) => (outcomeOf(r, "truth") ?? "spurious") === a && (outcomeOf(r, "engine") ?? "missed") === p).length,
    ),
  ]);
  return table(["truth \\ engine", ...predicted], body.filter((r) => r.slice(1).some((n) => n !== 0)));
}

interface Scores {
  causeRight: number;
  outcomeRight: number;
  graded: number;
  leaksAsCaught: number;
}

function scores(rows: Row[]): Scores {
  return {
    causeRight: rows.filter((r) => matched(r) && r.truth.cause === r.engine.verdict.cause).length,
    outcomeRight: rows.filter((r) => matched(r) && r.truth.outcome === r.engine.verdict.outcome).length,
    graded: rows.length,
    leaksAsCaught: rows.filter((r) => matched(r) && r.truth.outcome === "leaked" && r.engine.verdict.outcome === "caught").length,
  };
}

function detailLines(rows: Row[]): string[] {
  const both = rows.filter(matched);
  const caught = both.filter((r) => r.truth.outcome === "caught" && r.engine.verdict.outcome === "caught");
  const leaks = rows.filter((r) => r.truth?.outcome === "leaked");
  const defectRight = leaks.filter((r) => r.engine?.verdict.outcome === "leaked" && r.engine.verdict.defect === r.truth?.defect);
  const wrongDefects = tallyBy(leaks.filter((r) => !defectRight.includes(r)), (r) => `${r.truth?.defect} → ${r.engine?.verdict.defect ?? r.engine?.verdict.outcome ?? "missed"}`);
  return [
    `- layer right for caught duplicates (both sides caught): ${count(caught.filter((r) => r.truth.layer === r.engine.verdict.layer).length)} / ${count(caught.length)} (${pct(caught.filter((r) => r.truth.layer === r.engine.verdict.layer).length, caught.length)})`,
    `- defect right for leaks (of all truth leaks): ${count(defectRight.length)} / ${count(leaks.length)} (${pct(defectRight.length, leaks.length)})${wrongDefects === "" ? "" : `; wrong: ${wrongDefects}`}`,
    `- pairing of matched duplicates: ${tallyBy(both, (r) => r.pairing ?? "none")} (same: both deliveries are truth's; other_first: the partner differs; swapped: two deliveries within the clock skew, ordered the other way; crossed: two duplicates within the clock skew, each given the other's cause)`,
  ];
}

function tallyBy<T>(items: T[], keyOf: (item: T) => string): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${count(n)}`).join(", ");
}

function setLines<T>(name: string, sides: Sides<T>, agree: (a: T, b: T) => boolean, agreeLabel: string): string[] {
  const both = [...sides.truth.keys()].filter((id) => sides.engine.has(id));
  const agreeing = both.filter((id) => agree(sides.truth.get(id)!, sides.engine.get(id)!)).length;
  return [
    `- ${name}: truth ${count(sides.truth.size)}, engine ${count(sides.engine.size)}, both ${count(both.length)}; precision ${pct(both.length, sides.engine.size)}, recall ${pct(both.length, sides.truth.size)}; ${agreeLabel} ${count(agreeing)} / ${count(both.length)}`,
  ];
}

function targetLines(s: Scores): { lines: string[]; pass: boolean } {
  const cause = s.graded === 0 ? 1 : s.causeRight / s.graded;
  const outcome = s.graded === 0 ? 1 : s.outcomeRight / s.graded;
  const mark = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const checks: [boolean, string][] = [
    [cause >= TARGET_CAUSE, `duplicates with the right cause: ${count(s.causeRight)} / ${count(s.graded)} = ${pct(s.causeRight, s.graded)} (target ≥ 99%)`],
    [outcome >= TARGET_OUTCOME, `duplicates with the right outcome: ${count(s.outcomeRight)} / ${count(s.graded)} = ${pct(s.outcomeRight, s.graded)} (target ≥ 99%)`],
    [s.leaksAsCaught === 0, `leaks reported as caught: ${count(s.leaksAsCaught)} (target 0)`],
  ];
  return { lines: checks.map(([ok, text]) => `- **${mark(ok)}** ${text}`), pass: checks.every(([ok]) => ok) };
}

interface Report {
  markdown: string;
  pass: boolean;
}

function report(title: string, opts: { keys: number; seeds: number[]; skewMs: number; spans: boolean }, tally: Tally): Report {
  const rows = tally.rows;
  const truthCount = rows.filter((r) => r.truth !== null).length;
  const engineCount = rows.filter((r) => r.engine !== null).length;
  const targets = targetLines(scores(rows));
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const markdown = [
    `### ${title}`,
    "",
    `${opts.spans ? "Spans alone (lib/simulator/otel), half Kafka, half RocketMQ 5" : "Scenario `all`"}, seeds ${opts.seeds.join(", ")}, ${count(opts.keys)} keys per seed.`,
    "",
    `- ${count(tally.keys)} keys diagnosed, ${count(tally.lines)} lines parsed into ${count(tally.events)} events, **${count(tally.issues.length)} parse issues**; largest context ${count(tally.contextMax)} events (${count(tally.contextOverLimit)} keys over the API's ${CONTEXT_ROW_LIMIT})`,
    `- duplicates: truth ${count(truthCount)}, engine ${count(engineCount)}, matched ${count(rows.filter(matched).length)}, missed ${count(rows.filter((r) => r.engine === null).length)}, spurious ${count(rows.filter((r) => r.truth === null).length)}`,
    `- time: simulate ${seconds(tally.ms.simulate)}, parse and index ${seconds(tally.ms.parse)}, select and diagnose ${seconds(tally.ms.diagnose)} (${(tally.ms.diagnose / Math.max(1, tally.keys)).toFixed(2)} ms per key)`,
    "",
    "**Targets**",
    "",
    ...targets.lines,
    "",
    "**Per cause** (precision: right / predicted, spurious included; recall: right / truth, missed included)",
    "",
    perCause(rows),
    "",
    `**Confusion** (rows: truth; columns: engine; ${CAUSES.filter((c) => rows.some((r) => actualOf(r) === c || predictedOf(r) === c)).map((c) => `${SHORT[c]} ${c}`).join(", ")})`,
    "",
    confusion(rows),
    "",
    "**Outcome** (rows: truth; columns: engine)",
    "",
    outcomeTable(rows),
    "",
    ...detailLines(rows),
    ...setLines("lost messages (marker_not_released)", tally.lost, (a, b) => a === b, "defect right"),
    ...setLines("keys with normal retries", tally.retries, (a, b) => a === b, "same retry count"),
  ].join("\n");
  return { markdown, pass: targets.pass };
}

/** Misread rows, a few per kind of mistake, for whoever investigates them. */
function errorSamples(tally: Tally, perKind: number): string[] {
  const kinds = new Map<string, Row[]>();
  for (const r of tally.rows) {
    const causeWrong = actualOf(r) !== predictedOf(r);
    const outcomeWrong = matched(r) && (r.truth.outcome !== r.engine.verdict.outcome || r.truth.defect !== r.engine.verdict.defect);
    const partnerWrong = r.pairing === "other_first";
    if (!causeWrong && !outcomeWrong && !partnerWrong) continue;
    const kind = partnerWrong && !causeWrong && !outcomeWrong ? "right verdict, other first delivery" : causeWrong ? `${actualOf(r)} → ${predictedOf(r)}` : `${r.truth?.outcome}/${r.truth?.defect ?? r.truth?.layer} → ${r.engine?.verdict.outcome}/${r.engine?.verdict.defect ?? r.engine?.verdict.layer}`;
    push(kinds, kind, r);
  }
  return [
    ...[...kinds].flatMap(([kind, list]) => [`${kind} (${list.length})`, ...list.slice(0, perKind).map(describeRow)]),
    ...sideSamples("lost", tally.lost, perKind),
    ...sideSamples("normal retries", tally.retries, perKind),
  ];
}

function sideSamples<T>(name: string, sides: Sides<T>, perKind: number): string[] {
  const ids = new Set([...sides.truth.keys(), ...sides.engine.keys()]);
  const differ = [...ids].filter((id) => sides.truth.get(id) !== sides.engine.get(id));
  if (differ.length === 0) return [];
  const show = (id: string) => `    seed ${id.split("\u0000").join(" ")}: truth ${sides.truth.get(id) ?? "—"} | engine ${sides.engine.get(id) ?? "—"}`;
  return [`${name} differ (${differ.length})`, ...differ.slice(0, perKind).map(show)];
}

function describeRow(r: Row): string {
  const t = r.truth;
  const e = r.engine;
  const truthText = t === null ? "—" : `${t.cause} ${t.outcome} ${t.firstInstance}→${t.secondInstance} gap ${t.gapMs} ms retry ${t.retryTimes.join("/")} msg ${t.msgIds[0] === t.msgIds[1] ? "same" : "new"}`;
  const engineText =
    e === null ? "—" : `${e.verdict.cause} ${e.verdict.outcome} ${e.verdict.deliveries.join("→")} ${e.verdict.confidence} [${e.verdict.evidence.map((x) => x.code).join(",")}]`;
  return `    seed ${r.seed} ${r.bizKey} ${r.group}: truth ${truthText} | engine ${engineText}`;
}

// ---------------------------------------------------------------------------------------------------- main

function evaluate(opts: Options, skewMs: number): { tally: Tally; perSeed: number } {
  const perSeed = Math.ceil(opts.keys / opts.seeds.length);
  const tally = emptyTally();
  for (const seed of opts.seeds) {
    evaluateSeed(seed, perSeed, skewMs, opts.spans, opts.rawRetentionMs, tally);
    console.error(`seed ${seed} (±${skewMs} ms): ${count(tally.keys)} keys so far`);
  }
  return { tally, perSeed };
}

/** The options that differ from the defaults, as flags. */
function flags(opts: Options): string[] {
  const parts: string[] = [];
  if (opts.keys !== DEFAULT_KEYS) parts.push(`--keys ${opts.keys}`);
  if (opts.seeds.join(",") !== DEFAULT_SEEDS.join(",")) parts.push(`--seeds ${opts.seeds.join(",")}`);
  if (opts.skewMs !== DEFAULT_SKEW_MS) parts.push(`--skew-ms ${opts.skewMs}`);
  if (opts.withSkew) parts.push("--with-skew");
  if (opts.spans) parts.push("--spans");
  if (opts.rawRetentionMs !== null) parts.push(`--raw-retention ${formatDuration(opts.rawRetentionMs)}`);
  return parts;
}

function formatDuration(ms: number): string {
  return ms % 86_400_000 === 0 ? `${ms / 86_400_000}d` : ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : `${ms / 60_000}m`;
}

/** Replaces the body of `## Evaluation` (up to the next `## ` heading) and keeps the rest of the file. */
function writeDocs(opts: Options, reports: Report[]): void {
  const heading = opts.spans ? "## Evaluation on spans alone" : opts.rawRetentionMs !== null ? "## Evaluation after the raw lines expired" : "## Evaluation";
  const text = readFileSync(DOCS, "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${DOCS} has no "${heading}" section`);
  const next = text.indexOf("\n## ", start + 1);
  const given = flags(opts);
  const npm = `npm run eval:diagnosis${given.length === 0 ? "" : ` -- ${given.join(" ")}`}`;
  const measured = [
    `Measured ${new Date().toISOString().slice(0, 10)} with \`${["npx tsx bench/eval-diagnosis.ts", ...given, "--write-docs"].join(" ")}\``,
    `(\`${npm}\` prints the same; \`--errors N\` adds examples of each kind of mistake).`,
  ];
  const body = opts.rawRetentionMs !== null
    ? [
        "",
        heading,
        "",
        ...measured,
        "",
        `The same run as above, but each key is diagnosed as a store with \`DUPSCOPE_RETENTION_EVENTS=${formatDuration(opts.rawRetentionMs)}\` would answer`,
        "when the key's first events arrived: raw keyless lines older than that are gone, and what the groups' members",
        "were (lib/diagnosis/members.ts) comes from their state over time, folded from every membership line of the run,",
        "as lib/store/group-members.ts keeps it. The simulator's long-running processes connect hours before the keys, so",
        "their connect lines, and the BROADCASTING group's, are among the expired ones.",
        "",
        ...reports.map((r) => `${r.markdown}\n`),
      ].join("\n")
    : opts.spans
    ? [
        "",
        heading,
        "",
        ...measured,
        "",
        "`lib/simulator/otel` plays a Kafka and a RocketMQ 5 cluster as the OpenTelemetry Java agent shows them: send and",
        "process spans in either attribute naming, per process, with each host's clock off by up to the skew, and no dedup",
        "log. Besides the spans, each Kafka consumer writes its client log (kafka-clients 2.3, 2.8, 3.x and 3.7 wordings),",
        "which names what spans cannot: a poll timeout, a refused offset commit (`commit_failed`), and the revoke/assign",
        "lines of half the rebalances, whose commits all succeeded (its hard negative). Its timings come from the brokers'",
        "own defaults (docs/otel.md cites them). The span file goes through the `otlp-traces` collector, each log through",
        "`kafka-client-log` with its process, and keys are selected, diagnosed and matched exactly as above. It measures",
        "what spans (and those logs) can tell, and that the rules read them as the mechanisms they describe; it is not",
        "field data.",
        "",
        ...reports.map((r) => `${r.markdown}\n`),
      ].join("\n")
    : [
    "",
    heading,
    "",
    ...measured,
    "",
    "The simulator's `all` scenario runs in memory per seed. Every file of its manifest goes line by line through the",
    "registry's parsers, with the instance the manifest names. Each key's events and context are selected with",
    "`lib/diagnosis/scope.ts` as the API selects them, and `diagnoseKey` runs with its defaults (`clockSkewMs` 3 s). A",
    "duplicate is identified by its second delivery (message, retry round, process, start within the host skew); per",
    "key and group, truth and engine duplicates are matched as many as possible, then closest. Truth duplicates without",
    "an engine verdict are *missed*, engine verdicts without a truth duplicate *spurious*: both count against the",
    "targets, whose denominator is matched + missed + spurious. Two deliveries closer than the clocks' disagreement have",
    "no knowable order; when the engine names the other one of such a pair the duplicate, the pair still matches and is",
    "counted as *swapped*. Likewise, when two processes take copies of one message within the clocks' disagreement",
    "(two processes sharing a clientId take a resent copy in the same millisecond), which of them repeats the first",
    "delivery and which the other copy is not knowable: two such duplicates given each other's cause are matched the",
    "other way round and counted as *crossed*.",
    "",
    `\`--with-skew\` (or \`--skew-ms ${WITH_SKEW_MS}\`) puts every host up to ±${WITH_SKEW_MS / 1000} s off true time, so two hosts can be ${(2 * WITH_SKEW_MS) / 1000} s`,
    "apart, beyond the default `clockSkewMs`. The run keeps the default to show what it tolerates; a deployment whose",
    "clocks disagree that much should raise `clockSkewMs` to match.",
    "",
    ...reports.map((r) => `${r.markdown}\n`),
  ].join("\n");
  writeFileSync(DOCS, `${text.slice(0, start)}${body}${next < 0 ? "" : text.slice(next)}`);
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  const skews = opts.withSkew && opts.skewMs !== WITH_SKEW_MS ? [opts.skewMs, WITH_SKEW_MS] : [opts.skewMs];
  const kept = opts.rawRetentionMs === null ? "" : `, raw lines kept ${formatDuration(opts.rawRetentionMs)}`;
  const runs = skews.map((skewMs): [string, number] => [`Host clocks off by up to ±${skewMs} ms${kept}`, skewMs]);
  const reports: Report[] = [];
  for (const [title, skewMs] of runs) {
    const { tally, perSeed } = evaluate(opts, skewMs);
    const r = report(title, { keys: perSeed, seeds: opts.seeds, skewMs, spans: opts.spans }, tally);
    console.log(`${r.markdown}\n`);
    for (const issue of tally.issues.slice(0, 20)) console.log(`parse issue: ${issue}`);
    if (opts.errors > 0) for (const line of errorSamples(tally, opts.errors)) console.log(line);
    reports.push(r);
  }
  if (opts.writeDocs) writeDocs(opts, reports);
  process.exitCode = reports.every((r) => r.pass) ? 0 : 1;
}

main();
