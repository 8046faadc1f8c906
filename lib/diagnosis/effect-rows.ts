import type { NormalizedEvent } from "../events/model.ts";
import { instanceRelation } from "./identity.ts";
import { str } from "./sources.ts";
import type { Delivery, DiagnosisOptions } from "./types.ts";

/**
 * Rows of the business table itself (`dupscope probe`, docs/probe.md): `business_effect` events that name the probe
 * that read them (`detail.probe`) and carry no dedup decision. Each row is one committed side effect for the key,
 * stamped by the database's clock. They are not a delivery's own record (no msgId, no retry round), so they are put
 * next to the deliveries rather than into them: one row per delivery, the delivery of the row's group on a compatible
 * instance whose consume span contains the row's time (with the clock tolerance, the database being another host).
 * How many rows a group has is what decides an outcome (rules/outcome.ts): two rows are two effects, one row is one.
 */

export const isEffectRow = (e: NormalizedEvent): boolean => e.kind === "business_effect" && str(e.detail.probe) !== null && str(e.detail.decision) === null;

/** The group's rows, in time order, keyed by group (deliveries without a group under null). */
export type EffectRows = ReadonlyMap<string | null, readonly NormalizedEvent[]>;

/**
 * Files each row under its group and attaches it to the delivery that wrote it, when one can have: the delivery's
 * `effectRows` gets the row's id and its effect becomes `executed` (the table shows the commit). A row whose probe
 * named only a topic belongs to the group that consumed the key on that topic, when exactly one did. Deliveries the
 * dedup log says were skipped or failed cleanly wrote nothing, so no row is given to them.
 */
export function attachEffectRows(deliveries: Delivery[], keyEvents: readonly NormalizedEvent[], options: DiagnosisOptions): EffectRows {
  const byGroup = new Map<string | null, NormalizedEvent[]>();
  const rows = keyEvents.filter(isEffectRow).sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : 1));
  for (const row of rows) {
    const group = groupOf(row, deliveries);
    if (group === undefined) continue;
    byGroup.set(group, [...(byGroup.get(group) ?? []), row]);
  }

  const pairs: { row: NormalizedEvent; delivery: Delivery; cost: number }[] = [];
  for (const [group, list] of byGroup) {
    for (const row of list) {
      for (const d of deliveries) {
        if (d.group !== group || d.effect === "skipped" || d.effect === "failed") continue;
        const relation = instanceRelation(d.instance, row.instance);
        if (relation === "different") continue;
        const end = d.end ?? d.start + options.consumeTimeoutMs;
        if (row.ts < d.start - options.clockSkewMs || row.ts > end + options.clockSkewMs) continue;
        const committed = d.dedup.find((x) => x.decision === "executed")?.ts ?? d.start;
        pairs.push({ row, delivery: d, cost: Math.abs(row.ts - committed) + (relation === "incomparable" ? options.clockSkewMs : 0) });
      }
    }
  }
  pairs.sort((a, b) => a.cost - b.cost);
  const taken = new Set<NormalizedEvent>();
  for (const { row, delivery } of pairs) {
    if (taken.has(row) || delivery.effectRows !== undefined) continue;
    taken.add(row);
    delivery.effectRows = [row.id];
    delivery.effect = "executed";
  }
  return byGroup;
}

/** The row's group: its own, or for a topic-only probe the one group that consumed the key on that topic. */
function groupOf(row: NormalizedEvent, deliveries: readonly Delivery[]): string | null | undefined {
  if (row.group !== null) return row.group;
  const groups = new Set(deliveries.filter((d) => row.topic === null || d.topic === null || d.topic === row.topic).map((d) => d.group));
  return groups.size === 1 ? [...groups][0] : undefined;
}
