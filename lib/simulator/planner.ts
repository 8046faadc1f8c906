import { MINUTE, SECOND } from "./clock.ts";
import { crashInstance, scaleOutAndIn, startPair, type CrashMode } from "./model/membership.ts";
import { resetOffsets } from "./model/offset-reset.ts";
import { restartBroker } from "./model/broker-restart.ts";
import { send, type SendOutcome, type TransactionPlan } from "./model/produce.ts";
import type { Sim } from "./model/sim.ts";
import type { Behavior } from "./model/state.ts";
import type { Rng } from "./random.ts";
import type { BrokerName } from "./topology.ts";

/**
 * What scenarios plan with: business keys, sends, per-key consumer behaviour and faults placed on the timeline.
 * Faults that disturb a whole group (membership changes, restarts) get consecutive slots on a lane, so their
 * effects do not pile up on each other.
 */

export interface SendOptions {
  producer?: number;
  attempts?: readonly SendOutcome[];
  ackLostMs?: readonly [number, number];
  notOkMs?: readonly [number, number];
  broker?: BrokerName;
  delayLevel?: number;
  transaction?: TransactionPlan;
}

/** Traffic starts a minute in, once the initial instances have started and rebalanced. */
const TRAFFIC_DELAY_MS = MINUTE;
/** Business keys are spread over at least this long, at about this many per second. */
const MIN_SPAN_MS = 10 * MINUTE;
const KEYS_PER_SECOND = 15;
const SLOT_JITTER_MS = 10 * SECOND;

export class Planner {
  readonly start: number;
  private readonly baseSpan: number;
  private readonly lanes = new Map<string, number>();
  private keyCount = 0;

  /**
   * `firstKey` numbers the keys from there on, so runs given consecutive ranges never share a key. `spanMs` spreads
   * the traffic thinner than the default rate, so a run can stand for hours of background traffic.
   */
  constructor(
    private readonly sim: Sim,
    readonly rng: Rng,
    totalKeys: number,
    private readonly firstKey = 1,
    spanMs = MIN_SPAN_MS,
  ) {
    this.start = sim.epoch + TRAFFIC_DELAY_MS;
    this.baseSpan = Math.max(spanMs, Math.ceil((totalKeys / KEYS_PER_SECOND) * SECOND));
  }

  get keys(): number {
    return this.keyCount;
  }

  /** A new business key of the group's topic: `PAY-20261130-000042`. */
  key(group: string): string {
    const number = this.firstKey + this.keyCount++;
    return `${this.sim.group(group).spec.keyPrefix}-20261130-${String(number).padStart(6, "0")}`;
  }

  /** A random time in the traffic window, which grows to cover every planned slot. */
  spread(): number {
    const laneEnd = Math.max(this.start, ...this.lanes.values());
    return this.start + Math.floor(this.rng.next() * Math.max(this.baseSpan, laneEnd - this.start));
  }

  /**
   * The start of the next free `lengthMs` on a lane (a group name, or "brokers"), plus up to 10 s of jitter: slots
   * are round lengths, and without it every episode would meet the cluster's periodic tasks (5 s offset persist,
   * 10 s delay-offset persist) at the same phase.
   */
  slot(lane: string, lengthMs: number): number {
    const at = this.lanes.get(lane) ?? this.start;
    this.lanes.set(lane, at + lengthMs + SLOT_JITTER_MS);
    return at + this.rng.int(0, SLOT_JITTER_MS);
  }

  send(group: string, at: number, bizKey: string, options: SendOptions = {}): void {
    const spec = this.sim.group(group).spec;
    send(this.sim, { at, topic: spec.topic, producerGroup: spec.producer, tags: spec.tags, bizKey, ...options });
  }

  behave(group: string, bizKey: string, behavior: Partial<Behavior>): void {
    this.sim.group(group).behaviors.set(bizKey, { failures: 0, failMode: "clean", dlqReplaysMs: [], ...behavior });
  }

  scaleOut(group: string, at: number, stayMs: number): void {
    scaleOutAndIn(this.sim, this.sim.group(group), at, stayMs);
  }

  crash(group: string, at: number, mode: CrashMode, restartAfterMs: number): void {
    crashInstance(this.sim, this.sim.group(group), at, mode, restartAfterMs);
  }

  /** Two processes join on one machine for `stayMs`; with `sharedName` they share one clientId. */
  pair(group: string, at: number, stayMs: number, sharedName: string | undefined): void {
    startPair(this.sim, this.sim.group(group), at, stayMs, sharedName);
  }

  /** An operator resets the group's offsets to `backMs` before `at` while it runs. */
  resetOffset(group: string, at: number, backMs: number): void {
    resetOffsets(this.sim, this.sim.group(group), at, backMs);
  }

  restartBroker(broker: BrokerName, at: number, downMs: number): void {
    restartBroker(this.sim, broker, at, downMs);
  }

  /** Redis restarts without persistence: the group's markers are gone. */
  restartRedis(group: string, at: number): void {
    const state = this.sim.group(group);
    this.sim.at(at, () => state.dedup.forgetVolatile());
  }
}
