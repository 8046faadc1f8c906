import type { TraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";
import { queueName } from "../allocation.ts";
import { nextTick } from "../clock.ts";
import type { AttemptKey, CheckResult, LayerLine } from "../dedup-layers.ts";
import { DEFAULTS, delayOfLevel, dlqTopic, REGION, retryTopic } from "../topology.ts";
import { appendCommitLog, appendCopy, scheduleDelivery, storeSize, type StoreSpec } from "./broker-ops.ts";
import { messageView } from "./message-view.ts";
import type { Sim } from "./sim.ts";
import type { Attempt, BrokerState, ConsumerInstance, Delivery, ProcessQueue, RetryReason, StoredCopy } from "./state.ts";
import { traceRecord } from "./trace-dispatch.ts";

/**
 * Consumers: long-polling pulls, one consume call per message (ConsumeMessageConcurrentlyService, batch size 1),
 * the dedup stack and the business, then the consume result: the offset advances, or the message is sent back to
 * %RETRY%<group> (dead-lettered after 16 retries), or — when a rebalance dropped the process queue meanwhile —
 * nothing at all. Offsets reach the broker only at the 5 s persist ticks.
 */

type Outcome = "executed" | "failed_clean" | "failed_after_effect";

/** The broker stores a copy (broker-ops.ts's appendCopy) and every consumer holding its queue is woken to pull it. */
export function storeAndWake(sim: Sim, spec: StoreSpec): StoredCopy {
  const copy = appendCopy(sim, spec);
  onStored(sim, copy);
  return copy;
}

/** A new copy in a queue: every instance holding that queue (two during a rebalance overlap) pulls it. */
function onStored(sim: Sim, copy: StoredCopy): void {
  for (const group of sim.groupsOfTopic(copy.queue.ref.topic)) {
    if (copy.forGroup !== undefined && copy.forGroup !== group.name) continue;
    for (const instance of group.members) {
      const pq = instance.pqs.get(copy.queue.key);
      if (instance.running && pq && !pq.dropped) schedulePull(sim, instance, pq, sim.now + sim.rng.int(1, 5));
    }
  }
}

export function schedulePull(sim: Sim, instance: ConsumerInstance, pq: ProcessQueue, at: number): void {
  if (pq.pullScheduled) return;
  pq.pullScheduled = true;
  sim.at(at, () => {
    pq.pullScheduled = false;
    pull(sim, instance, pq);
  });
}

/** After a broker restart, everyone holding one of its queues pulls what arrived meanwhile. */
export function resumePulls(sim: Sim, broker: BrokerState): void {
  for (const group of sim.groups.values()) {
    for (const instance of group.members) {
      if (!instance.running) continue;
      for (const pq of instance.pqs.values()) {
        if (pq.ref.broker === broker.name) schedulePull(sim, instance, pq, sim.now + sim.rng.int(5, 200));
      }
    }
  }
}

function pull(sim: Sim, instance: ConsumerInstance, pq: ProcessQueue): void {
  if (!instance.running || pq.dropped || !sim.broker(pq.ref.broker).up) return;
  const queue = sim.queue(pq.ref);
  let delay = sim.rng.int(0, 3);
  for (let offset = pq.nextOffset; offset < queue.maxOffset; offset++) {
    const copy = queue.copyAt(offset);
    if (!copy) continue;
    pq.inflight.add(offset);
    sim.at(sim.now + delay, () => startAttempt(sim, instance, pq, copy, false));
    delay += sim.rng.int(0, 2);
  }
  pq.nextOffset = Math.max(pq.nextOffset, queue.maxOffset);
}

/** A dashboard resend (consumeMessageDirectly): the listener runs without consume trace or offset. */
export function consumeDirectly(sim: Sim, instance: ConsumerInstance, copy: StoredCopy): void {
  sim.clientLine(instance, sim.now, { type: "direct", message: messageView(sim, copy, instance.host.local(sim.now)) });
  startAttempt(sim, instance, undefined, copy, true);
}

function redeliveryOf(sim: Sim, instance: ConsumerInstance, copy: StoredCopy, direct: boolean): Delivery["redelivery"] {
  if (direct) return undefined;
  const group = instance.group;
  const previous = copy.lastPulledBy.get(group.name);
  const pulledAt = copy.lastPulledAt.get(group.name);
  copy.lastPulledBy.set(group.name, instance);
  copy.lastPulledAt.set(group.name, sim.now);
  if (!previous) return undefined;
  // Every member of a broadcasting group pulls every copy: another member's pull is the design, not a redelivery.
  if (group.spec.messageModel === "BROADCASTING" && previous !== instance) return "broadcast_consumption";
  if (group.lastResetAt !== undefined && pulledAt !== undefined && pulledAt < group.lastResetAt) return "offset_rollback";
  // Another live process with this clientId was allocated the same queue: both consume it (startPair).
  if (previous !== instance && previous.clientId === instance.clientId && previous.running) return "shared_client_id";
  return previous.state === "crashed" ? "ack_lost" : "rebalance";
}

function startAttempt(sim: Sim, instance: ConsumerInstance, pq: ProcessQueue | undefined, copy: StoredCopy, direct: boolean): void {
  // ConsumeRequest.run returns at once for a dropped process queue; a crashed process runs nothing.
  if (!instance.running || pq?.dropped) return;
  const group = instance.group;
  const message = copy.message;
  const delivery: Delivery = {
    seq: sim.deliveries.length,
    group: group.name,
    topic: message.topic,
    bizKey: message.bizKey,
    msgId: message.msgId,
    offsetMsgId: copy.offsetMsgId,
    origin: copy.origin,
    ...(copy.retryReason ? { retryReason: copy.retryReason } : {}),
    ...(copy.parentSeq === undefined ? {} : { parentSeq: copy.parentSeq }),
    instance: instance.host.canonical,
    start: sim.now,
    retryTimes: copy.reconsumeTimes,
    direct,
    effect: "pending",
  };
  const redelivery = redeliveryOf(sim, instance, copy, direct);
  if (redelivery) delivery.redelivery = redelivery;
  sim.deliveries.push(delivery);
  const attempt: Attempt = {
    id: sim.nextId(),
    instance,
    pq,
    copy,
    delivery,
    requestId: instance.host.uniq.next(instance.host.local(sim.now)),
    start: sim.now,
    returnAt: sim.now,
    returned: false,
  };
  instance.attempts.add(attempt);
  sim.liveAttempts.set(attempt.id, attempt);
  group.inflight.set(message.bizKey, (group.inflight.get(message.bizKey) ?? 0) + 1);
  if (!direct) traceRecord(sim, instance, subBefore(attempt));
  runListener(sim, attempt);
}

function subBefore(attempt: Attempt): TraceRecord {
  const { instance, copy } = attempt;
  return {
    type: "SubBefore",
    timeStamp: instance.host.local(attempt.start),
    regionId: REGION,
    consumerGroup: instance.group.name,
    requestId: attempt.requestId,
    msgId: copy.message.msgId,
    retryTimes: copy.reconsumeTimes,
    keys: [copy.message.bizKey],
  };
}

function subAfter(attempt: Attempt, success: boolean, contextCode: number): TraceRecord {
  const { instance, copy } = attempt;
  return {
    type: "SubAfter",
    requestId: attempt.requestId,
    msgId: copy.message.msgId,
    costTime: attempt.returnAt - attempt.start,
    success,
    keys: [copy.message.bizKey],
    contextCode,
    timeStamp: instance.host.local(attempt.returnAt),
    consumerGroup: instance.group.name,
  };
}

function writeDedupLines(sim: Sim, attempt: Attempt, lines: readonly LayerLine[]): void {
  for (const line of lines) {
    sim.dedupLine(attempt.instance, {
      ...dedupContext(attempt),
      at: line.at,
      layer: line.layer,
      decision: line.decision,
      dedupKey: line.dedupKey,
      ...(line.ttlMs === undefined ? {} : { ttlMs: line.ttlMs }),
    });
  }
}

function dedupContext(attempt: Attempt) {
  const { copy } = attempt;
  return {
    bizKey: copy.message.bizKey,
    msgId: copy.message.msgId,
    topic: copy.message.topic,
    retryTimes: copy.reconsumeTimes,
    queueId: queueName(copy.queue.ref),
    queueOffset: copy.queueOffset,
  };
}

function attemptKey(attempt: Attempt): AttemptKey {
  return { id: attempt.id, instance: attempt.instance.host.canonical, bizKey: attempt.copy.message.bizKey, msgId: attempt.copy.message.msgId };
}

function check(sim: Sim, attempt: Attempt): CheckResult | undefined {
  const group = attempt.instance.group;
  if (group.spec.stack.length === 0) return undefined;
  const result = group.dedup.check(attemptKey(attempt), attempt.start, (id) => sim.liveAttempts.get(id)?.returned ?? true);
  if (group.spec.dedupLog) writeDedupLines(sim, attempt, result.lines);
  return result;
}

/**
 * The scripted outcome for this attempt. A failure is scripted only while no side effect can have happened for the
 * key in this group (none committed, no other attempt in flight), so a duplicate that passes the dedup layers
 * always runs the business: its label is "leaked", never a third case.
 */
function plannedOutcome(attempt: Attempt): Outcome {
  const group = attempt.instance.group;
  const bizKey = attempt.copy.message.bizKey;
  const behavior = group.behaviors.get(bizKey);
  if (!behavior || behavior.failures <= 0 || group.effects.has(bizKey) || (group.inflight.get(bizKey) ?? 0) > 1) return "executed";
  behavior.failures--;
  return behavior.failMode === "clean" ? "failed_clean" : "failed_after_effect";
}

/** The first pulled attempt of a key with `stuckMs` hangs past consumeTimeout. */
function stuckFor(attempt: Attempt): number | undefined {
  const behavior = attempt.instance.group.behaviors.get(attempt.copy.message.bizKey);
  if (!behavior || behavior.stuckMs === undefined || attempt.delivery.direct || attempt.copy.reconsumeTimes > 0) return undefined;
  const stuck = behavior.stuckMs;
  delete behavior.stuckMs;
  return stuck;
}

function runListener(sim: Sim, attempt: Attempt): void {
  const result = check(sim, attempt);
  const checkedAt = result?.doneAt ?? attempt.start;
  if (result?.hitBy) {
    attempt.delivery.effect = "skipped";
    attempt.delivery.hitBy = result.hitBy;
    attempt.returnAt = checkedAt + sim.rng.int(1, 2);
    sim.at(attempt.returnAt, () => returnFromListener(sim, attempt, true));
    return;
  }
  if (result) attempt.delivery.passReason = result.reason;
  const spec = attempt.instance.group.spec;
  if (spec.asyncBusinessMs) {
    runAsync(sim, attempt, checkedAt, spec.asyncBusinessMs);
    return;
  }
  const outcome = plannedOutcome(attempt);
  const stuck = stuckFor(attempt);
  if (stuck !== undefined) {
    const sendBackAt = nextTick(attempt.instance.phases.expire, DEFAULTS.consumeTimeoutMs, attempt.start + DEFAULTS.consumeTimeoutMs);
    sim.at(sendBackAt, () => expireBack(sim, attempt));
    attempt.returnAt = sendBackAt + stuck;
  } else {
    attempt.returnAt = checkedAt + sim.rng.ms(...spec.businessMs);
  }
  sim.at(attempt.returnAt, () => finishBusiness(sim, attempt, outcome));
}

/** The listener hands the message to a worker and returns CONSUME_SUCCESS; the worker runs the business later. */
function runAsync(sim: Sim, attempt: Attempt, checkedAt: number, lag: readonly [number, number]): void {
  const spec = attempt.instance.group.spec;
  attempt.returnAt = checkedAt + sim.rng.ms(...spec.businessMs);
  const workerAt = attempt.start + sim.rng.ms(...lag);
  sim.at(attempt.returnAt, () => returnFromListener(sim, attempt, true));
  sim.at(workerAt, () => {
    commitEffect(sim, attempt, sim.now);
    settle(sim, attempt);
  });
}

function commitEffect(sim: Sim, attempt: Attempt, at: number): void {
  const group = attempt.instance.group;
  group.dedup.commit(attemptKey(attempt), at);
  group.effects.add(attempt.copy.message.bizKey);
  attempt.delivery.effect = "executed";
  if (group.spec.dedupLog) sim.dedupLine(attempt.instance, { ...dedupContext(attempt), at, layer: group.dedup.effectLayer(), decision: "executed" });
}

function finishBusiness(sim: Sim, attempt: Attempt, outcome: Outcome): void {
  const group = attempt.instance.group;
  if (outcome === "executed") {
    commitEffect(sim, attempt, sim.now - 1);
    returnFromListener(sim, attempt, true);
    return;
  }
  const afterEffect = outcome === "failed_after_effect";
  if (afterEffect) commitEffect(sim, attempt, sim.now - 3);
  attempt.delivery.effect = outcome;
  const released = group.dedup.fail(attemptKey(attempt), sim.now, afterEffect);
  if (group.spec.dedupLog) {
    sim.dedupLine(attempt.instance, { ...dedupContext(attempt), at: sim.now, layer: group.dedup.effectLayer(), decision: "failed", error: group.spec.error });
    writeDedupLines(sim, attempt, released);
  }
  attempt.returnAt = sim.now + released.length + 1;
  sim.at(attempt.returnAt, () => returnFromListener(sim, attempt, false));
}

/**
 * The consume call returns. A thrown exception is logged and counts as RECONSUME_LATER (contextCode 2); a
 * returned RECONSUME_LATER is contextCode 4. A consume that took consumeTimeout or longer is contextCode 1.
 */
function returnFromListener(sim: Sim, attempt: Attempt, success: boolean): void {
  attempt.returned = true;
  const { instance, copy, pq } = attempt;
  const threw = !success && sim.rng.chance(0.5);
  const tookTooLong = attempt.returnAt - attempt.start >= DEFAULTS.consumeTimeoutMs;
  const contextCode = success ? (tookTooLong ? 1 : 0) : threw ? 2 : 4;
  if (threw && pq) {
    const view = messageView(sim, copy, instance.host.local(attempt.start));
    sim.clientLine(instance, sim.now, { type: "consume_exception", group: instance.group.name, error: instance.group.spec.error, mq: pq.ref, message: view }, threadOf(attempt));
  }
  if (!attempt.delivery.direct) traceRecord(sim, instance, subAfter(attempt, success, contextCode));
  if (pq) processConsumeResult(sim, attempt, pq, success);
  if (attempt.delivery.effect !== "pending") settle(sim, attempt);
}

function threadOf(attempt: Attempt): number {
  return (attempt.id % 20) + 1;
}

function processConsumeResult(sim: Sim, attempt: Attempt, pq: ProcessQueue, success: boolean): void {
  const { instance, copy } = attempt;
  if (pq.dropped) {
    const view = messageView(sim, copy, instance.host.local(attempt.start));
    sim.clientLine(instance, sim.now, { type: "dropped", group: instance.group.name, mq: pq.ref, message: view }, threadOf(attempt));
    return;
  }
  if (!success) sendBack(sim, attempt, DEFAULTS.expireDelayLevel + copy.reconsumeTimes, "failure");
  pq.inflight.delete(copy.queueOffset);
  schedulePersist(sim, instance);
}

function settle(sim: Sim, attempt: Attempt): void {
  const group = attempt.instance.group;
  const bizKey = attempt.copy.message.bizKey;
  attempt.instance.attempts.delete(attempt);
  sim.liveAttempts.delete(attempt.id);
  const left = (group.inflight.get(bizKey) ?? 1) - 1;
  if (left > 0) group.inflight.set(bizKey, left);
  else group.inflight.delete(bizKey);
}

/** ProcessQueue.cleanExpiredMsg: a message consumed for longer than consumeTimeout is sent back at delay level 3. */
function expireBack(sim: Sim, attempt: Attempt): void {
  const { instance, copy, pq } = attempt;
  if (attempt.returned || !instance.running || !pq || pq.dropped) return;
  const view = messageView(sim, copy, instance.host.local(attempt.start));
  sim.clientLine(instance, sim.now, { type: "expire_back", group: instance.group.name, message: view });
  sendBack(sim, attempt, DEFAULTS.expireDelayLevel, "consume_timeout");
  pq.inflight.delete(copy.queueOffset);
  schedulePersist(sim, instance);
}

/**
 * sendMessageBack: the broker keeps the message in SCHEDULE_TOPIC_XXXX for the delay level, then writes a retry copy
 * (same UNIQ_KEY, new offsetMsgId, reconsumeTimes + 1) to %RETRY%<group>; after maxReconsumeTimes it goes to
 * %DLQ%<group> instead. A broker that is down makes the client send it to the other one.
 */
function sendBack(sim: Sim, attempt: Attempt, delayLevel: number, reason: RetryReason): void {
  const { instance, copy } = attempt;
  const group = instance.group;
  const own = sim.broker(copy.queue.ref.broker);
  const broker = own.up ? own : Object.values(sim.brokers).find((b) => b.up) ?? own;
  const base = { message: copy.message, originMessageId: copy.originMessageId ?? copy.offsetMsgId, forGroup: group.name, parentSeq: attempt.delivery.seq };
  if (copy.reconsumeTimes >= DEFAULTS.maxReconsumeTimes && reason === "failure") {
    const dlq = storeAndWake(sim, { ...base, ref: { topic: dlqTopic(group.name), broker: broker.name, queueId: 0 }, origin: "dlq", reconsumeTimes: copy.reconsumeTimes, delayLevel });
    planDlqReplays(sim, instance, dlq);
    return;
  }
  appendCommitLog(broker, storeSize(copy.message));
  scheduleDelivery(sim, broker, sim.now + delayOfLevel(delayLevel), false, () =>
    storeAndWake(sim, {
      ...base,
      ref: { topic: retryTopic(group.name), broker: broker.name, queueId: 0 },
      origin: "retry",
      reconsumeTimes: copy.reconsumeTimes + 1,
      retryReason: reason,
      delayLevel,
    }),
  );
}

/** An operator resends the dead letter from the dashboard, as often as the key's behaviour says, to a live instance. */
function planDlqReplays(sim: Sim, instance: ConsumerInstance, dlq: StoredCopy): void {
  const behavior = instance.group.behaviors.get(dlq.message.bizKey);
  for (const after of behavior?.dlqReplaysMs ?? []) {
    sim.at(sim.now + after, () => {
      const targets = instance.group.members.filter((m) => m.running);
      if (targets.length > 0) consumeDirectly(sim, sim.rng.pick(targets), dlq);
    });
  }
}

/** The next 5 s persist tick writes every held queue's offset to its broker (a broker that is down misses it). */
export function schedulePersist(sim: Sim, instance: ConsumerInstance): void {
  if (instance.persistScheduled) return;
  instance.persistScheduled = true;
  sim.housekeeping(nextTick(instance.phases.persist, DEFAULTS.persistOffsetIntervalMs, sim.now), () => {
    instance.persistScheduled = false;
    if (instance.running) persistOffsets(sim, instance);
  });
}

export function persistOffsets(sim: Sim, instance: ConsumerInstance, only?: ProcessQueue): void {
  for (const pq of only ? [only] : instance.pqs.values()) {
    if (!pq.dropped && sim.broker(pq.ref.broker).up) instance.group.committed.set(pq.key, pq.commitOffset());
  }
}
