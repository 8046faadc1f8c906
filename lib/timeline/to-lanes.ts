import type { ConsumeStatus, Delivery, Effect } from "../diagnosis/types.ts";
import { sourceKind } from "../diagnosis/sources.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { canonicalInstance, sameProcess } from "../events/instance.ts";

/**
 * A key's events as swim lanes, one per process: producers, each consumer instance, brokers (Jaeger's
 * generateRowStates, for one business key). Pure data for components/timeline to draw: consumptions are spans
 * from the diagnosis' deliveries, everything else is a mark on the lane of the process that did it, and each
 * duplicate becomes a gap between the starts of its two consumptions.
 */

export type LaneRole = "producer" | "consumer" | "broker";

export type MarkKind =
  | "publish"
  | "send"
  | "ack"
  | "dedup_pass"
  | "dedup_hit"
  | "dedup_released"
  | "effect"
  | "effect_failed"
  | "rebalance"
  | "joined"
  | "left"
  | "vanished"
  | "lifecycle"
  | "transaction";

export interface Mark {
  eventId: string;
  ts: number;
  kind: MarkKind;
  /** A technical word or two for the tooltip (`redis`, `remove broker-a:3`); never a sentence. */
  note: string | null;
  /** From the key's surroundings (its group's rebalances and lifecycle), not from its own events. */
  context: boolean;
}

export interface ConsumeSpan {
  deliveryId: string;
  eventId: string;
  start: number;
  end: number | null;
  status: ConsumeStatus;
  effect: Effect;
  retryTimes: number | null;
  direct: boolean;
  queue: string | null;
}

export interface Lane {
  id: string;
  role: LaneRole;
  /** The most specific name of the process (`ip@pid` over a bare host), or the broker's name. */
  label: string;
  groups: string[];
  spans: ConsumeSpan[];
  marks: Mark[];
}

export interface GapMarker {
  fromLane: string;
  toLane: string;
  from: number;
  to: number;
  gapMs: number;
  /** Index of the duplicate in the key report. */
  duplicate: number;
}

export interface Timeline {
  lanes: Lane[];
  gaps: GapMarker[];
  start: number;
  end: number;
}

export interface TimelineInput {
  events: readonly NormalizedEvent[];
  context: readonly NormalizedEvent[];
  deliveries: readonly Delivery[];
  duplicates: readonly { deliveries: readonly [string, string]; gapMs: number }[];
  /** Events the verdicts cite as evidence: shown however far from the key's own events they are. */
  cited?: readonly string[];
}

/**
 * Surroundings are kept within this much of the key's own events (and at least a share of their span), so a
 * group's busy five minutes do not squeeze the key's second into a dot; cited events are always kept.
 */
const CONTEXT_PAD_MS = 2000;
const CONTEXT_PAD_SHARE = 0.15;

/** Rebalance lines that say nothing changed. */
const QUIET_ACTIONS = new Set(["exists"]);
const JOINED = new Set(["start", "connected"]);
const LEFT = new Set(["shutdown", "unregistered"]);
const VANISHED = new Set(["channel_inactive", "channel_expired", "connection_closed", "channel_closed", "poll_timeout", "ack_timeout"]);
const CONTEXT_KINDS = new Set(["rebalance", "instance_lifecycle", "transaction", "send_attempt"]);

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const specificity = (name: string) => (canonicalInstance(name).process === undefined ? 1 : 0);

class LaneSet {
  private readonly lanes = new Map<string, Lane>();

