import type { QueueRef } from "../allocation.ts";
import { nextTick } from "../clock.ts";
import { offsetMsgId } from "../ids.ts";
import { DEFAULTS } from "../topology.ts";
import type { Sim } from "./sim.ts";
import type { BrokerState, CopyOrigin, Message, RetryReason, ScheduleEntry, StoredCopy } from "./state.ts";

/**
 * What brokers do: store copies, run the schedule (delay) service and transaction check-backs. Nothing here calls
 * back into the clients: consume.ts wakes the consumers of a stored copy (storeAndWake), broker-restart.ts
 * reconnects them after a restart.
 */

export interface StoreSpec {
  message: Message;
  ref: QueueRef;
  origin: CopyOrigin;
  reconsumeTimes?: number;
  retryReason?: RetryReason;
  originMessageId?: string;
  forGroup?: string;
  parentSeq?: number;
  delayLevel?: number;
}

/** Reserves commit-log space on a broker; the offset is the stored record's identity (offsetMsgId). */
export function appendCommitLog(broker: BrokerState, size: number): { commitLogOffset: number; offsetMsgId: string } {
  const commitLogOffset = broker.commitLogOffset;
  broker.commitLogOffset += size;
  return { commitLogOffset, offsetMsgId: offsetMsgId(broker.ip, broker.port, commitLogOffset) };
}

export function storeSize(message: Message): number {
  return 180 + message.body.length + message.bizKey.length + message.topic.length;
}

/** Appends a copy to its queue and the broker's commit log. Consumers are not told: use consume.ts's storeAndWake. */
export function appendCopy(sim: Sim, spec: StoreSpec): StoredCopy {
  const broker = sim.broker(spec.ref.broker);
  const queue = sim.queue(spec.ref);
  const size = storeSize(spec.message);
  const copy: StoredCopy = {
    id: sim.nextId(),
    message: spec.message,
    queue,
    queueOffset: queue.maxOffset,
    ...appendCommitLog(broker, size),
    storeAt: sim.now,
    storeSize: size,
    origin: spec.origin,
    reconsumeTimes: spec.reconsumeTimes ?? 0,
    ...(spec.retryReason ? { retryReason: spec.retryReason } : {}),
    ...(spec.originMessageId ? { originMessageId: spec.originMessageId } : {}),
    ...(spec.forGroup ? { forGroup: spec.forGroup } : {}),
    ...(spec.parentSeq === undefined ? {} : { parentSeq: spec.parentSeq }),
    ...(spec.delayLevel ? { delayLevel: spec.delayLevel } : {}),
    lastPulledBy: new Map(),
    lastPulledAt: new Map(),
  };
  queue.copies.push(copy);
  return copy;
}

/** A record in SCHEDULE_TOPIC_XXXX, written to its real topic when due (100 ms timer granularity). */
export function scheduleDelivery(sim: Sim, broker: BrokerState, dueAt: number, rewritable: boolean, write: (again: boolean) => void): void {
  const entry: ScheduleEntry = { dueAt, rewritable, write };
  broker.schedule.push(entry);
  sim.at(dueAt + sim.rng.int(0, 100), () => deliverScheduled(sim, broker, entry));
}

export function deliverScheduled(sim: Sim, broker: BrokerState, entry: ScheduleEntry): void {
  if (!broker.up || entry.deliveredAt !== undefined) return;
  entry.deliveredAt = sim.now;
  entry.write(entry.again === true);
  entry.again = false;
}

/** The half message's position in RMQ_SYS_TRANS_HALF_TOPIC and commit log, as the check-back line prints them. */
export function storeHalf(broker: BrokerState, message: Message): { halfOffset: number; commitLogOffset: number; offsetMsgId: string } {
  return { halfOffset: broker.halfQueueOffset++, ...appendCommitLog(broker, storeSize(message)) };
}

/**
 * Plans a check-back of a half message stored at `storedAt`: the broker's check service runs every 60 s and asks
 * about halves older than 6 s that have no op record. `check(lineAt)` writes the line and starts the check.
 */
export function planCheckBack(sim: Sim, broker: BrokerState, storedAt: number, check: (lineAt: number) => void): void {
  const tick = nextTick(broker.phases.txCheck, DEFAULTS.transactionCheckIntervalMs, storedAt + DEFAULTS.transactionTimeoutMs);
  addToCycle(sim, broker, tick, check);
}

function addToCycle(sim: Sim, broker: BrokerState, tick: number, check: (lineAt: number) => void): void {
  const cycle = broker.txCycles.get(tick);
  if (cycle) {
    cycle.push(check);
    return;
  }
  broker.txCycles.set(tick, [check]);
  sim.at(tick, () => runCheckCycle(sim, broker, tick));
}

function runCheckCycle(sim: Sim, broker: BrokerState, tick: number): void {
  const checks = broker.txCycles.get(tick) ?? [];
  broker.txCycles.delete(tick);
  if (!broker.up) {
    const next = tick + DEFAULTS.transactionCheckIntervalMs;
    for (const check of checks) addToCycle(sim, broker, next, check);
    return;
  }
  sim.brokerLine(broker, "transaction", sim.now, { type: "tx_check_begin", beginTime: broker.local(sim.now) });
  let at = sim.now + sim.rng.int(1, 5);
  for (const check of checks) {
    check(at);
    at += sim.rng.int(1, 4);
  }
  sim.brokerLine(broker, "transaction", at, { type: "tx_check_end", costMs: at - sim.now });
}
