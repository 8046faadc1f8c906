import { evidence, type Evidence } from "../evidence.ts";
import { retryAdvanced, type Pair, type RuleResult } from "../pair.ts";
import { endRecord, retryEvidence } from "./consumer-retry.ts";

/**
 * retry_after_failure: the first attempt failed (SubAfter contextCode 2 EXCEPTION, 3 RETURNNULL or 4 FAILED, or a
 * `consumeMessage exception` line) after its side effect had already happened — the dedup log shows `executed`
 * before the failure, or no dedup log can say it did not — and the retry (retryTimes + 1, on the retry-delay
 * schedule) ran it again. A failure with no side effect makes the retry a normal retry, not a duplicate.
 */
export function retryAfterFailure(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.second.direct || p.first.consume === "timeout") return null;
  const advanced = retryAdvanced(p);
  const found: Evidence[] = [];

  if (p.first.consume === "failed") {
    const end = endRecord(p, p.first, (e) => e.success === false);
    const failTs = end?.ts ?? p.first.end ?? p.first.start;
    found.push(evidence("consume_failed", "cause", [end?.id ?? p.first.startEventId], { instance: p.first.instance, ts: failTs, contextName: p.first.contextName }));
    const executed = p.first.dedup.find((d) => d.decision === "executed");
    let score = p.first.effect === "unknown" ? 0.8 : 0.6;
    if (executed !== undefined) {
      found.push(evidence("effect_before_failure", "cause", [executed.eventId, end?.id], { instance: p.first.instance, effectTs: executed.ts, failTs }));
      score = 0.95;
    }
    if (!advanced) score *= p.first.retryTimes === null || p.second.retryTimes === null ? 0.9 : 0.5;
    found.push(...retryEvidence(p, failTs));
    return { cause: "retry_after_failure", score, evidence: found };
  }
  if (!advanced) return null;
  found.push(...retryEvidence(p, p.first.end ?? p.first.start));
  if (p.first.consume === "success") {
    found.push(evidence("retry_after_success", "cause", [p.first.endEventId], { instance: p.first.instance }));
    return { cause: "retry_after_failure", score: 0.35, evidence: found };
  }
  // No end record: a retry round means the attempt failed or timed out; a gap past consumeTimeout suggests the latter.
  return { cause: "retry_after_failure", score: p.gapMs >= p.options.consumeTimeoutMs ? 0.4 : 0.5, evidence: found };
}
