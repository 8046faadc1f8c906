import { allocateAveragely, queueKey, type QueueRef } from "../allocation.ts";
import { nextTick } from "../clock.ts";
import type { ChannelView } from "../records.ts";
import { BROKER_NAMES, DEFAULTS, retryTopic, type BrokerName } from "../topology.ts";
import { persistOffsets, schedulePull } from "./consume.ts";
import type { Sim } from "./sim.ts";
import { ConsumerInstance, ProcessQueue, type BrokerState, type GroupState, type Host } from "./state.ts";
import { dropTrace, flushTrace } from "./trace-dispatch.ts";

/**
 * Group membership as brokers and clients see it: consumers start and register, stop and unregister, or vanish
 * (killed: the broker sees the channel close at once; host down: the broker expires the channel 120 s after the
 * last heartbeat). Every change makes the brokers notify the members, which rebalance at once — unless the
 * notification is missed, and then at their next 20 s tick. Each member rebalances on its own, so for a while two
 * instances can hold one queue, or none.
 */

/** Share of notifications a client acts on at once; the rest wait for the periodic rebalance. */
const NOTIFY_PROMPTLY = 0.8;

/** An instance with a consume running longer than this is not picked as a crash victim (see crashInstance). */
const LONG_CONSUME_MS = 60_000;

export type CrashMode = "kill" | "host_down";

function channelView(instance: ConsumerInstance, broker: BrokerState, lastUpdate: number, closed: boolean): ChannelView {
  const channel = instance.channels[broker.name];
  return {
    channelId: channel.id,
    brokerAddr: broker.addr,
    remoteAddr: `${instance.host.ip}:${channel.port}`,
    clientId: instance.clientId,
    version: 453,
    lastUpdateTimestamp: broker.local(lastUpdate),
    closed,
  };
}

function upBrokers(sim: Sim): BrokerState[] {
  return BROKER_NAMES.map((name) => sim.brokers[name]).filter((b) => b.up);
}

/** A consumer process starts (on `ip`, or the group's next host), registers with the brokers, then rebalances. */
export function startInstance(sim: Sim, group: GroupState, at: number, ip?: string, onStarted?: (instance: ConsumerInstance) => void): void {
  sim.at(at, () => {
    const instance = launch(sim, group, sim.newHost(ip ?? `10.0.${group.spec.subnet}.${group.nextHost++}`));
    onStarted?.(instance);
  });
}

function launch(sim: Sim, group: GroupState, host: Host, instanceName?: string): ConsumerInstance {
  const instance = new ConsumerInstance(group, host, sim.now, sim.rng, instanceName);
  sim.clientLine(instance, sim.now, { type: "factory_start", clientId: instance.clientId });
  sim.clientLine(instance, sim.now + 1, { type: "consumer_start", group: group.name });
  sim.at(sim.now + sim.rng.int(3, 12), () => register(sim, instance));
  return instance;
}

/**
 * Two processes start on one new machine (host networking: one IP) and shut down gracefully `stayMs` later. With
 * `sharedName` both set the same instanceName, so both have the clientId `ip@name`: the broker counts two channels
 * of one clientId, the allocation gives both the same queues (and nobody the last share), and both consume every
 * message of those queues. Without it, each has its pid in its clientId and they are two members like any others.
 */
export function startPair(sim: Sim, group: GroupState, at: number, stayMs: number, sharedName: string | undefined): void {
  sim.at(at, () => {
    const ip = `10.0.${group.spec.subnet}.${group.nextHost++}`;
    const first = sim.newHost(ip);
    for (const host of [first, sim.newHost(ip, first.skewMs)]) {
      const instance = launch(sim, group, host, sharedName);
      stopInstance(sim, instance, at + stayMs + sim.rng.int(0, 2000));
    }
  });
}

function register(sim: Sim, instance: ConsumerInstance): void {
  if (!instance.running) return;
  const group = instance.group;
  const brokers = upBrokers(sim);
  for (const broker of brokers) {
    sim.brokerLine(broker, "broker", sim.now + sim.rng.int(0, 3), { type: "consumer_connected", group: group.name, messageModel: group.spec.messageModel ?? "CLUSTERING", channel: channelView(instance, broker, sim.now, false) });
  }
  group.members.push(instance);
  notifyMembers(sim, group, sim.now, brokers, instance);
  sim.at(sim.now + sim.rng.int(10, 30), () => rebalance(sim, instance));
}

