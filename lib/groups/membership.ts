import type { NormalizedEvent } from "../events/model.ts";
import { canonicalInstance, sameProcess } from "../events/instance.ts";

/**
 * A group's instances over time: each process from its first to its last sign of life in the group's lifecycle and
 * rebalance lines, with its joins, clean leaves and disappearances marked. The broker names a vanished consumer by
 * host alone when its heartbeat expired; that joins the one process of the group on that host.
 */

export type MembershipChange = "joined" | "left" | "vanished";

export interface InstanceSpan {
  instance: string;
  first: number;
  last: number;
  changes: { ts: number; change: MembershipChange; eventId: string }[];
}

const CHANGES: Record<string, MembershipChange> = {
  start: "joined",
  connected: "joined",
  shutdown: "left",
  unregistered: "left",
  channel_inactive: "vanished",
  channel_expired: "vanished",
  connection_closed: "vanished",
  channel_closed: "vanished",
  poll_timeout: "vanished",
};

export function instancesOverTime(events: readonly NormalizedEvent[]): InstanceSpan[] {
  const spans: InstanceSpan[] = [];
  const relevant = events.filter((e) => (e.kind === "instance_lifecycle" || e.kind === "rebalance") && e.instance !== null).sort((a, b) => a.ts - b.ts);
  // Named processes first, so a bare host can join the one process it stands for.
  const named = (e: NormalizedEvent) => canonicalInstance(e.instance!).process !== undefined;
  for (const e of [...relevant.filter(named), ...relevant.filter((x) => !named(x))]) {
    const instance = e.instance!;
    let span = spans.find((s) => s.instance === instance);
    if (!span && !named(e)) {
      const candidates = spans.filter((s) => sameProcess(s.instance, instance) && s.first <= e.ts + 1000);
      // The latest process on the host that was alive before: a restarted host has several.
      span = candidates.sort((a, b) => b.first - a.first)[0];
    }
    if (!span) {
      span = { instance, first: e.ts, last: e.ts, changes: [] };
      spans.push(span);
    }
    span.first = Math.min(span.first, e.ts);
    span.last = Math.max(span.last, e.ts);
    const change = e.kind === "instance_lifecycle" && typeof e.detail.action === "string" ? CHANGES[e.detail.action] : undefined;
    if (change) span.changes.push({ ts: e.ts, change, eventId: e.id });
  }
  for (const s of spans) s.changes.sort((a, b) => a.ts - b.ts);
  return spans.sort((a, b) => a.first - b.first || (a.instance < b.instance ? -1 : 1));
}
