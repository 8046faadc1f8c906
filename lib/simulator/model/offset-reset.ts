import { SECOND } from "../clock.ts";
import { queueKey } from "../allocation.ts";
import { schedulePull } from "./consume.ts";
import type { Sim } from "./sim.ts";
import { ProcessQueue, type GroupState } from "./state.ts";

/** Where the operator runs mqadmin from: the broker logs it as `started by <ip:port>`. */
const ADMIN = "10.0.9.9";
/** MQClientInstance.resetOffset: the consumer is suspended, its process queues dropped, then it sleeps 10 s. */
const RESET_PAUSE_MS = 10 * SECOND;

/**
 * `mqadmin resetOffsetByTime -g <group> -t <topic> -s <time>` while the group runs (client-side reset, the default):
 * each broker logs the request and tells every client of the group; each client logs `invoke reset offset operation
 * from broker`, drops its queues of the topic, waits 10 s and pulls again from the first offset stored at or after
 * the time — re-consuming everything it had consumed since (field samples, issue 17 §2.1).
 */
export function resetOffsets(sim: Sim, group: GroupState, at: number, backMs: number): void {
  sim.at(at, () => {
    const to = sim.now - backMs;
    const topic = group.spec.topic;
    const members = group.members.filter((m) => m.running);
    group.lastResetAt = sim.now;
    const port = sim.rng.int(32768, 60999);
    for (const broker of Object.values(sim.brokers)) {
      if (!broker.up) continue;
      sim.brokerLine(broker, "broker", sim.now, { type: "reset_offset_started", by: `${ADMIN}:${port}`, topic, group: group.name, timestamp: to });
      for (const m of members) sim.brokerLine(broker, "broker", sim.now + sim.rng.int(1, 40), { type: "reset_offset_success", topic, group: group.name, clientId: m.clientId });
    }
    for (const instance of members) {
      const brokerAddr = Object.values(sim.brokers).find((b) => b.up)?.addr ?? "";
      sim.clientLine(instance, sim.now + sim.rng.int(2, 60), { type: "reset_offset", brokerAddr, topic, group: group.name, timestamp: to });
      for (const pq of [...instance.pqs.values()]) {
        if (pq.ref.topic !== topic) continue;
        const queue = sim.queue(pq.ref);
        let offset = queue.baseOffset;
        while (offset < queue.maxOffset && (queue.copyAt(offset)?.storeAt ?? Number.POSITIVE_INFINITY) < to) offset++;
        group.committed.set(pq.key, Math.min(offset, pq.commitOffset()));
        pq.dropped = true;
        instance.pqs.delete(pq.key);
        sim.at(sim.now + RESET_PAUSE_MS, () => {
          if (!instance.running || instance.pqs.has(queueKey(pq.ref))) return;
          const again = new ProcessQueue(pq.ref, group.committed.get(pq.key) ?? offset);
          instance.pqs.set(again.key, again);
          sim.clientLine(instance, sim.now, { type: "add_mq", group: group.name, mq: pq.ref });
          schedulePull(sim, instance, again, sim.now + sim.rng.int(2, 10));
        });
      }
    }
  });
}