/** The brokers tell every member the group changed; a member that misses it rebalances at its next tick. */
function notifyMembers(sim: Sim, group: GroupState, at: number, brokers: readonly BrokerState[], except?: ConsumerInstance): void {
  for (const member of group.members) {
    if (member === except || !member.running) continue;
    if (!sim.rng.chance(NOTIFY_PROMPTLY)) {
      sim.at(nextTick(member.phases.rebalance, DEFAULTS.rebalanceIntervalMs, at), () => rebalance(sim, member));
      continue;
    }
    let t = at + sim.rng.int(1, 25);
    for (const broker of brokers) {
      sim.clientLine(member, t, { type: "notification", brokerAddr: broker.addr, group: group.name });
      t += sim.rng.int(0, 3);
    }
    sim.at(t + sim.rng.int(5, 30), () => rebalance(sim, member));
  }
}

/** RebalanceImpl.rebalanceByTopic for the group's topic and its retry topic, with the client log lines it writes. */
export function rebalance(sim: Sim, instance: ConsumerInstance): void {
  const group = instance.group;
  if (!instance.running || !group.members.includes(instance)) return;
  const cids = group.cids();
  // BROADCASTING takes every queue of the topic and has no retry topic (a failed broadcast is not sent back).
  const broadcasting = group.spec.messageModel === "BROADCASTING";
  for (const topic of broadcasting ? [group.spec.topic] : [group.spec.topic, retryTopic(group.name)]) {
    const mqAll = sim.topicQueues(topic);
    const wanted = broadcasting ? mqAll : allocateAveragely(mqAll, cids, instance.clientId);
    const wantedKeys = new Set(wanted.map(queueKey));
    let changed = false;
    for (const pq of [...instance.pqs.values()]) {
      if (pq.ref.topic !== topic || wantedKeys.has(pq.key)) continue;
      removeQueue(sim, instance, pq);
      changed = true;
    }
    for (const ref of wanted) {
      if (instance.pqs.has(queueKey(ref))) continue;
      addQueue(sim, instance, ref);
      changed = true;
    }
    // BROADCASTING prints no result line (RebalanceImpl logs `messageQueueChanged` instead).
    if (changed && !broadcasting) {
      sim.clientLine(instance, sim.now, { type: "rebalance_result", group: group.name, topic, clientId: instance.clientId, mqAllSize: mqAll.length, cidAllSize: cids.length, queues: wanted });
    }
  }
}

/** removeUnnecessaryMessageQueue persists the queue's offset first; messages still being consumed are not in it. */
function removeQueue(sim: Sim, instance: ConsumerInstance, pq: ProcessQueue): void {
  persistOffsets(sim, instance, pq);
  pq.dropped = true;
  instance.pqs.delete(pq.key);
  sim.clientLine(instance, sim.now, { type: "remove_mq", group: instance.group.name, mq: pq.ref });
}

/** A new owner starts from the offset the broker has, which may be behind what the old owner consumed. */
function addQueue(sim: Sim, instance: ConsumerInstance, ref: QueueRef): void {
  const pq = new ProcessQueue(ref, instance.group.committed.get(queueKey(ref)) ?? sim.queue(ref).baseOffset);
  instance.pqs.set(pq.key, pq);
  sim.clientLine(instance, sim.now, { type: "add_mq", group: instance.group.name, mq: ref });
  schedulePull(sim, instance, pq, sim.now + sim.rng.int(2, 10));
}

/** A scale-out: a new instance joins at `at` and is shut down gracefully `stayMs` later. */
export function scaleOutAndIn(sim: Sim, group: GroupState, at: number, stayMs: number): void {
  startInstance(sim, group, at, undefined, (instance) => stopInstance(sim, instance, at + stayMs));
}

/** When the last consume call running on `instance` returns (a shutdown or crash waits for it, see below). */
function quietAt(sim: Sim, instance: ConsumerInstance): number {
  let at = sim.now;
  for (const attempt of instance.attempts) if (!attempt.returned) at = Math.max(at, attempt.returnAt + 1);
  return at;
}

/**
 * A graceful shutdown: the consume threads finish, offsets are persisted, the client unregisters. The model lets
 * running consume calls finish first, so every delivery's effect is known from its own log lines.
 */
