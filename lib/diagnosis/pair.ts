import type { NormalizedEvent } from "../events/model.ts";
import type { MessageFacts } from "./copies.ts";
import type { HoldingInterval } from "./holdings.ts";
import type { MemberInterval } from "./members.ts";
import { evidence, type Evidence } from "./evidence.ts";
import { instanceRelation } from "./identity.ts";
import type { Cause } from "./vocabulary.ts";
import type { Delivery, DiagnosisOptions } from "./types.ts";

/**
 * Two deliveries of one key to one group — the earlier one and the one that repeats it — with everything a rule
 * may consult. Rules only read a Pair; building it is the one place that looks things up.
 */
export interface Pair {
  first: Delivery;
  second: Delivery;
  /** Every delivery of the group, in order (some rules compare the pair with its siblings). */
  siblings: Delivery[];
  gapMs: number;
  /** null when either msgId is unknown. */
  sameMsgId: boolean | null;
  copy: CopyRelation;
  firstMsg: MessageFacts | null;
  secondMsg: MessageFacts | null;
  /** Rebalance, lifecycle, send_attempt and transaction events around the key. */
  context: readonly NormalizedEvent[];
  /** The key's groups' members over time: connections, clientIds, message model (members.ts). */
  members: readonly MemberInterval[];
  /** Who held the key's queues over time (holdings.ts). */
  holdings: readonly HoldingInterval[];
  /** The key's own events by id, to read the records a delivery was built from. */
  byId: ReadonlyMap<string, NormalizedEvent>;
  /** The group's rows of the business table (`dupscope probe`), in time order: one per committed side effect. */
  rows: readonly NormalizedEvent[];
  options: DiagnosisOptions;
}

/** Whether the two deliveries read the same stored copy (a redelivery) or two copies (a second write). */
export interface CopyRelation {
  relation: "same" | "different" | "unknown";
  evidence: Evidence[];
}

export interface RuleResult {
  cause: Cause;
  score: number;
  evidence: Evidence[];
}

export type CauseRule = (pair: Pair) => RuleResult | null;

/**
 * offsetMsgId names a stored copy exactly; a queue position does too, but only between deliveries of the same
 * retry round (each consumer retry is a new copy in the retry topic). Kafka's msgId is `topic-partition@offset`,
 * so one msgId is one copy. RabbitMQ marks every copy it hands out again `redelivered`, also after a restart, so a
 * later delivery without the flag is another copy (formats.md §4).
 */
export function copyRelation(first: Delivery, second: Delivery): CopyRelation {
  const ids = [first.startEventId, second.startEventId];
  if (first.msgId !== null && second.msgId !== null && first.msgId !== second.msgId) {
    return { relation: "different", evidence: [evidence("different_msg_ids", "cause", ids, { first: first.msgId, second: second.msgId })] };
  }
  if (first.offsetMsgId !== null && second.offsetMsgId !== null) {
    return compare(first.offsetMsgId, second.offsetMsgId, ids);
  }
  if (first.retryTimes === second.retryTimes && first.queue !== null && second.queue !== null && first.queueOffset !== null && second.queueOffset !== null) {
    return compare(`${first.queue}@${first.queueOffset}`, `${second.queue}@${second.queueOffset}`, ids);
  }
  if (first.broker === "kafka" && first.msgId !== null && first.msgId === second.msgId) {
    return { relation: "same", evidence: [evidence("same_copy", "cause", ids, { copy: first.msgId })] };
  }
  if (second.broker === "rabbitmq" && second.redelivered === false) {
    return { relation: "different", evidence: [evidence("not_redelivered", "cause", [second.startEventId], { instance: second.instance, ts: second.start })] };
  }
  return { relation: "unknown", evidence: [] };
}

function compare(a: string, b: string, ids: string[]): CopyRelation {
  return a === b
    ? { relation: "same", evidence: [evidence("same_copy", "cause", ids, { copy: a })] }
    : { relation: "different", evidence: [evidence("copies_differ", "cause", ids, { first: a, second: b })] };
}

/** Both deliveries are first deliveries of their copy (retryTimes 0): no consumer retry is involved. */
export function bothFirstDeliveries(p: Pair): boolean {
  return (p.first.retryTimes ?? 0) === 0 && (p.second.retryTimes ?? 0) === 0;
}

/** The second delivery is a later retry round of the same message than the first. */
export function retryAdvanced(p: Pair): boolean {
  return p.first.retryTimes !== null && p.second.retryTimes !== null && p.second.retryTimes > p.first.retryTimes;
}

export function eventsOf(p: Pair, d: Delivery): NormalizedEvent[] {
  return d.eventIds.map((id) => p.byId.get(id)).filter((e): e is NormalizedEvent => e !== undefined);
}

export function sameInstance(p: Pair): boolean {
  return instanceRelation(p.first.instance, p.second.instance) === "same";
}
