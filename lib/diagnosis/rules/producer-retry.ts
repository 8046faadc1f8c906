import { checkbacks, isDelayed } from "../copies.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { bothFirstDeliveries, eventsOf, sameInstance, type Pair, type RuleResult } from "../pair.ts";
import { instanceRelation } from "../identity.ts";
import { isReplayed, str } from "../sources.ts";
import { fromClient5, MIN_INVISIBLE_MS } from "./invisible-timeout.ts";

/**
 * producer_retry: the producer resent after a send timeout, the broker kept both copies. Same msgId (UNIQ_KEY is
 * kept across attempts), a different offsetMsgId per copy, copies stored within the send-retry window
 * (sendMsgTimeout × attempts), both consumed as first deliveries (formats.md §1 semantics 1, §6).
 */
export function producerRetry(p: Pair): RuleResult | null {
  const kafka = kafkaSendRetry(p);
  if (kafka !== null) return { cause: "producer_retry", score: kafka.score, evidence: [...p.copy.evidence, ...kafka.evidence] };
  const early = client5Copy(p);
  if (early !== null) return early;
  if (p.sameMsgId !== true || !bothFirstDeliveries(p) || p.copy.relation === "same" || p.firstMsg === null) return null;
  // A RabbitMQ copy carrying x-death or x-shovelled came back from a dead-letter queue, not from the producer.
  if (eventsOf(p, p.second).some(isReplayed)) return null;
  const m = p.firstMsg;
  const ids = [p.first.startEventId, p.second.startEventId];
  const found: Evidence[] = [evidence("same_msg_id", "cause", ids, { msgId: m.msgId }), evidence("first_deliveries", "cause", ids, {})];
  let score = 0;
  const windowMs = p.options.sendTimeoutMs * p.options.sendAttempts;

  if (m.copies.length >= 2) {
    const spanMs = m.copies[m.copies.length - 1]!.ts - m.copies[0]!.ts;
    // RabbitMQ publishes name no stored copy: each firehose publish is one.
    const offsetMsgIds = m.copies.flatMap((c) => (c.offsetMsgId === null ? [] : [c.offsetMsgId])).join(", ");
    found.push(evidence("stored_copies", "cause", m.copies.map((c) => c.id), { msgId: m.msgId, copies: m.copies.length, offsetMsgIds, spanMs }));
    const inWindow = spanMs <= windowMs + p.options.clockSkewMs;
    found.push(evidence(inWindow ? "within_send_window" : "beyond_send_window", "cause", [], { gapMs: spanMs, windowMs, broker: m.copies[0]!.broker }));
    score = inWindow ? 0.9 : 0.6;
  }
  // A send span that ended in error (a timeout, a refused confirm) whose publisher sent the id again: RabbitMQ names no
  // stored copy, so two consumptions of the id are the failed attempt's copy, which reached the queue, and the retry's.
  const failedSpans = m.resends.filter((e) => e.kind === "send_attempt" && e.success === false && str(e.detail.spanId) !== null);
  const retried = failedSpans.filter((f) => m.publishes.some((pub) => pub.ts >= f.ts && pub.ts - f.ts <= windowMs + p.options.clockSkewMs));
  if (m.copies.length === 1 && p.copy.relation === "unknown" && retried.length === 0) {
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
    if (failedSpans.includes(resend)) {
      const costMs = typeof resend.detail.durationMs === "number" ? resend.detail.durationMs : null;
      found.push(evidence("send_failed_then_retried", "cause", [resend.id], { msgId: m.msgId, instance: resend.instance, ts: resend.ts, costMs }));
    } else found.push(evidence("producer_resend_logged", "cause", [resend.id], { instance: resend.instance, ts: resend.ts, msgId: resend.msgId }));
  }
  if (m.resends.length > 0 || m.failedSends.length > 0) score = score === 0 ? 0.7 : Math.min(0.97, score + 0.05);
  if (retried.length > 0) score = Math.max(score, 0.9);

  // Two copies consumed in parallel on two instances is what a producer retry looks like when the second Pub was
  // dropped (traces are lossy): a weak guess, beaten by any ownership evidence.
  if (score === 0 && p.copy.relation === "unknown" && m.copies.length !== 1 && Math.abs(p.gapMs) < 1000 && !sameInstance(p)) score = 0.4;
  // A delayed or transactional message written twice without any sign of a resend is not the producer's doing.
  if ((isDelayed(m) || checkbacks(m).length > 0) && m.resends.length === 0 && m.copies.length < 2) score = Math.min(score, 0.5);
  return score === 0 ? null : { cause: "producer_retry", score, evidence: found };
}

