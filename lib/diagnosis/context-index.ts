import type { NormalizedEvent } from "../events/model.ts";
import { instanceRelation } from "./identity.ts";
import { isJoined, isLeft, sourceKind } from "./sources.ts";

/**
 * What the rules and the missing-data notes look up in a context list by instance, worked out once per list. Every
 * key of a worker's batch that reads the same stretch shares one list (batch-context.ts), and each pair of each
 * duplicate asked the same questions of all of it: in a busy group (370 lines a key) these walks were a third of
 * diagnoseKey's time.
 */
export interface ContextIndex {
  /** Each instance name's lines, by position in the list. */
  readonly positions: ReadonlyMap<string, readonly number[]>;
  /** Names of instances with client-log lines (RocketMQ or Kafka clients). */
  readonly clientLogInstances: readonly string[];
  /** Names of instances with lifecycle or rebalance lines. */
  readonly memberInstances: readonly string[];
  /** Groups of broker-log lines; null for lines naming none. */
  readonly brokerLogGroups: ReadonlySet<string | null>;
  /** Members starting or connecting, in list order. */
  readonly joined: readonly NormalizedEvent[];
  /** Members starting, connecting, shutting down or unregistering (isJoined, isLeft), in list order. */
  readonly memberChanges: readonly NormalizedEvent[];
  /** Whether the list is in time order, so a time range of it can be found by bisection. */
  readonly sorted: boolean;
  readonly length: number;
}

const indexes = new WeakMap<readonly NormalizedEvent[], ContextIndex>();

export function contextIndex(context: readonly NormalizedEvent[]): ContextIndex {
  let index = indexes.get(context);
  // A list that grew since (as diagnose.ts's shared lists are checked) is indexed again.
  if (index === undefined || index.length !== context.length) indexes.set(context, (index = build(context)));
  return index;
}

function build(context: readonly NormalizedEvent[]): ContextIndex {
  const positions = new Map<string, number[]>();
  const clientLog = new Set<string>();
  const members = new Set<string>();
  const brokerLogGroups = new Set<string | null>();
  const joined: NormalizedEvent[] = [];
  const memberChanges: NormalizedEvent[] = [];
  let sorted = true;
  context.forEach((e, i) => {
    if (i > 0 && context[i - 1]!.ts > e.ts) sorted = false;
    const kind = sourceKind(e);
    if (kind === "broker_log") brokerLogGroups.add(e.group);
    if (isJoined(e)) joined.push(e);
    if (isJoined(e) || isLeft(e)) memberChanges.push(e);
    if (e.instance === null) return;
    const list = positions.get(e.instance);
    if (list) list.push(i);
    else positions.set(e.instance, [i]);
    if (kind === "client_log" || kind === "kafka_log") clientLog.add(e.instance);
    if (e.kind === "instance_lifecycle" || e.kind === "rebalance") members.add(e.instance);
  });
  return { positions, clientLogInstances: [...clientLog], memberInstances: [...members], brokerLogGroups, joined, memberChanges, sorted, length: context.length };
}

/** One instance's lines of a context list, sorted out once per list: every pair with that instance asks the same. */
export interface InstanceLines {
  /** linesOf(context, instance). */
  readonly all: readonly NormalizedEvent[];
  /** Those from a client log (RocketMQ or Kafka), in time order. */
  readonly clientLog: readonly NormalizedEvent[];
}

const instanceLinesByIndex = new WeakMap<ContextIndex, Map<string, InstanceLines>>();

export function instanceLines(context: readonly NormalizedEvent[], instance: string): InstanceLines {
  const index = contextIndex(context);
  let known = instanceLinesByIndex.get(index);
  if (known === undefined) instanceLinesByIndex.set(index, (known = new Map()));
  let lines = known.get(instance);
  if (lines === undefined) {
    const all = linesOf(context, instance);
    const clientLog = all.filter((e) => sourceKind(e) === "client_log" || sourceKind(e) === "kafka_log").sort((a, b) => a.ts - b.ts);
    known.set(instance, (lines = { all, clientLog }));
  }
  return lines;
}

/**
 * The positions [start, end) of the list that can hold lines stamped from `from` to `to` (inclusive): found by
 * bisection in a list in time order, the whole list otherwise. Callers still test each line they get.
 */
export function timeRange(context: readonly NormalizedEvent[], from: number, to: number): [number, number] {
  return sliceRange(context, contextIndex(context).sorted, from, to);
}

/** timeRange for part of a context list (its order kept), e.g. an instance's lines: `sorted` is the whole list's. */
export function timeSlice(lines: readonly NormalizedEvent[], sorted: boolean, from: number, to: number): readonly NormalizedEvent[] {
  const [start, end] = sliceRange(lines, sorted, from, to);
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}

function sliceRange(lines: readonly NormalizedEvent[], sorted: boolean, from: number, to: number): [number, number] {
  if (!sorted) return [0, lines.length];
  return [firstAt(lines, (ts) => ts >= from), firstAt(lines, (ts) => ts > to)];
}

function firstAt(context: readonly NormalizedEvent[], past: (ts: number) => boolean): number {
  let lo = 0;
  let hi = context.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past(context[mid]!.ts)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Whether any of these names is the same process as `instance`. */
export function anySame(names: readonly string[], instance: string): boolean {
  return names.some((name) => instanceRelation(name, instance) === "same");
}

/** `context.filter((e) => instanceRelation(e.instance, instance) === "same")`, in list order. */
export function linesOf(context: readonly NormalizedEvent[], instance: string | null): NormalizedEvent[] {
  if (instance === null) return [];
  const found: number[] = [];
  for (const [name, at] of contextIndex(context).positions) if (instanceRelation(name, instance) === "same") found.push(...at);
  return found.sort((a, b) => a - b).map((i) => context[i]!);
}
