import { evidence, type Evidence } from "../evidence.ts";
import type { Pair, RuleResult } from "../pair.ts";
import { isOffsetReset, num, str } from "../sources.ts";
import type { NormalizedEvent } from "../../events/model.ts";
import { placeWithin } from "../time.ts";

/**
 * offset_rollback: the group's committed offsets went backwards while it ran — an operator's `mqadmin
 * resetOffsetByTime` (the broker logs `[reset-offset] reset offset started by <admin>`, every client `invoke reset
 * offset operation from broker … timestamp=`), and every message since that time is consumed again, the same stored
 * copy in the same retry round, by whoever owns its queue then. It is an episode of the whole group: every key of
 * the window shares the reset line, which is how the findings gather them. A reset to a time after the first
 * delivery does not reach it.
 */
export function offsetRollback(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.copy.relation === "different" || p.second.direct) return null;
  if (p.first.retryTimes !== null && p.second.retryTimes !== null && p.first.retryTimes !== p.second.retryTimes) return null;
  const reset = resetBetween(p);
  if (reset === undefined) return null;
  const found: Evidence[] = [...p.copy.evidence];
  const at = placeWithin(reset, p.first.start, p.second.start, p.options.clockSkewMs);
  const by = str(reset.detail.by);
  const fromOffset = num(reset.detail.fromOffset);
  const toOffset = num(reset.detail.toOffset);
  const reason = RESET_REASONS.find((r) => r === reset.detail.reason);
  const offsets =
    reset.queue !== null && toOffset !== null
      ? { queue: reset.queue, toOffset, ...(fromOffset === null ? {} : { fromOffset }), ...(reason === undefined ? {} : { reason }) }
      : {};
  found.push(
    evidence(
      "offset_reset",
      "cause",
      [reset.id],
      { instance: reset.instance, ts: reset.ts, group: reset.group, topic: reset.topic, resetTo: num(reset.detail.resetTo), by, ...offsets },
      { coarse: at.coarse, tolerant: at.tolerant },
    ),
  );
  return { cause: "offset_rollback", score: 0.93, evidence: found };
}

const RESET_REASONS = ["offset_illegal", "out_of_range", "seek", "no_committed_offset"] as const;

/**
 * A reset of the pair's group (and topic, and queue, when both name one) between the two deliveries, rewinding to
 * before the first: to a time before it, or to an offset at or before its position in the queue. The broker's line
 * names who asked; the client's says to when — the first one that says most is kept.
 */
export function resetBetween(p: Pair): NormalizedEvent | undefined {
  const group = p.second.group ?? p.first.group;
  const topic = p.first.topic ?? p.second.topic;
  const queue = p.first.queue ?? p.second.queue;
  const { clockSkewMs } = p.options;
  const resets = p.context.filter(
    (e) =>
      isOffsetReset(e) &&
      str(e.detail.stage) !== "success" &&
      (group === null || e.group === null || e.group === group) &&
      (topic === null || e.topic === null || e.topic === topic) &&
      (queue === null || e.queue === null || e.queue === queue) &&
      placeWithin(e, p.first.start, p.second.start, clockSkewMs).inside,
  );
  const reaches = (e: NormalizedEvent) => {
    const to = num(e.detail.resetTo);
    const toOffset = num(e.detail.toOffset);
    if (toOffset !== null && p.first.queueOffset !== null && e.queue !== null && e.queue === p.first.queue && p.first.queueOffset < toOffset) return false;
    return to === null || to <= p.first.start + clockSkewMs;
  };
  const fitting = resets.filter(reaches);
  return fitting.find((e) => str(e.detail.by) !== null) ?? fitting.find((e) => num(e.detail.resetTo) !== null) ?? fitting[0];
}
