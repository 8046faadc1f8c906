import type { NormalizedEvent } from "../../events/model.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { eventsOf, retryAdvanced, type Pair } from "../pair.ts";
import type { Delivery } from "../types.ts";

/**
 * Shared facts of the consumer-retry causes (consume_timeout, retry_after_failure): how the retry relates to the
 * attempt before it. A RocketMQ retry carries retryTimes + 1 and comes after the retry delay of its round (10 s,
 * 30 s, 1 min…; formats.md §3); an expired message is sent back at delay level 3 (10 s).
 */
export function retryEvidence(p: Pair, signalTs: number): Evidence[] {
  const found: Evidence[] = [];
  if (!retryAdvanced(p)) return found;
  const from = p.first.retryTimes!;
  const to = p.second.retryTimes!;
  found.push(evidence("retry_delivery", "cause", [p.first.startEventId, p.second.startEventId], { from, to }));
  const expectedMs = p.options.retryDelaysMs[Math.min(from, p.options.retryDelaysMs.length - 1)] ?? 0;
  const gapMs = p.second.start - signalTs;
  if (Math.abs(gapMs - expectedMs) <= Math.max(p.options.clockSkewMs, expectedMs * 0.2)) {
    found.push(evidence("retry_on_schedule", "cause", [p.second.startEventId], { retryTimes: to, expectedMs, gapMs }));
  }
  return found;
}

/** The record that reported how the attempt ended: the SubAfter, or a client-log failure/timeout line. */
export function endRecord(p: Pair, d: Delivery, match: (e: NormalizedEvent) => boolean): NormalizedEvent | undefined {
  return eventsOf(p, d).find((e) => e.kind === "consume_end" && match(e));
}
