import type { NormalizedEvent } from "../events/model.ts";
import type { EffectRows } from "./effect-rows.ts";
import { anySame, contextIndex } from "./context-index.ts";
import { hasProcess, hostOf } from "./identity.ts";
import type { Delivery, MissingData, Verdict } from "./types.ts";

/**
 * What diagnosis would have needed and did not get, so a reader knows which source to switch on before trusting
 * (or instead of trusting) a verdict: producer and consumer traces, the dedup log, client logs of the instances
 * involved, the broker log, process-level identities.
 */
export function findMissing(
  deliveries: readonly Delivery[],
  verdicts: readonly Verdict[],
  keyEvents: readonly NormalizedEvent[],
  published: (msgId: string) => boolean,
  context: readonly NormalizedEvent[],
  effectRows: EffectRows = new Map(),
): MissingData[] {
  const notes = new Map<string, MissingData>();
  const add = (m: MissingData) => notes.set(JSON.stringify([m.code, m.group ?? null, m.instance ?? null, m.msgId ?? null]), m);
  // Spans whose resource named only their service (no pod, host or pid): every replica of it has this identity. A
  // delivery starts with one of the key's own events.
  const serviceOnly = new Set(keyEvents.filter((e) => e.detail.instanceFrom === "service.name").map((e) => e.id));

  for (const d of deliveries) {
    if (serviceOnly.has(d.startEventId)) add({ code: "service_only_identity", group: d.group, instance: d.instance });
    if (d.broker === "rocketmq" && d.msgId !== null && !published(d.msgId)) add({ code: "no_pub_trace", msgId: d.msgId });
    if (d.msgId === null) add({ code: "no_msg_id", group: d.group });
    if (d.sources.includes("trace") && d.endEventId === null && d.consume === "unknown") add({ code: "no_consume_end", group: d.group, instance: d.instance, msgId: d.msgId, ts: d.start });
  }
  const groups = new Map<string | null, Delivery[]>();
  for (const d of deliveries) groups.set(d.group, [...(groups.get(d.group) ?? []), d]);
  for (const [group, list] of groups) {
    // OpenTelemetry spans are a consume trace too (RocketMQ 5's gRPC clients write no trace topic).
    if (list[0]?.broker === "rocketmq" && !list.some((d) => d.sources.includes("trace") || d.sources.includes("otel"))) add({ code: "no_consume_trace", group });
    // Rows of the business table tell whether a duplicate was caught without the dedup log (rules/outcome.ts).
    if (!list.some((d) => d.dedup.length > 0) && (effectRows.get(group)?.length ?? 0) === 0) add({ code: "no_dedup_log", group });
  }

  const byId = new Map(deliveries.map((d) => [d.id, d]));
  for (const v of verdicts) {
    const second = byId.get(v.deliveries[1]);
    if (second !== undefined && second.dedup.length === 0 && groups.get(v.group)?.some((d) => d.dedup.length > 0)) {
      add({ code: "no_dedup_line", group: v.group, instance: second.instance, ts: second.start });
    }
    // Ownership causes rest on the consumers' client logs and the broker's view of the group.
    if (!["rebalance", "ack_lost", "unknown"].includes(v.cause)) continue;
    const index = contextIndex(context);
    if (second?.broker === "rabbitmq") {
      // RabbitMQ consumers are seen through the broker (event exchange, server log), not through client logs.
      const first = v.instances.first;
      if (first !== null && !anySame(index.memberInstances, first)) add({ code: "no_event_exchange", group: v.group, instance: first });
      continue;
    }
    for (const instance of [v.instances.first, v.instances.second]) {
      if (instance === null) continue;
      if (!anySame(index.clientLogInstances, instance)) add({ code: "no_client_log", group: v.group, instance });
    }
    const rocketmq = second?.broker === "rocketmq";
    if (rocketmq && !index.brokerLogGroups.has(null) && !index.brokerLogGroups.has(v.group)) add({ code: "no_broker_log", group: v.group });
    const [a, b] = [v.instances.first, v.instances.second];
    if (a !== null && b !== null && !hasProcess(a) && !hasProcess(b) && hostOf(a) === hostOf(b)) add({ code: "host_only_identity", group: v.group, instance: a });
  }
  return [...notes.values()];
}
