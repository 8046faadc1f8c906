import { evidence, type Evidence } from "../evidence.ts";
import { isDlqTopic, isReplayed, isRetryTopic } from "../sources.ts";
import { eventsOf, type Pair, type RuleResult } from "../pair.ts";
import { kafkaSendRetry } from "./producer-retry.ts";

/**
 * upstream_resend: the application called the producer twice for one business key (a repeated callback, a user
 * double-click): a new msgId with the same bizKey (formats.md §1 semantics 5). A producer retry never changes the
 * msgId, so a new one rules it out; only a replay tool republishing into the retry/DLQ topic also makes one (in
 * RabbitMQ: a copy carrying x-death or x-shovelled).
 */
export function upstreamResend(p: Pair): RuleResult | null {
  if (p.sameMsgId !== false) return null;
  const found: Evidence[] = [...p.copy.evidence];
  const a = p.firstMsg?.publishes[0];
  const b = p.secondMsg?.publishes[0];
  if (a !== undefined && b !== undefined) {
    found.push(
      evidence("published_twice", "cause", [a.id, b.id], {
        firstMsgId: a.msgId ?? "",
        secondMsgId: b.msgId ?? "",
        firstTs: a.ts,
        secondTs: b.ts,
        firstHost: a.instance,
        secondHost: b.instance,
      }),
    );
  }
  const replayed = p.secondMsg?.publishes.some((e) => isRetryTopic(e.topic) || isDlqTopic(e.topic) || isReplayed(e)) === true || eventsOf(p, p.second).some(isReplayed);
  // A Kafka producer retry also makes a second record (a second msgId): producer_retry names it.
  const retried = kafkaSendRetry(p) !== null;
  return { cause: "upstream_resend", score: replayed || retried ? 0.3 : 0.9, evidence: found };
}
