import type { NormalizedEvent } from "../events/model.ts";
import { hostOf } from "./identity.ts";
import { isReplayed, sourceKind, str } from "./sources.ts";

/**
 * What the producer side says about one msgId (UNIQ_KEY): how many copies the broker stored, whether the producer
 * logged a resend, whether it is a delayed or transactional message and how its transaction ended. A producer
 * retry keeps the msgId and gets a new offsetMsgId per stored copy (formats.md §1, semantics 1).
 */
export interface MessageFacts {
  msgId: string;
  /** Pub records (recalls excluded), in time order. */
  publishes: NormalizedEvent[];
  /** One Pub per distinct offsetMsgId: the stored copies the producer made. */
  copies: NormalizedEvent[];
  /** RabbitMQ publishes of a copy that came back from a dead-letter queue or a shovel: not the producer's. */
  replays: NormalizedEvent[];
  /** Pub records whose send reported failure although the broker stored the message. */
  failedSends: NormalizedEvent[];
  /** Client-log resend lines: the message line (with msgId) and the unkeyed resend line on the producer host. */
  resends: NormalizedEvent[];
  msgType: string | null;
  /** EndTransaction records and broker check-back lines. */
  transactions: NormalizedEvent[];
}

/** How close before (after) a Pub the unkeyed resend line must be to count as that message's. */
const RESEND_BEFORE_MS = 1000;
const RESEND_AFTER_MS = 50;

export function messageFacts(msgId: string, events: readonly NormalizedEvent[]): MessageFacts {
  const publishes = events.filter((e) => e.kind === "publish" && e.msgId === msgId && e.detail.recall !== true).sort((a, b) => a.ts - b.ts);
  const copies = new Map<string, NormalizedEvent>();
  for (const p of publishes) {
    if (isReplayed(p)) continue;
    const copyId = p.offsetMsgId ?? (sourceKind(p) === "trace" ? null : p.id);
    if (copyId !== null && !copies.has(copyId)) copies.set(copyId, p);
  }
  const resends = events.filter((e) => {
    if (e.kind === "send_attempt" && e.msgId === msgId) return true;
    // The resend line names no message. The producer resends at once and the trace stamps the Pub with the start of
    // the attempt that worked, so only a line from the same host (same clock) just before a Pub can be this one's.
    if (e.detail.template !== "producer_resend" || e.instance === null) return false;
    const host = hostOf(e.instance);
    return publishes.some(
      (p) => p.instance !== null && hostOf(p.instance) === host && (e.topic === null || e.topic === p.topic) && e.ts <= p.ts + RESEND_AFTER_MS && e.ts >= p.ts - RESEND_BEFORE_MS,
    );
  });
  return {
    msgId,
    publishes,
    copies: [...copies.values()],
    replays: publishes.filter(isReplayed),
    failedSends: publishes.filter((p) => p.success === false),
    resends: resends.sort((a, b) => a.ts - b.ts),
    msgType: publishes.map((p) => str(p.detail.msgType)).find((t) => t !== null) ?? null,
    transactions: events.filter((e) => e.kind === "transaction" && e.msgId === msgId).sort((a, b) => a.ts - b.ts),
  };
}

/** A commit that made a copy visible, and whether it came from the broker's check-back. */
export function commits(facts: MessageFacts): { event: NormalizedEvent; fromCheck: boolean }[] {
  return facts.transactions
    .filter((e) => str(e.detail.transactionState) === "COMMIT_MESSAGE")
    .map((event) => ({ event, fromCheck: event.detail.fromTransactionCheck === true }));
}

export function checkbacks(facts: MessageFacts): NormalizedEvent[] {
  return facts.transactions.filter((e) => e.detail.checkback === true || e.detail.fromTransactionCheck === true);
}

const DELAY_TOPICS = new Set(["SCHEDULE_TOPIC_XXXX", "rmq_sys_wheel_timer"]);

export function isDelayed(facts: MessageFacts): boolean {
  return facts.msgType === "Delay_Msg" || facts.publishes.some((p) => p.topic !== null && DELAY_TOPICS.has(p.topic));
}
