import type { NormalizedEvent } from "../events/model.ts";
import { canonicalInstance } from "../events/instance.ts";

/**
 * Which stored events a key's diagnosis reads, as pure predicates: the store's SQL (lib/queries/diagnosis-input.ts)
 * and the evaluation over simulator output both select with these, so what is graded is what the API answers.
 *
 * 1. The key's own events (bizKey = K), plus keyless events that name one of its msgIds: client-log lines carry a
 *    message's KEYS only in detail, and transaction check-backs only the UNIQ_KEY.
 * 2. Context: keyless events (other than those in 1.) of the key's consumer groups, and keyless events without a group from the hosts
 *    involved (producer resend lines, lifecycle lines), from CONTEXT_BEFORE_MS before each of the key's events to
 *    CONTEXT_AFTER_MS after it, the overlapping stretches merged. The tail is longer because a broker notices a
 *    vanished consumer up to 120 s after its last heartbeat, and logs it then. A key whose events lie hours apart
 *    (a DLQ replay, a delayed message, a resend the next morning) reads the minutes around each of them, not every
 *    rebalance of its group in between: those explain nothing about either delivery, and on a 10M-event store such
 *    keys read up to 7,000 lines. Left out: a line about one consumption of another message (a kind outside
 *    CONTEXT_KINDS whose line names that message's KEYS, none of them this key's). Diagnosis reads such a line only
 *    as one of the key's own events, which it is not; in a group whose consumers keep failing, a key's windows held
 *    a hundred of them, up to half its context, and the API listed them all.
 *
 * What the groups looked like (their members, clientIds and message model), which lines logged once and long ago
 * tell, is not read from raw lines: it is the groups' state over time (members.ts), which outlives them.
 */

export const CONTEXT_BEFORE_MS = 2 * 60_000;
export const CONTEXT_AFTER_MS = 3 * 60_000;

/** Kinds diagnosis reads from the context: who owned the queue, whether the process lived, the producer's sends. */
export const CONTEXT_KINDS: ReadonlySet<string> = new Set(["rebalance", "instance_lifecycle", "send_attempt", "transaction"]);

export interface ContextWindow {
  from: number;
  to: number;
}

export interface ContextScope {
  /** The key itself (its events' bizKey). */
  bizKeys: string[];
  groups: string[];
  hosts: string[];
  /** The key's instances, canonical (`host@pid` where a pid is known), for which of the groups' connections are its own. */
  processes: string[];
  /** In time order, none overlapping. */
  windows: ContextWindow[];
}

export function msgIdsOf(events: readonly NormalizedEvent[]): string[] {
  return [...new Set(events.flatMap((e) => (e.msgId === null ? [] : [e.msgId])))];
}

export function contextScope(keyEvents: readonly NormalizedEvent[]): ContextScope | undefined {
  if (keyEvents.length === 0) return undefined;
  const bizKeys = new Set<string>();
  const groups = new Set<string>();
  const hosts = new Set<string>();
  const processes = new Set<string>();
  for (const e of keyEvents) {
    if (e.bizKey !== null) bizKeys.add(e.bizKey);
    if (e.group !== null) groups.add(e.group);
    if (e.instance === null) continue;
    const identity = canonicalInstance(e.instance);
    hosts.add(identity.host);
    processes.add(identity.canonical);
  }
  const windows = mergeWindows(keyEvents.map((e) => ({ from: e.ts - CONTEXT_BEFORE_MS, to: e.ts + CONTEXT_AFTER_MS })));
  return { bizKeys: [...bizKeys], groups: [...groups], hosts: [...hosts], processes: [...processes], windows };
}

/** Windows sorted by start, overlapping or touching ones joined. */
export function mergeWindows(windows: readonly ContextWindow[]): ContextWindow[] {
  const sorted = [...windows].sort((a, b) => a.from - b.from);
  const merged: ContextWindow[] = [];
  for (const w of sorted) {
    const last = merged[merged.length - 1];
    if (last && w.from <= last.to) last.to = Math.max(last.to, w.to);
    else merged.push({ ...w });
  }
  return merged;
}

/** The KEYS a keyless line names for the one message it is about, when it is not a line diagnosis reads as context. */
export function otherMessageKeys(event: NormalizedEvent): string[] | null {
  if (CONTEXT_KINDS.has(event.kind)) return null;
  const keys = event.detail.keys;
  if (!Array.isArray(keys) || keys.length === 0) return null;
  return keys.filter((k): k is string => typeof k === "string");
}

/** Whether a keyless event belongs to the context of a key with this scope. */
export function inContext(event: NormalizedEvent, scope: ContextScope): boolean {
  if (event.bizKey !== null || !scope.windows.some((w) => event.ts >= w.from && event.ts <= w.to)) return false;
  const keys = otherMessageKeys(event);
  if (keys !== null && !keys.some((k) => scope.bizKeys.includes(k))) return false;
  return fromScopeSources(event, scope);
}

/** Of the key's consumer groups, or without a group from one of its hosts: the part of inContext that is not time or keys. */
export function fromScopeSources(event: NormalizedEvent, scope: ContextScope): boolean {
  if (event.group !== null) return scope.groups.includes(event.group);
  return event.instance !== null && scope.hosts.includes(canonicalInstance(event.instance).host);
}

/** The context of a key among candidate keyless events: in scope, and not already one of the key's own events. */
export function contextOf(keyEvents: readonly NormalizedEvent[], candidates: readonly NormalizedEvent[]): NormalizedEvent[] {
  const scope = contextScope(keyEvents);
  if (!scope) return [];
  const own = new Set(keyEvents.map((e) => e.id));
  return candidates.filter((e) => !own.has(e.id) && inContext(e, scope));
}
