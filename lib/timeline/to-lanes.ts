import { consumedBeforeSent, orderPair } from "../diagnosis/clock-order.ts";
import type { ConsumeStatus, Delivery, Effect } from "../diagnosis/types.ts";
import { isEffectRow } from "../diagnosis/effect-rows.ts";
import { sourceKind } from "../diagnosis/sources.ts";
import type { Broker, NormalizedEvent } from "../events/model.ts";
import { canonicalInstance, sameProcess } from "../events/instance.ts";
import { deadLetters, shovelNote } from "./amqp-marks.ts";
import { channelName, clientNames, insideBroker, shortName, type ChannelName } from "./amqp-names.ts";

/**
 * A key's events as swim lanes, one per process: producers, each consumer instance, brokers (Jaeger's
 * generateRowStates, for one business key). Pure data for components/timeline to draw: consumptions are spans
 * from the diagnosis' deliveries, everything else is a mark on the lane of the process that did it, and each
 * duplicate becomes a gap between the starts of its two consumptions.
 *
 * RabbitMQ has no consumer process on the wire: its "process" is a connection's channel, so a RabbitMQ key gets a
 * lane per publishing and per consuming channel. The broker's own account goes on one broker lane: each delivery
 * (flagged redelivered or not, from the firehose), the closes of the key's consumers that made it requeue, and the
 * copy's way back through a dead-letter queue and a shovel, which run inside the broker.
 *
 * Rows of the application's business table read by `dupscope probe` (docs/probe.md) are the table's account, not a
 * process's: each probe gets a `table` lane after the consumers, one `row` mark per row at its time by the database's
 * clock, named by the row's key columns and state. They never go on a consumer's lane, where they would read as the
 * consumer's own dedup or effect lines.
 */

export type LaneRole = "producer" | "consumer" | "table" | "broker";

export type MarkKind =
  | "publish"
  | "send"
  | "ack"
  | "dedup_pass"
  | "dedup_hit"
  | "dedup_released"
  | "effect"
  | "effect_failed"
  | "row"
  | "rebalance"
  | "joined"
  | "left"
  | "vanished"
  | "lifecycle"
  | "transaction"
  | "deliver"
  | "redeliver"
  | "dead_letter"
  | "shovel"
  | "closed";

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
  /** AMQP's flag: the broker had delivered this message before. */
  redelivered: boolean | null;
  queue: string | null;
}

export interface Lane {
  id: string;
  role: LaneRole;
  /**
   * The most specific name of the process (`ip@pid` over a bare host, a RabbitMQ `<connection>@<channel>`), the
   * broker's name, or for a `table` lane the probe's name.
   */
  label: string;
  /** A RabbitMQ channel's readable parts (client's connection name, address, channel); null for other lanes. */
  channel: ChannelName | null;
  groups: string[];
  spans: ConsumeSpan[];
  marks: Mark[];
}

/** A duplicate's two consumptions, in the diagnosis's order: `from` may lie right of `to` when the clocks disagree. */
export interface GapMarker {
  fromLane: string;
  toLane: string;
  /** The deliveries' ids, first then repeat. */
  deliveries: [string, string];
  from: number;
  to: number;
  /** Never negative (lib/diagnosis/clock-order.ts). */
  gapMs: number;
  /** How far the clocks put the repeat before the first; 0 when they agree. */
  clockSkewMs: number;
  /** Index of the duplicate in the key report. */
  duplicate: number;
}

/** A consumption stamped before every send of its message: the consumer's and producer's clocks disagree by `clockSkewMs`. */
export interface SendSkew {
  deliveryId: string;
  lane: string;
  clockSkewMs: number;
}

export interface Timeline {
  lanes: Lane[];
  gaps: GapMarker[];
  sendSkews: SendSkew[];
  start: number;
  end: number;
}

export interface TimelineInput {
  events: readonly NormalizedEvent[];
  context: readonly NormalizedEvent[];
  deliveries: readonly Delivery[];
  duplicates: readonly { deliveries: readonly [string, string] }[];
  /** Events the verdicts cite as evidence: shown however far from the key's own events they are. */
  cited?: readonly string[];
}

/**
 * Surroundings are kept within this much of the key's own events (and at least a share of their span), so a
 * group's busy five minutes do not squeeze the key's second into a dot; cited events are always kept.
 */
