import { evidence, type Evidence } from "../evidence.ts";
import { eventsOf, retryAdvanced, type Pair, type RuleResult } from "../pair.ts";
import { isDlqTopic, isRetryTopic, str } from "../sources.ts";

/**
 * dlq_replay: a dead-lettered copy was sent back by hand. Dashboard and DLQ batch resends go through
 * consumeMessageDirectly, which writes no consume trace but a client-log line; replay tools republish into the
 * group's retry topic. A copy that comes back after its last allowed retry failed (maxReconsumeTimes), without a
 * further retry round, can only have come from the DLQ (formats.md §1 semantics 3, §3).
 */
export function dlqReplay(p: Pair): RuleResult | null {
  const found: Evidence[] = [];
  let score = 0;
  const raise = (to: number) => (score = Math.max(score, to));

  if (p.second.direct) {
    found.push(evidence("consumed_directly", "cause", [p.second.startEventId], { instance: p.second.instance, ts: p.second.start }));
    raise(0.95);
  }
  const dlq = eventsOf(p, p.second).find((e) => isDlqTopic(e.topic));
  if (dlq !== undefined && dlq.topic !== null) {
    found.push(evidence("dlq_topic", "cause", [dlq.id], { topic: dlq.topic }));
    raise(0.9);
  }
  const republished = p.secondMsg?.publishes.find((e) => isRetryTopic(e.topic) || isDlqTopic(e.topic));
  if (republished !== undefined && republished.topic !== null) {
    found.push(evidence("republished_to_retry", "cause", [republished.id], { topic: republished.topic, producerGroup: str(republished.detail.producerGroup), ts: republished.ts }));
    raise(0.9);
  }
  const max = p.options.maxReconsumeTimes;
  const lastRoundFailed = (p.first.retryTimes ?? 0) >= max && (p.first.consume === "failed" || p.first.consume === "timeout");
  if (p.sameMsgId !== false && lastRoundFailed && !retryAdvanced(p)) {
    found.push(evidence("retries_exhausted", "cause", [p.first.endEventId ?? p.first.startEventId], { retryTimes: p.first.retryTimes ?? max, max }));
    raise(0.8);
  }
  // A retry-round delivery that no consume trace saw, in a group whose other deliveries are traced, and that is
  // not the next round: the signature of consumeMessageDirectly when the client log is missing.
  const groupTraced = p.siblings.some((d) => d.sources.includes("trace"));
  if (groupTraced && !p.second.sources.includes("trace") && (p.second.retryTimes ?? 0) > 0 && !retryAdvanced(p) && p.sameMsgId !== false) {
    found.push(evidence("delivery_without_trace", "cause", [p.second.startEventId], { instance: p.second.instance, ts: p.second.start }));
    raise(0.5);
  }
  return score === 0 ? null : { cause: "dlq_replay", score, evidence: found };
}
