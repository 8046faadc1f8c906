import { evidence, type Evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import type { Delivery, LostMessage } from "../types.ts";

/**
 * A message whose business never ran: some delivery was skipped by a dedup layer, yet no delivery of the group
 * executed it (and none may have). With a failed or unfinished attempt before it that left its marker in place
 * (a pass on the layer that later said `hit`, and no `released` before that hit), the retry was skipped by that
 * attempt's marker: marker_not_released. A release that came only after the hit, as when a rebalance hands the
 * copy to a second consumer while the first still holds the marker and then fails, left it in place just the same;
 * across hosts "after" allows the clock skew. Otherwise the skip had no reason in this key's history (a Bloom false
 * positive, a state moved by another path). Flagged whether or not there is also a duplicate (docs/dedup-log.md,
 * "Marker not released").
 */
export function findLost(group: string | null, deliveries: readonly Delivery[], skewMs: number): LostMessage | null {
  if (deliveries.some((d) => d.effect === "executed" || d.effect === "ran" || d.effect === "unknown")) return null;
  const skipped = deliveries.find((d) => d.effect === "skipped");
  if (skipped === undefined) return null;
  const hit = skipped.dedup.find((d) => d.decision === "hit")!;
  const msgId = skipped.msgId;

  const attempts = deliveries.filter((d) => d !== skipped && (d.effect === "failed" || d.effect === "unfinished"));
  for (const failed of attempts.reverse()) {
    const toleranceMs = instanceRelation(failed.instance, skipped.instance) === "same" ? 0 : skewMs;
    const pass = failed.dedup.find((d) => d.decision === "pass" && d.layer === hit.layer && d.ts <= hit.ts + toleranceMs);
    const release = failed.dedup.find((d) => d.decision === "released" && d.layer === hit.layer);
    if (pass === undefined || (release !== undefined && release.ts < hit.ts - toleranceMs)) continue;
    const failure = failed.dedup.find((d) => d.decision === "failed");
    const how = release !== undefined ? "released_late" : failure === undefined ? "unfinished" : "failed";
    const values = { layer: hit.layer, instance: failed.instance, ts: release?.ts ?? failure?.ts ?? pass.ts, how } as const;
    const found: Evidence[] = [
      evidence("marker_left", "lost", [pass.eventId, failure?.eventId, release?.eventId], values, { tolerant: release !== undefined && release.ts < hit.ts }),
      evidence("retry_skipped", "lost", [hit.eventId], { layer: hit.layer, instance: skipped.instance, ts: hit.ts }),
      evidence("never_executed", "lost", [], {}),
    ];
    return { group, msgId, defect: "marker_not_released", confidence: 0.9, evidence: found, deliveries: [failed.id, skipped.id] };
  }
  return {
    group,
    msgId,
    confidence: 0.6,
    evidence: [evidence("retry_skipped", "lost", [hit.eventId], { layer: hit.layer, instance: skipped.instance, ts: hit.ts }), evidence("never_executed", "lost", [], {})],
    deliveries: [skipped.id],
  };
}