const CONTEXT_PAD_MS = 2000;
const CONTEXT_PAD_SHARE = 0.15;

/** Lines that say nothing changed (a RocketMQ rebalance finding a queue it holds already). */
const QUIET_ACTIONS = new Set(["exists"]);
const JOINED = new Set(["start", "connected", "connection_opened", "channel_opened"]);
const LEFT = new Set(["shutdown", "unregistered"]);
const VANISHED = new Set(["channel_inactive", "channel_expired", "connection_lost", "heartbeat_missed", "poll_timeout", "ack_timeout"]);
/** A RabbitMQ channel or connection closed, cleanly or not: either way the broker requeues its unacked deliveries. */
const CLOSED = new Set(["connection_closed", "channel_closed"]);
const CONTEXT_KINDS = new Set(["rebalance", "instance_lifecycle", "transaction", "send_attempt"]);

/**
 * The broker's event exchange and its server log both report a connection closing or dying; the two reports of
 * one act lie within this of each other and are drawn once (the cited one, else the first). Deliveries are never
 * merged: two deliveries to one consumer in quick succession are two.
 */
const SAME_ACT_MS = 2000;
const ECHOED: ReadonlySet<MarkKind> = new Set(["closed", "vanished"]);

function withoutEchoes(marks: Mark[], cited: ReadonlySet<string>): Mark[] {
  const kept: Mark[] = [];
  for (const m of marks) {
    const twin = ECHOED.has(m.kind) ? kept.findIndex((k) => k.kind === m.kind && k.note === m.note && Math.abs(m.ts - k.ts) <= SAME_ACT_MS) : -1;
    if (twin < 0) kept.push(m);
    else if (cited.has(m.eventId) && !cited.has(kept[twin]!.eventId)) kept[twin] = m;
  }
  return kept;
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const specificity = (name: string) => (canonicalInstance(name).process === undefined ? 1 : 0);

class LaneSet {
  private readonly lanes = new Map<string, Lane>();
  private readonly amqp = new Set<string>();

  /** @param names the client-given names of the key's RabbitMQ connections (amqp-names.ts) */
  constructor(private readonly names: ReadonlyMap<string, string>) {}

  /** The lane of this process in this role: an exact name, else the one lane its host-only name can be. */
  find(role: LaneRole, instance: string): Lane | undefined {
    const exact = this.lanes.get(`${role}:${instance}`);
    if (exact) return exact;
    const candidates = [...this.lanes.values()].filter((l) => l.role === role && sameProcess(l.label, instance));
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  /** Whether any lane in this role can be this process: a RabbitMQ connection-level event is about all its channels. */
  touches(role: LaneRole, instance: string): boolean {
    return [...this.lanes.values()].some((l) => l.role === role && sameProcess(l.label, instance));
  }

  get(role: LaneRole, instance: string, broker: Broker | null = null): Lane {
    const lane = this.find(role, instance) ?? this.add(role, instance);
    // A bare host seen first is renamed once a source names the process.
    if (specificity(instance) < specificity(lane.label)) lane.label = instance;
    if (broker === "rabbitmq" && role !== "broker") this.amqp.add(lane.id);
    if (this.amqp.has(lane.id)) lane.channel = channelName(lane.label, this.names);
    return lane;
  }

  /** The lane of one probe's business-table rows: by its exact name, never joined to a process. */
  table(probe: string): Lane {
    return this.lanes.get(`table:${probe}`) ?? this.add("table", probe);
  }

  private add(role: LaneRole, instance: string): Lane {
    const lane: Lane = { id: `${role}:${instance}`, role, label: instance, channel: null, groups: [], spans: [], marks: [] };
    this.lanes.set(lane.id, lane);
    return lane;
  }

  all(): Lane[] {
    return [...this.lanes.values()];
  }
}

/** A detail value as a short text: plain values as they are, anything else as JSON. */
const shown = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/** A business-table row's mark: its key columns (`id=101`, `order_id=…, line=2`) and its state, if the probe read one. */
function rowMark(e: NormalizedEvent): Mark {
  const row = e.detail.row;
  const key =
    row !== null && typeof row === "object" && !Array.isArray(row)
      ? Object.entries(row)
          .map(([column, value]) => `${column}=${shown(value)}`)
          .join(", ")
      : null;
  const state = e.detail.state === undefined || e.detail.state === null ? null : shown(e.detail.state);
  return { eventId: e.id, ts: e.ts, kind: "row", note: [key || null, state].filter(Boolean).join(" · ") || null, context: false };
}

function markOf(e: NormalizedEvent, context: boolean): Mark | null {
  const action = text(e.detail.action);
  const layer = text(e.detail.layer);
  const base = { eventId: e.id, ts: e.ts, context };
  switch (e.kind) {
    case "publish": {
      const shovel = shovelNote(e);
      return shovel === null ? { ...base, kind: "publish", note: e.queue } : { ...base, kind: "shovel", note: shovel };
    }
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
      return { ...base, kind: "rebalance", note: [action, e.queue].filter(Boolean).join(" ") || null };
    case "instance_lifecycle": {
      if (action !== null && QUIET_ACTIONS.has(action)) return null;
      const kind =
        action === null ? "lifecycle" : JOINED.has(action) ? "joined" : LEFT.has(action) ? "left" : VANISHED.has(action) ? "vanished" : CLOSED.has(action) ? "closed" : "lifecycle";
      return { ...base, kind, note: action };
    }
    case "transaction":
      return { ...base, kind: "transaction", note: e.detail.checkback === true ? "check-back" : action };
    default:
      return null;
  }
}

/**
 * What the broker itself reports: broker logs; RabbitMQ's channel and connection closes, losses and ack timeouts
 * (event exchange, server log, whatever `source` they were ingested under), after which it requeues unacknowledged
 * deliveries; and a copy a shovel published back, which is the broker moving the message, not an application
 * producing it.
 */
function isBrokerEvent(e: NormalizedEvent): boolean {
  if (sourceKind(e) === "broker_log") return true;
  if (e.broker !== "rabbitmq") return false;
  if (e.kind === "instance_lifecycle") {
    const action = text(e.detail.action) ?? "";
    return CLOSED.has(action) || VANISHED.has(action);
  }
  return e.kind === "publish" && ((e.instance !== null && insideBroker(e.instance)) || shovelNote(e) !== null);
}

/**
 * One lane for the RabbitMQ broker, named by the nodes the key's traces passed: the event exchange's channel and
 * consumer events name no node, and a cluster shares its queues, so these cannot be told apart per node.
 */
function rabbitBrokerName(events: readonly NormalizedEvent[]): string {
  const nodes = [...new Set(events.flatMap((e) => (e.broker === "rabbitmq" && text(e.detail.node) !== null ? [text(e.detail.node)!] : [])))].sort();
  return nodes.length > 0 ? nodes.join(", ") : "rabbitmq";
}

export function toLanes(input: TimelineInput): Timeline {
  const names = clientNames([...input.events, ...input.context]);
  const lanes = new LaneSet(names);
  const laneOfDelivery = new Map<string, Lane>();
  const inDelivery = new Set<string>();
  const eventById = new Map(input.events.map((e) => [e.id, e]));
  const rabbitBroker = rabbitBrokerName(input.events);
  const brokerLane = (broker: Broker, named: string | null) => lanes.get("broker", broker === "rabbitmq" ? rabbitBroker : (named ?? "broker"));
  /** How a broker-lane mark names the process it is about. */
  const who = (instance: string, broker: Broker) => (broker === "rabbitmq" ? shortName(channelName(instance, names)) : instance);

  // Processes named with their pid first, so a trace's bare host joins the process it belongs to.
  const deliveries = [...input.deliveries].sort((a, b) => specificity(a.instance ?? "") - specificity(b.instance ?? "") || a.start - b.start);
  for (const d of deliveries) {
    if (d.broker === "rabbitmq" && d.instance !== null && insideBroker(d.instance)) {
      // A shovel taking the copy out of a queue inside the broker: shown as what the broker did with it
      // (dead-lettered, shovelled back), not as a consumer of the key.
      laneOfDelivery.set(d.id, brokerLane(d.broker, null));
      for (const id of d.eventIds) inDelivery.add(id);
      continue;
    }
    const lane = lanes.get("consumer", d.instance ?? "?", d.broker);
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
      redelivered: d.redelivered,
      queue: d.queue,
    });
    laneOfDelivery.set(d.id, lane);
    for (const id of d.eventIds) inDelivery.add(id);
    for (const dedup of d.dedup) inDelivery.add(dedup.eventId);
    const start = eventById.get(d.startEventId);
    if (d.broker === "rabbitmq" && start?.kind === "consume_start") {
      // An AMQP delivery is the broker's act (the firehose's deliver record, or a consumer reporting basic.deliver):
      // whom it handed the message to, and whether it flagged it as seen before. Not told by `source`, which an
      // operator may name at will.
      const note = `${d.queue === null ? "" : `${d.queue} `}→ ${who(lane.label, d.broker)}`;
      brokerLane(d.broker, null).marks.push({ eventId: start.id, ts: start.ts, kind: d.redelivered === true ? "redeliver" : "deliver", note, context: false });
    }
  }
  for (const { event, note } of deadLetters(input.events.filter((e) => e.broker === "rabbitmq"))) {
    brokerLane(event.broker, null).marks.push({ eventId: event.id, ts: event.ts, kind: "dead_letter", note, context: false });
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
    if (isEffectRow(e)) {
      if (context) return;
      const lane = lanes.table(text(e.detail.probe)!);
      if (e.group !== null && !lane.groups.includes(e.group)) lane.groups.push(e.group);
      lane.marks.push(rowMark(e));
      return;
    }
    const mark = markOf(e, context);
    if (!mark) return;
    let lane: Lane | undefined;
    if (isBrokerEvent(e)) {
      // A broker line about a consumer of this key (its connection dropped), or about the key's message.
      if (context && !(e.instance !== null && lanes.touches("consumer", e.instance)) && !(e.msgId !== null && msgIds.has(e.msgId))) return;
      lane = brokerLane(e.broker, text(e.detail.brokerInstance));
      // The broker lane holds every consumer's connection events: each says whose.
      if (e.kind === "instance_lifecycle" && e.instance !== null) mark.note = [mark.note, who(e.instance, e.broker)].filter(Boolean).join(" ");
    } else if (e.kind === "publish" || e.kind === "send_attempt") {
      if (context && !(e.msgId !== null && msgIds.has(e.msgId))) return;
      lane = lanes.get("producer", e.instance ?? "producer", e.broker);
    } else if (!context) {
      lane = deliveryOfEvent.get(e.id) ?? (e.instance === null ? undefined : lanes.find("consumer", e.instance) ?? lanes.get("consumer", e.instance, e.broker));
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
    const pair = orderPair(first, second);
    gaps.push({
      fromLane: laneOfDelivery.get(pair.first.id)!.id,
      toLane: laneOfDelivery.get(pair.second.id)!.id,
      deliveries: [pair.first.id, pair.second.id],
      from: pair.first.start,
      to: pair.second.start,
      gapMs: pair.gapMs,
      clockSkewMs: pair.clockSkewMs,
      duplicate: index,
    });
  });
  const sendSkews = input.deliveries.flatMap((d): SendSkew[] => {
    const sends = input.events.filter((e) => (e.kind === "publish" || e.kind === "send_attempt") && e.msgId !== null && e.msgId === d.msgId).map((e) => e.ts);
    const clockSkewMs = consumedBeforeSent(d.start, sends);
    return clockSkewMs > 0 ? [{ deliveryId: d.id, lane: laneOfDelivery.get(d.id)!.id, clockSkewMs }] : [];
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
  const roleOrder: Record<LaneRole, number> = { producer: 0, consumer: 1, table: 2, broker: 3 };
  all.sort((a, b) => roleOrder[a.role] - roleOrder[b.role] || firstTs(a) - firstTs(b) || (a.label < b.label ? -1 : 1));
  for (const lane of all) {
    lane.marks.sort((a, b) => a.ts - b.ts);
    if (lane.role === "broker") lane.marks = withoutEchoes(lane.marks, cited);
  }

  const times = all.flatMap((l) => [...l.spans.flatMap((s) => (s.end === null ? [s.start] : [s.start, s.end])), ...l.marks.map((m) => m.ts)]);
  return { lanes: all, gaps, sendSkews, start: times.length > 0 ? Math.min(...times) : 0, end: times.length > 0 ? Math.max(...times) : 0 };
}
