import type { NormalizedEvent } from "../events/model.ts";
import { messageFacts, type MessageFacts } from "./copies.ts";
import { reconstructDeliveries } from "./deliveries.ts";
import { attachEffectRows } from "./effect-rows.ts";
import { evidence, mergeRepeatedEvidence, type Evidence } from "./evidence.ts";
import { instanceRelation } from "./identity.ts";
import { forkOf, retryParents } from "./lineage.ts";
import { foldHoldings, holdingChangesIn, type HoldingInterval } from "./holdings.ts";
import { foldMembers, memberChangesIn, type MemberInterval } from "./members.ts";
import { findMissing } from "./missing.ts";
import { type Reach, reachOf } from "./reach.ts";
import { keyPool } from "./pool.ts";
import { clockOrder } from "./clock-order.ts";
import { copyRelation, type CauseRule, type Pair, type RuleResult } from "./pair.ts";
import { ackLost } from "./rules/ack-lost.ts";
import { commitFailed } from "./rules/commit-failed.ts";
import { offsetRollback } from "./rules/offset-rollback.ts";
import { sharedClientId } from "./rules/shared-client-id.ts";
import { broadcastConsumption } from "./rules/broadcast.ts";
import { consumeTimeout } from "./rules/consume-timeout.ts";
import { delayedDoubleWrite } from "./rules/delayed-double-write.ts";
import { dlqReplay } from "./rules/dlq-replay.ts";
import { invisibleTimeout } from "./rules/invisible-timeout.ts";
import { findLost } from "./rules/lost.ts";
import { judgeOutcome } from "./rules/outcome.ts";
import { producerRetry } from "./rules/producer-retry.ts";
import { rebalance } from "./rules/rebalance.ts";
import { retryAfterFailure } from "./rules/retry-after-failure.ts";
import { transactionCheckback } from "./rules/transaction-checkback.ts";
import { upstreamResend } from "./rules/upstream-resend.ts";
import {
  DEFAULT_OPTIONS,
  type Delivery,
  type DiagnosisInput,
  type DiagnosisOptions,
  type GroupFacts,
  type KeyDiagnosis,
  type LostMessage,
  type NormalRetry,
  type Verdict,
} from "./types.ts";
import { gapClass, type DedupLayer } from "./vocabulary.ts";

const CAUSE_RULES: readonly CauseRule[] = [
  producerRetry,
  upstreamResend,
  rebalance,
  ackLost,
  consumeTimeout,
  commitFailed,
  offsetRollback,
  sharedClientId,
  broadcastConsumption,
  invisibleTimeout,
  retryAfterFailure,
  dlqReplay,
  delayedDoubleWrite,
  transactionCheckback,
];

/** Below this no rule has singled a cause out: the verdict says `unknown` and the missing-data notes say why. */
const UNKNOWN_BELOW = 0.3;

/** A delivery whose business may have run: committed, reported success, or nobody can tell (no dedup log). */
const effectPossible = (d: Delivery) => d.effect === "executed" || d.effect === "ran" || d.effect === "unknown";

/**
 * Diagnoses one business key: rebuilds its deliveries per consumer group, finds the duplicates (a delivery after
 * one whose effect may already have happened), names each one's cause with evidence, says whether a dedup layer
 * caught it and, for a leak, which defect let it through; flags lost messages and the data that was missing.
 */
export function diagnoseKey(input: DiagnosisInput, options: Partial<DiagnosisOptions> = {}): KeyDiagnosis {
  return diagnoseKeyWithReach(input, options).diagnosis;
}

/**
 * Whether a key's own events (the context aside) hold two deliveries of one group: only then can a rule pair them
 * and ask what its groups looked like (members, queue holdings). The store reads that state for such keys only;
 * for the others diagnosis folds it from the context, should a context line make a second delivery after all.
 */
export function mayPairDeliveries(bizKey: string, events: readonly NormalizedEvent[]): boolean {
  const { keyEvents } = keyPool({ bizKey, events: [...events], context: [] });
  const seen = new Set<string | null>();
  for (const d of reconstructDeliveries(keyEvents, DEFAULT_OPTIONS)) {
    if (seen.has(d.group)) return true;
    seen.add(d.group);
  }
  return false;
}

export interface ReachedDiagnosis extends Reach {
  diagnosis: KeyDiagnosis;
}