export function stopInstance(sim: Sim, instance: ConsumerInstance, at: number): void {
  sim.at(at, () => {
    if (!instance.running) return;
    const quiet = quietAt(sim, instance);
    if (quiet > sim.now) {
      stopInstance(sim, instance, quiet);
      return;
    }
    persistOffsets(sim, instance);
    for (const pq of instance.pqs.values()) pq.dropped = true;
    instance.pqs.clear();
    flushTrace(sim, instance);
    instance.state = "stopped";
    sim.clientLine(instance, sim.now, { type: "consumer_shutdown", group: instance.group.name });
    leaveGroup(sim, instance, "consumer_unregistered", BROKER_NAMES.map(() => sim.now + sim.rng.int(1, 8)));
  });
}

/** Each broker drops the member at its own time; the group changes (and members are told) at the first. */
function leaveGroup(sim: Sim, instance: ConsumerInstance, how: "consumer_unregistered" | "channel_inactive" | "channel_expired", times: readonly number[]): void {
  const group = instance.group;
  const lastHeartbeat = sim.lastHeartbeat(instance, sim.now);
  BROKER_NAMES.forEach((name: BrokerName, i) => {
    const broker = sim.brokers[name];
    const at = times[i] ?? sim.now;
    if (!broker.up) return;
    if (how === "channel_expired") {
      const channel = instance.channels[name];
      sim.brokerLine(broker, "broker", at, { type: "channel_expired", group: group.name, remoteAddr: `${instance.host.ip}:${channel.port}` });
    } else {
      sim.brokerLine(broker, "broker", at, { type: how, group: group.name, channel: channelView(instance, broker, lastHeartbeat, how === "channel_inactive") });
    }
  });
  sim.at(Math.min(...times), () => {
    const index = group.members.indexOf(instance);
    if (index >= 0) group.members.splice(index, 1);
    notifyMembers(sim, group, sim.now, upBrokers(sim));
  });
}

/**
 * A consumer process dies without shutting down: nothing is persisted, unflushed trace records are lost. Killed,
 * its sockets close and the brokers drop it at once; with its host gone, each broker expires it at the first 10 s
 * scan more than 120 s after its last heartbeat. It restarts (new pid, same host) `restartAfterMs` later.
 * The victim is a running member without a long consume in progress, never the last one.
 */
export function crashInstance(sim: Sim, group: GroupState, at: number, mode: CrashMode, restartAfterMs: number): void {
  sim.at(at, () => {
    const running = group.members.filter((m) => m.running);
    const candidates = running.filter((m) => [...m.attempts].every((a) => a.returned || a.returnAt - sim.now < LONG_CONSUME_MS));
    if (running.length < 2 || candidates.length === 0) return;
    crashWhenQuiet(sim, sim.rng.pick(candidates), mode, restartAfterMs);
  });
}

function crashWhenQuiet(sim: Sim, instance: ConsumerInstance, mode: CrashMode, restartAfterMs: number): void {
  const quiet = quietAt(sim, instance);
  if (quiet > sim.now) {
    sim.at(quiet, () => crashWhenQuiet(sim, instance, mode, restartAfterMs));
    return;
  }
  instance.state = "crashed";
  dropTrace(instance);
  for (const pq of instance.pqs.values()) pq.dropped = true;
  instance.pqs.clear();
  if (mode === "kill") {
    leaveGroup(sim, instance, "channel_inactive", BROKER_NAMES.map(() => sim.now + sim.rng.int(0, 15)));
  } else {
    const deadline = sim.lastHeartbeat(instance, sim.now) + DEFAULTS.channelExpiredMs;
    leaveGroup(sim, instance, "channel_expired", BROKER_NAMES.map((name) => nextTick(sim.brokers[name].phases.scan, DEFAULTS.brokerScanIntervalMs, deadline)));
  }
  startInstance(sim, instance.group, sim.now + restartAfterMs, instance.host.ip);
}

/** After a broker restart every running consumer reconnects at its next heartbeat; the broker notifies the group. */
export function reRegisterAll(sim: Sim, broker: BrokerState): void {
  for (const group of sim.groups.values()) {
    for (const member of group.members) {
      if (!member.running) continue;
      sim.at(nextTick(member.phases.heartbeat, DEFAULTS.heartbeatIntervalMs, sim.now), () => {
        if (!member.running || !broker.up) return;
        member.channels[broker.name] = { port: sim.rng.int(32768, 60999), id: `0x${sim.rng.hex(8).toLowerCase()}` };
        sim.brokerLine(broker, "broker", sim.now, { type: "consumer_connected", group: group.name, messageModel: group.spec.messageModel ?? "CLUSTERING", channel: channelView(member, broker, sim.now, false) });
        notifyMembers(sim, group, sim.now, [broker], member);
      });
    }
  }
}