  /** The lane of this process in this role: an exact name, else the one lane its host-only name can be. */
  find(role: LaneRole, instance: string): Lane | undefined {
    const exact = this.lanes.get(`${role}:${instance}`);
    if (exact) return exact;
    const candidates = [...this.lanes.values()].filter((l) => l.role === role && sameProcess(l.label, instance));
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  get(role: LaneRole, instance: string): Lane {
    const found = this.find(role, instance);
    if (found) {
      // A bare host seen first is renamed once a source names the process.
      if (specificity(instance) < specificity(found.label)) found.label = instance;
      return found;
    }
    const lane: Lane = { id: `${role}:${instance}`, role, label: instance, groups: [], spans: [], marks: [] };
    this.lanes.set(lane.id, lane);
    return lane;
  }

  all(): Lane[] {
    return [...this.lanes.values()];
  }
}

function markOf(e: NormalizedEvent, context: boolean): Mark | null {
  const action = text(e.detail.action);
  const layer = text(e.detail.layer);
  const base = { eventId: e.id, ts: e.ts, context };
  switch (e.kind) {
    case "publish":
      return { ...base, kind: "publish", note: e.queue };
    case "send_attempt":
      return { ...base, kind: "send", note: e.success === false ? "failed" : null };
    case "ack":
      return { ...base, kind: "ack", note: null };
    case "dedup": {
      const decision = text(e.detail.decision);
      const kind = decision === "hit" ? "dedup_hit" : decision === "released" ? "dedup_released" : "dedup_pass";
      return { ...base, kind, note: layer };
    }
    case "business_effect":
      return { ...base, kind: text(e.detail.decision) === "failed" || e.success === false ? "effect_failed" : "effect", note: layer };
    case "rebalance":
      return action !== null && QUIET_ACTIONS.has(action) ? null : { ...base, kind: "rebalance", note: [action, e.queue].filter(Boolean).join(" ") || null };
    case "instance_lifecycle": {
      const kind = action === null ? "lifecycle" : JOINED.has(action) ? "joined" : LEFT.has(action) ? "left" : VANISHED.has(action) ? "vanished" : "lifecycle";
      return { ...base, kind, note: action };
    }
    case "transaction":
      return { ...base, kind: "transaction", note: e.detail.checkback === true ? "check-back" : action };
    default:
      return null;
  }
}

const isBrokerEvent = (e: NormalizedEvent) => sourceKind(e) === "broker_log";
const brokerName = (e: NormalizedEvent) => text(e.detail.brokerInstance) ?? "broker";

export function toLanes(input: TimelineInput): Timeline {
  const lanes = new LaneSet();
  const laneOfDelivery = new Map<string, Lane>();
  const inDelivery = new Set<string>();

  // Processes named with their pid first, so a trace's bare host joins the process it belongs to.
  const deliveries = [...input.deliveries].sort((a, b) => specificity(a.instance ?? "") - specificity(b.instance ?? "") || a.start - b.start);
  for (const d of deliveries) {
    const lane = lanes.get("consumer", d.instance ?? "?");
    if (d.group !== null && !lane.groups.includes(d.group)) lane.groups.push(d.group);
    lane.spans.push({
      deliveryId: d.id,
      eventId: d.startEventId,
      start: d.start,
      end: d.end,
      status: d.consume,
      effect: d.effect,
      retryTimes: d.retryTimes,
      direct: d.direct,
      queue: d.queue,
    });
    laneOfDelivery.set(d.id, lane);
    for (const id of d.eventIds) inDelivery.add(id);
    for (const dedup of d.dedup) inDelivery.add(dedup.eventId);
  }
  const deliveryOfEvent = new Map<string, Lane>();
  for (const d of input.deliveries) {
    const lane = laneOfDelivery.get(d.id)!;
    for (const id of [...d.eventIds, ...d.dedup.map((x) => x.eventId)]) deliveryOfEvent.set(id, lane);
  }

  const queues = new Set(input.deliveries.map((d) => d.queue).filter((q): q is string => q !== null));
  const msgIds = new Set(input.events.map((e) => e.msgId).filter((m): m is string => m !== null));

  const place = (e: NormalizedEvent, context: boolean) => {
    // A consumption is drawn as its span; its start and end records need no marks of their own.
    if ((e.kind === "consume_start" || e.kind === "consume_end") && inDelivery.has(e.id)) return;
    const mark = markOf(e, context);
    if (!mark) return;
    let lane: Lane | undefined;
    if (isBrokerEvent(e)) {
      // A broker line about a consumer of this key (its connection dropped), or about the key's message.
      if (context && !(e.instance !== null && lanes.find("consumer", e.instance)) && !(e.msgId !== null && msgIds.has(e.msgId))) return;
      lane = lanes.get("broker", brokerName(e));
    } else if (e.kind === "publish" || e.kind === "send_attempt") {
      if (context && !(e.msgId !== null && msgIds.has(e.msgId))) return;
      lane = lanes.get("producer", e.instance ?? "producer");
    } else if (!context) {
      lane = deliveryOfEvent.get(e.id) ?? (e.instance === null ? undefined : lanes.find("consumer", e.instance) ?? lanes.get("consumer", e.instance));
    } else {
      // Surroundings only on the lanes of processes that handled the key; a moved queue only if the key sat in it.
      if (e.instance === null) return;
      lane = lanes.find("consumer", e.instance) ?? lanes.find("producer", e.instance);
      if (e.kind === "rebalance" && e.queue !== null && !queues.has(e.queue)) return;
    }
    lane?.marks.push(mark);
  };
  // Own events first: they create the producer and broker lanes that context events may join.
  for (const e of input.events) place(e, false);
  for (const e of input.context) if (CONTEXT_KINDS.has(e.kind)) place(e, true);

  const gaps: GapMarker[] = [];
  input.duplicates.forEach((v, index) => {
    const first = input.deliveries.find((d) => d.id === v.deliveries[0]);
    const second = input.deliveries.find((d) => d.id === v.deliveries[1]);
    if (!first || !second) return;
    gaps.push({ fromLane: laneOfDelivery.get(first.id)!.id, toLane: laneOfDelivery.get(second.id)!.id, from: first.start, to: second.start, gapMs: v.gapMs, duplicate: index });
  });

  const cited = new Set(input.cited ?? []);
  const own = [...input.events.map((e) => e.ts), ...input.deliveries.flatMap((d) => (d.end === null ? [d.start] : [d.start, d.end]))];
  if (own.length > 0) {
    const [first, last] = [Math.min(...own), Math.max(...own)];
    const pad = Math.max(CONTEXT_PAD_MS, (last - first) * CONTEXT_PAD_SHARE);
    for (const lane of lanes.all()) lane.marks = lane.marks.filter((m) => !m.context || cited.has(m.eventId) || (m.ts >= first - pad && m.ts <= last + pad));
  }
  const all = lanes.all().filter((l) => l.spans.length > 0 || l.marks.length > 0);
  const firstTs = (l: Lane) => Math.min(...l.spans.map((s) => s.start), ...l.marks.map((m) => m.ts));
  const roleOrder: Record<LaneRole, number> = { producer: 0, consumer: 1, broker: 2 };
  all.sort((a, b) => roleOrder[a.role] - roleOrder[b.role] || firstTs(a) - firstTs(b) || (a.label < b.label ? -1 : 1));
  for (const lane of all) lane.marks.sort((a, b) => a.ts - b.ts);

  const times = all.flatMap((l) => [...l.spans.flatMap((s) => (s.end === null ? [s.start] : [s.start, s.end])), ...l.marks.map((m) => m.ts)]);
  return { lanes: all, gaps, start: times.length > 0 ? Math.min(...times) : 0, end: times.length > 0 ? Math.max(...times) : 0 };
}