/** diagnoseKey, and how late a context line could still change its answer: what the worker re-diagnoses a key for. */
export function diagnoseKeyWithReach(input: DiagnosisInput, options: Partial<DiagnosisOptions> = {}): ReachedDiagnosis {
  const opts: DiagnosisOptions = { ...DEFAULT_OPTIONS, ...options };
  const { keyEvents, context, published, all } = keyPool(input);
  const byId = new Map(keyEvents.map((e) => [e.id, e]));
  // Only pairs read it, and most keys have none.
  let members: readonly MemberInterval[] | undefined;
  const membersOf = () => (members ??= input.members ?? foldMembers(memberChangesIn(context)));
  let holdings: readonly HoldingInterval[] | undefined;
  const holdingsOf = () => (holdings ??= input.holdings ?? foldHoldings(holdingChangesIn(context), memberChangesIn(context)));
  const facts = new Map<string, MessageFacts>();
  const factsOf = (msgId: string | null) => {
    if (msgId === null) return null;
    let f = facts.get(msgId);
    if (f === undefined) facts.set(msgId, (f = messageFacts(msgId, all())));
    return f;
  };

  const deliveries = reconstructDeliveries(keyEvents, opts);
  const effectRows = attachEffectRows(deliveries, keyEvents, opts);
  const duplicates: Verdict[] = [];
  const normalRetries: NormalRetry[] = [];
  const lost: LostMessage[] = [];
  const groupFacts: GroupFacts[] = [];
  const pairs: Pair[] = [];

  for (const [group, list] of groupBy(deliveries)) {
    const verdicts = new Map<string, Verdict>();
    const makePair = (first: Delivery, second: Delivery): Pair => {
      const pair: Pair = {
        first,
        second,
        siblings: list,
        gapMs: second.start - first.start,
        sameMsgId: first.msgId === null || second.msgId === null ? null : first.msgId === second.msgId,
        copy: copyRelation(first, second),
        firstMsg: factsOf(first.msgId),
        secondMsg: factsOf(second.msgId),
        context,
        members: membersOf(),
        holdings: holdingsOf(),
        byId,
        rows: effectRows.get(group) ?? [],
        options: opts,
      };
      pairs.push(pair);
      return pair;
    };
    const parents = retryParents(list);
    let retries = 0;
    list.forEach((d, j) => {
      if (j === 0) return;
      const earlier = list.slice(0, j);
      const lastEffect = [...earlier].reverse().find(effectPossible);
      const pred = repeated(d, earlier);
      if (lastEffect === undefined) {
        normalRetries.push({ group, delivery: d.id, after: (pred ?? earlier[earlier.length - 1]!).id });
        retries++;
        return;
      }
      // The verdict pairs the duplicate with the latest delivery whose effect may have happened; its cause comes from
      // the delivery it repeats (see `repeated`) when that one may have run or was itself a duplicate (a redelivered
      // copy of a producer retry is a rebalance, not a producer retry), or from the fork when the two sit on branches
      // of one forked retry chain.
      const predVerdict = pred === undefined ? undefined : verdicts.get(pred.id);
      const reported = makePair(lastEffect, d);
      const repeats = pred !== undefined && pred !== lastEffect && (effectPossible(pred) || predVerdict !== undefined);
      const fork = forkOf(lastEffect, d, parents);
      const acrossFork = fork === null ? null : forked(fork, makePair(...fork), reported);
      const verdict =
        pred !== undefined && predVerdict !== undefined && isRetryOf(d, pred)
          ? inherit(predVerdict, pred, reported)
          : (acrossFork ?? judge(repeats ? makePair(pred!, d) : reported, reported));
      verdicts.set(d.id, verdict);
      duplicates.push(verdict);
    });
    const lostMessage = findLost(group, list, opts.clockSkewMs);
    if (lostMessage !== null) lost.push(lostMessage);
    groupFacts.push(factsFor(group, list, verdicts.size, retries));
  }

  const missing = findMissing(deliveries, duplicates, keyEvents, published, context, effectRows);
  return {
    diagnosis: { bizKey: input.bizKey, deliveries, duplicates, normalRetries, lost, missing, groups: groupFacts },
    ...reachOf(pairs, missing),
  };
}

/**
 * The delivery `d` repeats: the latest earlier one of the same stored copy, or failing that of the same message. A
 * copy delivered again repeats its own earlier delivery, not a second copy of the message consumed in between.
 */
function repeated(d: Delivery, earlier: readonly Delivery[]): Delivery | undefined {
  if (d.msgId === null) return undefined;
  const sameMessage = earlier.filter((e) => e.msgId === d.msgId).reverse();
  return sameMessage.find((e) => copyRelation(e, d).relation === "same") ?? sameMessage[0];
}

/**
 * Two deliveries on branches of a forked retry chain: the duplicate exists because one copy went to two consumers
 * rounds earlier, so the cause is judged on that pair. Left to the other rules when it decides nothing.
 */
function forked(fork: [Delivery, Delivery], causal: Pair, reported: Pair): Verdict | null {
  const verdict = judge(causal, reported);
  if (verdict.cause === "unknown") return null;
  const link = evidence("retry_chains_forked", "cause", [fork[0].startEventId, fork[1].startEventId], {
    first: fork[0].id,
    second: fork[1].id,
    retryTimes: fork[0].retryTimes ?? 0,
    cause: verdict.cause,
  });
  return { ...verdict, confidence: clamp(verdict.confidence * 0.9), evidence: [link, ...verdict.evidence] };
}

