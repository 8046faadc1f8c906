import { checkbacks, commits } from "../copies.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { bothFirstDeliveries, type Pair, type RuleResult } from "../pair.ts";

/**
 * transaction_checkback: a half message was committed twice — by the producer's own EndTransaction and again by
 * the broker's check-back (the commit request was slow or lost, so the broker asked, and the answer committed
 * once more). Same UNIQ_KEY, two committed copies, an EndTransaction with fromTransactionCheck = true or a broker
 * `Check transaction` line. A check-back alone is normal (an UNKNOW answer, then one commit).
 */
export function transactionCheckback(p: Pair): RuleResult | null {
  const m = p.firstMsg;
  if (p.sameMsgId !== true || !bothFirstDeliveries(p) || p.copy.relation === "same" || m === null) return null;
  const checks = checkbacks(m);
  if (checks.length === 0) return null;
  const committed = commits(m);
  const found: Evidence[] = [...p.copy.evidence];
  for (const c of committed) {
    found.push(evidence("tx_commit", "cause", [c.event.id], { msgId: m.msgId, ts: c.event.ts, fromCheck: c.fromCheck, state: "COMMIT_MESSAGE" }, { coarse: c.event.tsPrecision === "s" }));
  }
  for (const c of checks.filter((e) => e.kind === "transaction" && e.detail.checkback === true)) {
    found.push(evidence("tx_checkback", "cause", [c.id], { msgId: m.msgId, ts: c.ts }, { coarse: c.tsPrecision === "s" }));
  }
  const twice = committed.length >= 2 || (committed.some((c) => !c.fromCheck) && checks.length > 0);
  const score = twice ? 0.95 : p.copy.relation === "different" ? 0.9 : 0.6;
  return { cause: "transaction_checkback", score, evidence: found };
}
