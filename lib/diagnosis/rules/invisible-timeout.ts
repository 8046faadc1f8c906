import type { NormalizedEvent } from "../../events/model.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import { eventsOf, type Pair, type RuleResult } from "../pair.ts";
import { states } from "../../events/facts.ts";
import { factsFor, str } from "../sources.ts";
import { placeWithin } from "../time.ts";

const RECEIPT_HANDLE = factsFor("receipt_handle");

/**
 * The shortest lease a RocketMQ 5 receive may take (the proxy's minInvisibleTimeMillsForRecv, 10 s): nothing the
 * broker redelivers comes back sooner after a delivery. A push consumer's lease is 60 s, renewed by the proxy while
 * the consume runs; a simple consumer names its own, from 10 s up.
 */
export const MIN_INVISIBLE_MS = 10_000;

/**
 * invisible_timeout: RocketMQ 5 leases each received message for an invisible duration and must ack before it runs
 * out; when it does not (a consume that outlived a simple consumer's lease, an ack or lease renewal that failed, a
 * client the proxy took for gone), the message becomes visible again and another receive gets it, sometimes while
 * the first attempt still runs. Worded like consume_timeout, but no retry round or send-back marks it: the
 * rocketmq-client-5.0 spans show a second process span of the same message id, at least the shortest lease after
 * the first, which either overlaps the first or follows one that ended without an error (a FAILURE is the retry
 * policy's redelivery: retry_after_failure). The 5.x client's log says it outright, with or without spans: the ack
 * of the message (or the extension of its lease) refused because the receipt handle had expired.
 */
export function invisibleTimeout(p: Pair): RuleResult | null {
  if (p.sameMsgId !== true || p.second.direct || p.first.broker !== "rocketmq") return null;
  if (p.first.consume === "failed" || p.first.consume === "timeout") return null;
  // Sooner than any lease can run out: another stored copy (producer_retry), not a redelivery.
  if (p.second.start - p.first.start < MIN_INVISIBLE_MS - p.options.clockSkewMs) return null;
  const found: Evidence[] = [...p.copy.evidence];
  const refused = refusedSettlement(p);
  if (refused !== undefined) {
    // The 5.x client's own account: the proxy refused to settle this message because its lease had run out.
    const values = { instance: refused.instance, ts: refused.ts, msgId: p.first.msgId ?? "", operation: str(refused.detail.operation) === "ack" ? "ack" : "change_invisible_duration", status: str(refused.detail.status) } as const;
    found.push(evidence("receipt_handle_expired", "cause", [refused.id], values));
    return { cause: "invisible_timeout", score: 0.92, evidence: found };
  }
  if (!fromClient5(p) || p.first.end === null) return null;
  const ids = [p.first.startEventId, p.second.startEventId];
  if (p.second.start < p.first.end) {
    found.push(evidence("redelivered_while_processing", "cause", ids, { instance: p.first.instance, secondInstance: p.second.instance, firstEnd: p.first.end, secondStart: p.second.start }));
    return { cause: "invisible_timeout", score: 0.85, evidence: found };
  }
  found.push(evidence("redelivered_without_failure", "cause", ids, { instance: p.first.instance, firstEnd: p.first.end, gapMs: p.second.start - p.first.end }));
  return { cause: "invisible_timeout", score: 0.7, evidence: found };
}

/** How long after the redelivery the first consumer may still be finishing the attempt and logging its refused ack. */
const LATE_SETTLE_MS = 15 * 60_000;

/**
 * The first consumer's 5.x client log: an ack (or a lease extension) of this very message refused for an expired
 * receipt handle, between its delivery and a while after the redelivery (it comes when the slow attempt ends).
 */
function refusedSettlement(p: Pair): NormalizedEvent | undefined {
  const msgId = p.first.msgId;
  if (msgId === null) return undefined;
  const { clockSkewMs } = p.options;
  return p.context.find(
    (e) =>
      states(e, RECEIPT_HANDLE) &&
      e.msgId === msgId &&
      instanceRelation(e.instance, p.first.instance) !== "different" &&
      placeWithin(e, p.first.start, p.second.start + LATE_SETTLE_MS, clockSkewMs).inside,
  );
}

/** The first attempt was traced by the RocketMQ 5 (gRPC) client's instrumentation, whose consumers lease messages. */
export function fromClient5(p: Pair): boolean {
  return eventsOf(p, p.first).some((e) => (str(e.detail.scope) ?? "").includes("rocketmq-client-5"));
}
