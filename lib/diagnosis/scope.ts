import type { NormalizedEvent } from "../events/model.ts";
import { canonicalInstance } from "../events/instance.ts";

/**
 * Which stored events a key's diagnosis reads, as pure predicates: the store's SQL (lib/store/diagnosis-input.ts)
 * and the evaluation over simulator output both select with these, so what is graded is what the API answers.
 *
 * 1. The key's own events (bizKey = K), plus keyless events that name one of its msgIds: client-log lines carry a
 *    message's KEYS only in detail, and transaction check-backs only the UNIQ_KEY.
 * 2. Context: keyless events (other than those in 1.) of the key's consumer groups, and keyless events without a group from the hosts
 *    involved (producer resend lines, lifecycle lines), from CONTEXT_BEFORE_MS before the key's first event to
 *    CONTEXT_AFTER_MS after its last. The tail is longer because a broker notices a vanished consumer up to
 *    120 s after its last heartbeat, and logs it then.
 */

export const CONTEXT_BEFORE_MS = 2 * 60_000;
export const CONTEXT_AFTER_MS = 3 * 60_000;

export interface ContextScope {
  groups: string[];
  hosts: string[];
  from: number;
  to: number;
}

export function msgIdsOf(events: readonly NormalizedEvent[]): string[] {
  return [...new Set(events.flatMap((e) => (e.msgId === null ? [] : [e.msgId])))];
}

export function contextScope(keyEvents: readonly NormalizedEvent[]): ContextScope | undefined {
  if (keyEvents.length === 0) return undefined;
  let first = Infinity;
  let last = -Infinity;
  const groups = new Set<string>();
  const hosts = new Set<string>();
  for (const e of keyEvents) {
    first = Math.min(first, e.ts);
    last = Math.max(last, e.ts);
    if (e.group !== null) groups.add(e.group);
    if (e.instance !== null) hosts.add(canonicalInstance(e.instance).host);
  }
  return { groups: [...groups], hosts: [...hosts], from: first - CONTEXT_BEFORE_MS, to: last + CONTEXT_AFTER_MS };
}

/** Whether a keyless event belongs to the context of a key with this scope. */
export function inContext(event: NormalizedEvent, scope: ContextScope): boolean {
  if (event.bizKey !== null || event.ts < scope.from || event.ts > scope.to) return false;
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
