import type { Cause, DedupLayer, Defect, Outcome } from "../diagnosis/vocabulary.ts";
import { defectOf } from "./dedup-layers.ts";
import type { Delivery } from "./model/state.ts";

/**
 * truth.json's labels, computed from what the model did to every delivery (see README.md, "Labelling rules").
 * For each business key and consumer group, deliveries in time order:
 * - a delivery is a duplicate when an earlier delivery of the key to the group may have had the business effect
 *   (it executed, or failed after its side effect, or the group writes no dedup log so nobody can tell);
 *   it is paired with the latest such delivery;
 * - any other delivery after the first is a normal retry;
 * - a key whose business never ran although a delivery was skipped by a dedup hit is lost.
 */

export interface DuplicateTruth {
  bizKey: string;
  group: string;
  topic: string;
  cause: Cause;
  outcome: Outcome;
  layer?: DedupLayer;
  defect?: Defect;
  firstInstance: string;
  secondInstance: string;
  sameInstance: boolean;
  /** Between the two consume starts, true time. */
  gapMs: number;
  /** Of the first and the second delivery. */
  msgIds: [string, string];
  offsetMsgIds: [string, string];
  retryTimes: [number, number];
  firstAt: number;
  secondAt: number;
}

export interface LostTruth {
  bizKey: string;
  group: string;
  defect: "marker_not_released";
}

export interface NormalRetryTruth {
  bizKey: string;
  group: string;
  /** Deliveries after the first that were not duplicates. */
  retries: number;
}

export interface Labels {
  duplicates: DuplicateTruth[];
  lost: LostTruth[];
  normalRetries: NormalRetryTruth[];
}

function hadEffect(d: Delivery): boolean {
  return d.effect === "executed" || d.effect === "failed_after_effect";
}

/** Why a delivery exists beyond the key's first message being delivered once ("original": it does not). */
type Lineage = Cause | "original";

/**
 * A redelivery of the same stored copy is a rebalance or a lost ack; an extra copy names its own cause. A retry
 * copy exists because its parent delivery failed: after a side effect that is retry_after_failure, after a clean
 * failure it carries on whatever brought the parent (two instances failing one copy during a rebalance overlap
 * fork the retry chain, and the fork is a rebalance duplicate however many retries later it meets the other).
 */
function lineage(d: Delivery, firstMsgId: string, bySeq: ReadonlyMap<number, Delivery>): Lineage {
  if (d.redelivery) return d.redelivery;
  switch (d.origin) {
    case "send":
      return d.msgId === firstMsgId ? "original" : "upstream_resend";
    case "producer_retry":
    case "delayed_double_write":
    case "transaction_checkback":
      return d.origin;
    case "dlq":
      return "dlq_replay";
    case "retry": {
      if (d.retryReason === "consume_timeout") return "consume_timeout";
      const parent = d.parentSeq === undefined ? undefined : bySeq.get(d.parentSeq);
      if (!parent) return "original";
      return parent.effect === "failed_after_effect" ? "retry_after_failure" : lineage(parent, firstMsgId, bySeq);
    }
  }
}

/** The pair differs by whichever of the two deliveries is not on the original line. */
function causeOf(d: Delivery, first: Delivery, firstMsgId: string, bySeq: ReadonlyMap<number, Delivery>): Cause {
  const own = lineage(d, firstMsgId, bySeq);
  if (own !== "original") return own;
  const other = lineage(first, firstMsgId, bySeq);
  return other === "original" ? "unknown" : other;
}

function duplicate(d: Delivery, first: Delivery, cause: Cause, dedupLogged: boolean): DuplicateTruth {
  const verdict: Pick<DuplicateTruth, "outcome" | "layer" | "defect"> = !dedupLogged
    ? { outcome: "unknown" }
    : d.effect === "skipped"
      ? { outcome: "caught", ...(d.hitBy ? { layer: d.hitBy } : {}) }
      : { outcome: "leaked", defect: defectOf(d.passReason ?? "new") };
  return {
    bizKey: d.bizKey,
    group: d.group,
    topic: d.topic,
    cause,
    ...verdict,
    firstInstance: first.instance,
    secondInstance: d.instance,
    sameInstance: first.instance === d.instance,
    gapMs: d.start - first.start,
    msgIds: [first.msgId, d.msgId],
    offsetMsgIds: [first.offsetMsgId, d.offsetMsgId],
    retryTimes: [first.retryTimes, d.retryTimes],
    firstAt: first.start,
    secondAt: d.start,
  };
}

function byKey(deliveries: readonly Delivery[]): Map<string, Delivery[]> {
  const keys = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    const id = `${d.group}\u0000${d.bizKey}`;
    const list = keys.get(id) ?? [];
    list.push(d);
    keys.set(id, list);
  }
  return keys;
}

export function label(deliveries: readonly Delivery[], dedupLogged: (group: string) => boolean): Labels {
  const labels: Labels = { duplicates: [], lost: [], normalRetries: [] };
  const bySeq = new Map(deliveries.map((d) => [d.seq, d]));
  for (const list of byKey(deliveries).values()) {
    list.sort((a, b) => a.start - b.start || a.seq - b.seq);
    const head = list[0]!;
    const logged = dedupLogged(head.group);
    let lastEffect: Delivery | undefined;
    let retries = 0;
    list.forEach((d, i) => {
      if (lastEffect) labels.duplicates.push(duplicate(d, lastEffect, causeOf(d, lastEffect, head.msgId, bySeq), logged));
      else if (i > 0) retries++;
      if (!logged || hadEffect(d)) lastEffect = d;
    });
    const lost = logged && !list.some(hadEffect) && list.some((d) => d.effect === "skipped");
    if (lost) labels.lost.push({ bizKey: head.bizKey, group: head.group, defect: "marker_not_released" });
    else if (retries > 0) labels.normalRetries.push({ bizKey: head.bizKey, group: head.group, retries });
  }
  labels.duplicates.sort((a, b) => a.secondAt - b.secondAt || a.group.localeCompare(b.group) || a.bizKey.localeCompare(b.bizKey));
  const byName = (a: { group: string; bizKey: string }, b: { group: string; bizKey: string }) => a.group.localeCompare(b.group) || a.bizKey.localeCompare(b.bizKey);
  labels.lost.sort(byName);
  labels.normalRetries.sort(byName);
  return labels;
}
