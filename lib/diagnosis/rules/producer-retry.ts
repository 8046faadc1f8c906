import { checkbacks, isDelayed } from "../copies.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { bothFirstDeliveries, eventsOf, sameInstance, type Pair, type RuleResult } from "../pair.ts";
import { isReplayed } from "../sources.ts";

/**
 * producer_retry: the producer resent after a send timeout, the broker kept both copies. Same msgId (UNIQ_KEY is
 * kept across attempts), a different offsetMsgId per copy, copies stored within the send-retry window
 * (sendMsgTimeout × attempts), both consumed as first deliveries (formats.md §1 semantics 1, §6).
 */
export function producerRetry(p: Pair): RuleResult | null {
  if (p.sameMsgId !== true || !bothFirstDeliveries(p) || p.copy.relation === "same" || p.firstMsg === null) return null;
  // A RabbitMQ copy carrying x-death or x-shovelled came back from a dead-letter queue, not from the producer.
  if (eventsOf(p, p.second).some(isReplayed)) return null;
  const m = p.firstMsg;
  const ids = [p.first.startEventId, p.second.startEventId];
  const found: Evidence[] = [evidence("same_msg_id", "cause", ids, { msgId: m.msgId }), evidence("first_deliveries", "cause", ids, {})];
  let score = 0;

  if (m.copies.length >= 2) {
    const spanMs = m.copies[m.copies.length - 1]!.ts - m.copies[0]!.ts;
    const windowMs = p.options.sendTimeoutMs * p.options.sendAttempts;
    // RabbitMQ publishes name no stored copy: each firehose publish is one.
    const offsetMsgIds = m.copies.flatMap((c) => (c.offsetMsgId === null ? [] : [c.offsetMsgId])).join(", ");
    found.push(evidence("stored_copies", "cause", m.copies.map((c) => c.id), { msgId: m.msgId, copies: m.copies.length, offsetMsgIds, spanMs }));
    const inWindow = spanMs <= windowMs + p.options.clockSkewMs;
    found.push(evidence(inWindow ? "within_send_window" : "beyond_send_window", "cause", [], { gapMs: spanMs, windowMs, broker: m.copies[0]!.broker }));
    score = inWindow ? 0.9 : 0.6;
  } else if (m.copies.length === 1 && p.copy.relation === "unknown") {
    const only = m.copies[0]!;
    found.push(evidence("single_stored_copy", "cause", [only.id], { msgId: m.msgId, offsetMsgId: only.offsetMsgId ?? only.id }));
  }
  if (p.copy.relation === "different") {
    found.push(...p.copy.evidence);
    score = Math.max(score, 0.85);
  }
  for (const failed of m.failedSends) {
    found.push(evidence("send_failed_then_retried", "cause", [failed.id], { msgId: m.msgId, instance: failed.instance, ts: failed.ts, costMs: typeof failed.detail.costTime === "number" ? failed.detail.costTime : null }));
  }
  for (const resend of m.resends) {
    found.push(evidence("producer_resend_logged", "cause", [resend.id], { instance: resend.instance, ts: resend.ts, msgId: resend.msgId }));
  }
  if (m.resends.length > 0 || m.failedSends.length > 0) score = score === 0 ? 0.7 : Math.min(0.97, score + 0.05);

  // Two copies consumed in parallel on two instances is what a producer retry looks like when the second Pub was
  // dropped (traces are lossy): a weak guess, beaten by any ownership evidence.
  if (score === 0 && p.copy.relation === "unknown" && m.copies.length !== 1 && Math.abs(p.gapMs) < 1000 && !sameInstance(p)) score = 0.4;
  // A delayed or transactional message written twice without any sign of a resend is not the producer's doing.
  if ((isDelayed(m) || checkbacks(m).length > 0) && m.resends.length === 0 && m.copies.length < 2) score = Math.min(score, 0.5);
  return score === 0 ? null : { cause: "producer_retry", score, evidence: found };
}
