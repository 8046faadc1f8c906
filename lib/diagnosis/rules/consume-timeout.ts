import { fate } from "../context.ts";
import { evidence, type Evidence, type EvidenceValues } from "../evidence.ts";
import { retryAdvanced, type Pair, type RuleResult } from "../pair.ts";
import { num, str } from "../sources.ts";
import { endRecord, retryEvidence } from "./consumer-retry.ts";

type Via = EvidenceValues["consume_timed_out"]["via"];

/**
 * consume_timeout: the first attempt ran past consumeTimeout (15 min), so the client sent the message back
 * (`send expire msg back`, the SubAfter's contextCode 1 TIME_OUT) and it came again as a retry (retryTimes + 1)
 * about 10 s later — often while the first attempt was still running. RabbitMQ's consumer ack timeout is the same
 * story: the consumer took too long and lost the message to another. (Kafka's poll timeout is commit_failed.)
 */
export function consumeTimeout(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.second.direct) return null;
  const found: Evidence[] = [];
  let signalTs: number | null = null;
  const signal = (via: Via, id: string, ts: number, coarse = false) => {
    found.push(evidence("consume_timed_out", "cause", [id], { instance: p.first.instance, ts, costMs: p.first.costMs, via }, { coarse }));
    signalTs ??= ts;
  };

  if (p.first.consume === "timeout") {
    const expire = endRecord(p, p.first, (e) => e.detail.template === "send_expire_msg_back");
    const traced = endRecord(p, p.first, (e) => num(e.detail.contextCode) === 1 || str(e.detail.contextName) === "TIME_OUT");
    if (expire !== undefined) signal("expire_msg_back", expire.id, expire.ts);
    if (traced !== undefined && traced !== expire) signal("trace", traced.id, traced.ts);
    if (expire === undefined && traced === undefined) signal("duration", p.first.endEventId ?? p.first.startEventId, p.first.end ?? p.first.start);
  }
  // Kafka's poll timeout is commit_failed's (rules/commit-failed.ts): the member left, its commit was refused.
  const timeouts = fate(p).consumerTimeouts.filter((h) => h.event.detail.action === "ack_timeout");
  for (const h of timeouts) signal("ack_timeout", h.event.id, h.event.ts, h.at.coarse);
  if (signalTs === null) {
    // No end record, but the retry came only after consumeTimeout had passed: most likely it expired.
    if (p.first.consume !== "unknown" || !retryAdvanced(p) || p.gapMs < p.options.consumeTimeoutMs) return null;
    signal("duration", p.first.startEventId, p.first.start + p.options.consumeTimeoutMs);
    return { cause: "consume_timeout", score: 0.55, evidence: found };
  }

  let score: number;
  if (retryAdvanced(p)) score = 0.9;
  else if (timeouts.length > 0) score = 0.85;
  else if (p.first.retryTimes === null || p.second.retryTimes === null) score = 0.75;
  else score = 0.4;
  found.push(...retryEvidence(p, signalTs));
  return { cause: "consume_timeout", score, evidence: found };
}
