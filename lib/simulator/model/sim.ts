import { queueKey, type QueueRef } from "../allocation.ts";
import { lastTick, SIM_EPOCH } from "../clock.ts";
import { DedupStack } from "../dedup-layers.ts";
import { EventQueue } from "../event-queue.ts";
import { Outputs, type BrokerEvent, type ClientEvent, type DedupRecord } from "../records.ts";
import { Rng } from "../random.ts";
import {
  BROKER_IPS,
  BROKER_NAMES,
  BROKER_PORT,
  DEFAULTS,
  producerSpec,
  QUEUES_PER_BROKER,
  type BrokerName,
  type GroupSpec,
} from "../topology.ts";
import { BrokerState, GroupState, Host, ProducerProcess, QueueState, type Attempt, type ConsumerInstance, type Delivery } from "./state.ts";

export interface SimOptions {
  seed: number;
  /** Each host's clock is off by up to this much, either way. */
  skewMs: number;
  groups: readonly GroupSpec[];
  /** True time the cluster starts (default SIM_EPOCH); every periodic task's phase is relative to it. */
  startAt?: number;
}

/** After the last message-related event, housekeeping (offset commits) runs this much longer, then the run ends. */
const TAIL_MS = 30_000;

/**
 * The core of the model: the event loop, the registries and the helpers every part writes its records through.
 * Producing, consuming and membership live in their own modules and act on a Sim.
 */
export class Sim {
  readonly epoch: number;
  now: number;
  readonly rng: Rng;
  readonly skewMs: number;
  readonly out = new Outputs();
  readonly deliveries: Delivery[] = [];
  /** Attempts not yet settled, by id: a GET-then-SET check asks whether the attempt racing it already returned. */
  readonly liveAttempts = new Map<number, Attempt>();
  readonly brokers: Record<BrokerName, BrokerState>;
  readonly groups = new Map<string, GroupState>();
  readonly producers = new Map<string, ProducerProcess[]>();
  private readonly queues = new Map<string, QueueState>();
  private readonly events = new EventQueue();
  private pendingWork = 0;
  private lastWorkAt: number;
  private ids = 1;
  private readonly usedPids = new Set<number>();

  constructor(options: SimOptions) {
    this.epoch = options.startAt ?? SIM_EPOCH;
    this.now = this.epoch;
    this.lastWorkAt = this.epoch;
    this.rng = new Rng(options.seed).fork("model");
    this.skewMs = options.skewMs;
    const brokerRng = this.rng.fork("brokers");
    const makeBroker = (name: BrokerName) =>
      new BrokerState(
        name,
        BROKER_IPS[name],
        BROKER_PORT,
        brokerRng.int(-20, 20),
        { scan: this.epoch + brokerRng.int(0, 9_999), delayPersist: this.epoch + brokerRng.int(0, 9_999), txCheck: this.epoch + brokerRng.int(0, 59_999) },
        brokerRng,
      );
    this.brokers = { "broker-a": makeBroker("broker-a"), "broker-b": makeBroker("broker-b") };
    for (const spec of options.groups) {
      this.groups.set(spec.name, new GroupState(spec, new DedupStack(spec.stack, spec.markerPrefix)));
    }
    for (const name of new Set(options.groups.map((g) => g.producer))) {
      const spec = producerSpec(name);
      this.producers.set(name, spec.hosts.map((ip) => new ProducerProcess(name, this.newHost(ip), this.rng)));
    }
  }

  nextId(): number {
    return this.ids++;
  }

  /** A process on `ip` with a fresh pid and its own clock skew (or `skewMs`: another process of the same machine). */
  newHost(ip: string, skewMs?: number): Host {
    let pid = this.rng.int(1000, 65000);
    while (this.usedPids.has(pid)) pid = this.rng.int(1000, 65000);
    this.usedPids.add(pid);
    const skew = this.rng.int(-this.skewMs, this.skewMs);
    return new Host(ip, pid, skewMs ?? skew, this.rng);
  }

  /** Schedules part of a message's story; the run lasts until none is left. */
  at(t: number, run: () => void): void {
    this.pendingWork++;
    this.events.push(Math.max(Math.round(t), this.now), run, true);
  }

  /** Schedules housekeeping, which does not keep the run alive on its own. */
  housekeeping(t: number, run: () => void): void {
    this.events.push(Math.max(Math.round(t), this.now), run, false);
  }

  run(): void {
    for (let next = this.events.pop(); next; next = this.events.pop()) {
      if (!next.work && this.pendingWork === 0 && next.at > this.lastWorkAt + TAIL_MS) break;
      this.now = Math.max(this.now, next.at);
      if (next.work) this.pendingWork--;
      next.run();
      if (next.work) this.lastWorkAt = this.now;
    }
  }

  group(name: string): GroupState {
    const group = this.groups.get(name);
    if (!group) throw new Error(`group ${name} is not part of this run`);
    return group;
  }

  groupsOfTopic(topic: string): GroupState[] {
    return [...this.groups.values()].filter((g) => g.spec.topic === topic || `%RETRY%${g.name}` === topic);
  }

  /** All queues of a topic: four per broker for business topics, one per broker for retry topics. */
  topicQueues(topic: string): QueueRef[] {
    const perBroker = topic.startsWith("%RETRY%") || topic.startsWith("%DLQ%") ? 1 : QUEUES_PER_BROKER;
    return BROKER_NAMES.flatMap((broker) => Array.from({ length: perBroker }, (_, queueId) => ({ topic, broker, queueId })));
  }

  queue(ref: QueueRef): QueueState {
    const key = queueKey(ref);
    let queue = this.queues.get(key);
    if (!queue) {
      const internal = ref.topic.startsWith("%");
      queue = new QueueState(ref, internal ? this.rng.int(0, 400) : this.rng.int(20_000, 900_000));
      this.queues.set(key, queue);
    }
    return queue;
  }

  broker(name: string): BrokerState {
    return this.brokers[name as BrokerName];
  }

  clientLine(owner: ConsumerInstance | ProducerProcess, at: number, event: ClientEvent, thread = 1): void {
    const log = this.out.clientLog(owner.clientLog, owner.host.canonical, owner.host.pid);
    log.entries.push({ at: owner.host.local(at), thread, event });
  }

  brokerLine(broker: BrokerState, file: "broker" | "transaction", at: number, event: BrokerEvent): void {
    const name = file === "broker" ? broker.brokerLog : broker.transactionLog;
    this.out.brokerLog(name, broker.name).entries.push({ at: broker.local(at), event });
  }

  dedupLine(instance: ConsumerInstance, record: Omit<DedupRecord, "ts" | "group" | "instance"> & { at: number }): void {
    const { at, ...rest } = record;
    const log = this.out.dedupLog(instance.dedupLog, instance.host.canonical);
    // What the emitters write by default (packages/dedup, emitters/java): ip@pid, which also tells apart two
    // processes that share a clientId.
    log.records.push({ ts: instance.host.local(at), group: instance.group.name, instance: instance.host.canonical, ...rest });
  }

  /** Consumers send heartbeats every 30 s from their start; the last one at or before t. */
  lastHeartbeat(instance: ConsumerInstance, t: number): number {
    const phase = instance.phases.heartbeat;
    return t < phase ? instance.startedAt : lastTick(phase, DEFAULTS.heartbeatIntervalMs, t);
  }
}
