import { isDelayed } from "../copies.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { bothFirstDeliveries, type Pair, type RuleResult } from "../pair.ts";

/**
 * delayed_double_write: the schedule/timer service wrote a delayed message into its real topic twice (typically
 * around a broker restart or failover of the timer log). Same msgId, two copies, both first deliveries, a Pub
 * with msgType Delay_Msg — and no sign of a producer resend, which would explain two copies by itself.
 */
export function delayedDoubleWrite(p: Pair): RuleResult | null {
  const m = p.firstMsg;
  if (p.sameMsgId !== true || !bothFirstDeliveries(p) || p.copy.relation === "same" || m === null || !isDelayed(m)) return null;
  const publish = m.publishes[0];
  const found: Evidence[] = [evidence("delay_message", "cause", [publish?.id], { msgId: m.msgId, msgType: m.msgType ?? publish?.topic ?? "Delay_Msg" }), ...p.copy.evidence];
  const resent = m.resends.length > 0 || m.copies.length >= 2;
  let score = p.copy.relation === "different" ? 0.9 : 0.6;
  if (resent) score = 0.5;
  return { cause: "delayed_double_write", score, evidence: found };
}