/**
 * Kafka names a record by partition and offset, and a producer retry writes a new record: two msgIds, where RocketMQ
 * keeps one. Two records of the key from one producer process sent within its send window (the first send failed,
 * or took long enough to be retried) are that retry; so is a record no send span wrote, just before the one a send
 * reported on the same partition (the client retried inside one send() and its span saw only the last attempt).
 * Sends further apart, or from two processes, stay an upstream resend.
 */
export function kafkaSendRetry(p: Pair): { score: number; evidence: Evidence[] } | null {
  if (p.first.broker !== "kafka" || p.sameMsgId !== false || p.first.msgId === null || p.second.msgId === null) return null;
  const a = p.firstMsg?.publishes[0];
  const b = p.secondMsg?.publishes[0];
  const windowMs = p.options.sendTimeoutMs * p.options.sendAttempts;
  if (a !== undefined && b !== undefined) {
    if (instanceRelation(a.instance, b.instance) === "different") return null;
    const gapMs = Math.abs(b.ts - a.ts);
    if (gapMs > windowMs + p.options.clockSkewMs) return null;
    const from = Math.min(a.ts, b.ts) - windowMs;
    const failed = p.context.some((e) => e.kind === "send_attempt" && e.success === false && e.bizKey === a.bizKey && e.ts >= from && e.ts <= Math.max(a.ts, b.ts) && instanceRelation(e.instance, a.instance) !== "different");
    const found = [evidence("kafka_send_retried", "cause", [a.id, b.id], { firstMsgId: p.first.msgId, secondMsgId: p.second.msgId, instance: a.instance, gapMs, windowMs, failed })];
    return { score: failed ? 0.9 : 0.8, evidence: found };
  }
  // Only the later record has a send: the earlier one is the attempt the client gave up on and wrote anyway.
  if (a === undefined && b !== undefined && p.first.queue !== null && p.first.queue === p.second.queue && p.first.queueOffset !== null && p.second.queueOffset !== null && p.first.queueOffset < p.second.queueOffset) {
    const found = [evidence("copy_without_send", "cause", [p.first.startEventId, b.id], { msgId: p.first.msgId, sentMsgId: p.second.msgId, queue: p.first.queue })];
    const failed = p.context.find((e) => e.kind === "send_attempt" && e.success === false && e.bizKey === b.bizKey && e.ts >= b.ts - windowMs && e.ts <= b.ts && instanceRelation(e.instance, b.instance) !== "different");
    if (failed === undefined) return { score: 0.7, evidence: found };
    const costMs = typeof failed.detail.durationMs === "number" ? failed.detail.durationMs : null;
    found.push(evidence("send_failed_then_retried", "cause", [failed.id], { msgId: p.second.msgId, instance: failed.instance, ts: failed.ts, costMs }));
    return { score: 0.9, evidence: found };
  }
  return null;
}

/**
 * RocketMQ 5 keeps the message id across a send's retries (up to 3 attempts, at once), and the broker keeps every
 * copy an attempt stored; spans name no stored copy. A second delivery of the id sooner than any lease can run out
 * (MIN_INVISIBLE_MS) after a first one that did not fail cannot be a redelivery: it is another copy.
 */
function client5Copy(p: Pair): RuleResult | null {
  if (p.sameMsgId !== true || p.first.broker !== "rocketmq" || p.second.direct || !bothFirstDeliveries(p) || !fromClient5(p)) return null;
  if (p.first.consume === "failed" || p.first.consume === "timeout") return null;
  const gapMs = p.second.start - p.first.start;
  if (gapMs >= MIN_INVISIBLE_MS - p.options.clockSkewMs) return null;
  const ids = [p.first.startEventId, p.second.startEventId];
  const found: Evidence[] = [evidence("same_msg_id", "cause", ids, { msgId: p.first.msgId ?? "" }), evidence("too_soon_for_redelivery", "cause", ids, { gapMs, minInvisibleMs: MIN_INVISIBLE_MS })];
  return { cause: "producer_retry", score: 0.7, evidence: found };
}
