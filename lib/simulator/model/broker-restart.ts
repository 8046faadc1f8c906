import { lastTick } from "../clock.ts";
import { DEFAULTS, type BrokerName } from "../topology.ts";
import { deliverScheduled } from "./broker-ops.ts";
import { resumePulls } from "./consume.ts";
import { reRegisterAll } from "./membership.ts";
import type { Sim } from "./sim.ts";
import type { BrokerState } from "./state.ts";

/**
 * A broker crash and restart. The schedule service persists its delivery progress every 10 s, so delayed messages
 * delivered since the last persist are delivered again after the restart: two copies in the real topic. Consumers
 * reconnect and pulls resume; the route is not changed (the model keeps the broker's queues assigned meanwhile).
 */
export function restartBroker(sim: Sim, name: BrokerName, at: number, downMs: number): void {
  const broker = sim.brokers[name];
  sim.at(at, () => {
    if (!broker.up) return;
    broker.up = false;
    const persistedAt = lastTick(broker.phases.delayPersist, DEFAULTS.delayOffsetPersistMs, sim.now);
    for (const entry of broker.schedule) {
      if (entry.rewritable && entry.deliveredAt !== undefined && entry.deliveredAt > persistedAt) {
        entry.deliveredAt = undefined;
        entry.again = true;
      }
    }
    sim.at(sim.now + downMs, () => bootBroker(sim, broker));
  });
}

function bootBroker(sim: Sim, broker: BrokerState): void {
  broker.up = true;
  sim.brokerLine(broker, "broker", sim.now, { type: "broker_boot", brokerName: broker.name, brokerAddr: broker.addr });
  let at = sim.now + sim.rng.int(200, 600);
  for (const entry of broker.schedule) {
    if (entry.deliveredAt !== undefined || entry.dueAt > sim.now) continue;
    sim.at(at, () => deliverScheduled(sim, broker, entry));
    at += sim.rng.int(0, 40);
  }
  reRegisterAll(sim, broker);
  resumePulls(sim, broker);
}