/** A later retry round of an attempt that failed cleanly: it repeats whatever made that attempt a duplicate. */
function isRetryOf(d: Delivery, pred: Delivery): boolean {
  return pred.effect === "failed" && d.retryTimes !== null && pred.retryTimes !== null && d.retryTimes > pred.retryTimes;
}

/** Names the cause from `causal` (the delivery this one repeats) and reports it on `reported`. */
function judge(causal: Pair, reported: Pair): Verdict {
  const results = CAUSE_RULES.map((rule) => rule(causal))
    .filter((r): r is RuleResult => r !== null)
    .sort((a, b) => b.score - a.score);
  const best = results[0];
  const runnerUp = results[1]?.score ?? 0;
  const decided = best !== undefined && best.score >= UNKNOWN_BELOW;
  const causeEvidence = decided ? best.evidence : causal.copy.evidence;
  // Close competitors lower the confidence: a margin under 0.25 costs what it lacks.
  const confidence = decided ? clamp(best.score - Math.max(0, runnerUp - best.score + 0.25)) : 0;
  return assemble(reported, decided ? best.cause : "unknown", confidence, [...clockEvidence(causal), ...causeEvidence]);
}

function inherit(base: Verdict, pred: Delivery, pair: Pair): Verdict {
  const link = evidence("inherited", "cause", [pred.startEventId, pair.second.startEventId], { delivery: pred.id, cause: base.cause });
  const causeEvidence = base.evidence.filter((e) => e.role === "cause");
  return assemble(pair, base.cause, clamp(base.confidence * 0.9), [link, ...causeEvidence]);
}

/** Values that are, or are measured between, times of the events cited. */
const TIMED = ["ts", "spanMs", "gapMs", "lastTs", "effectTs", "ackTs", "firstTs", "secondTs"];

/** Evidence timed by a record stamped on receipt (the RabbitMQ firehose) says so. */
function markReceipt(list: Evidence[], byId: ReadonlyMap<string, NormalizedEvent>): Evidence[] {
  return list.map((e) => {
    const stamped = e.eventIds.some((id) => byId.get(id)?.detail.stampedOnReceipt === true);
    return stamped && !e.coarse && TIMED.some((k) => k in e.values) ? { ...e, receipt: true } : e;
  });
}

function assemble(pair: Pair, cause: Verdict["cause"], confidence: number, causeEvidence: Evidence[]): Verdict {
  const { first, second } = pair;
  const outcome = judgeOutcome(pair);
  const timing = clockOrder(first.start, second.start);
  const verdict: Verdict = {
    group: second.group,
    topic: second.topic ?? first.topic,
    cause,
    confidence,
    evidence: mergeRepeatedEvidence(markReceipt([...causeEvidence, ...outcome.evidence], pair.byId)),
    gapMs: timing.gapMs,
    clockSkewMs: timing.clockSkewMs,
    gapClass: gapClass(timing.gapMs),
    instances: { first: first.instance, second: second.instance },
    sameInstance: instanceRelation(first.instance, second.instance) === "same",
    outcome: outcome.outcome,
    deliveries: [first.id, second.id],
    msgIds: { first: first.msgId, second: second.msgId },
  };
  if (outcome.layer !== undefined) verdict.layer = outcome.layer;
  if (outcome.defect !== undefined) verdict.defect = outcome.defect;
  return verdict;
}

/** When the order of the two deliveries was decided by causality rather than by their clocks, say so. */
function clockEvidence(pair: Pair): Evidence[] {
  const reason = pair.second.reordered ?? pair.first.reordered;
  if (reason === undefined) return [];
  return [evidence("reordered", "cause", [pair.first.startEventId, pair.second.startEventId], { reason, toleranceMs: pair.options.clockSkewMs }, { tolerant: true })];
}

function factsFor(group: string | null, list: Delivery[], duplicates: number, normalRetries: number): GroupFacts {
  const decisions = list.flatMap((d) => d.dedup);
  const layers = [...new Set(decisions.map((d) => d.layer).filter((l): l is DedupLayer => l !== "none"))];
  const ttls = decisions.filter((d) => d.decision === "pass" && d.ttlMs !== null).map((d) => d.ttlMs!);
  const costs = list.map((d) => d.costMs).filter((c): c is number => c !== null);
  return {
    group,
    topic: list.map((d) => d.topic).find((t) => t !== null) ?? null,
    deliveries: list.length,
    duplicates,
    normalRetries,
    dedupCovered: decisions.length > 0,
    layers,
    ttlMs: ttls.length > 0 ? Math.min(...ttls) : null,
    maxConsumeMs: costs.length > 0 ? Math.max(...costs) : null,
  };
}

function groupBy(deliveries: Delivery[]): Map<string | null, Delivery[]> {
  const groups = new Map<string | null, Delivery[]>();
  for (const d of deliveries) groups.set(d.group, [...(groups.get(d.group) ?? []), d]);
  return groups;
}

const clamp = (x: number) => Math.round(Math.min(0.99, Math.max(0.05, x)) * 100) / 100;
