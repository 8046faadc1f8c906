import { evidence, type Evidence } from "../evidence.ts";
import { eventsOf, type Pair, type RuleResult } from "../pair.ts";
import { str } from "../sources.ts";

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
 * policy's redelivery: retry_after_failure).
 */
export function invisibleTimeout(p: Pair): RuleResult | null {
  if (p.sameMsgId !== true || p.second.direct || p.first.broker !== "rocketmq" || !fromClient5(p)) return null;
  if (p.first.consume === "failed" || p.first.consume === "timeout" || p.first.end === null) return null;
  // Sooner than any lease can run out: another stored copy (producer_retry), not a redelivery.
  if (p.second.start - p.first.start < MIN_INVISIBLE_MS - p.options.clockSkewMs) return null;
  const found: Evidence[] = [...p.copy.evidence];
  const ids = [p.first.startEventId, p.second.startEventId];
  if (p.second.start < p.first.end) {
    found.push(evidence("redelivered_while_processing", "cause", ids, { instance: p.first.instance, secondInstance: p.second.instance, firstEnd: p.first.end, secondStart: p.second.start }));
    return { cause: "invisible_timeout", score: 0.85, evidence: found };
  }
  found.push(evidence("redelivered_without_failure", "cause", ids, { instance: p.first.instance, firstEnd: p.first.end, gapMs: p.second.start - p.first.end }));
  return { cause: "invisible_timeout", score: 0.7, evidence: found };
}

/** The first attempt was traced by the RocketMQ 5 (gRPC) client's instrumentation, whose consumers lease messages. */
export function fromClient5(p: Pair): boolean {
  return eventsOf(p, p.first).some((e) => (str(e.detail.scope) ?? "").includes("rocketmq-client-5"));
}
