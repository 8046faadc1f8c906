import type { DetailValue, NormalizedEvent } from "../../events/model.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { eventsOf, retryAdvanced, type Pair, type RuleResult } from "../pair.ts";
import { isDlqTopic, isReplayed, isRetryTopic, num, str } from "../sources.ts";

/**
 * dlq_replay: a dead-lettered copy was sent back by hand. Dashboard and DLQ batch resends go through
 * consumeMessageDirectly, which writes no consume trace but a client-log line; replay tools republish into the
 * group's retry topic. A copy that comes back after its last allowed retry failed (maxReconsumeTimes), without a
 * further retry round, can only have come from the DLQ (formats.md §1 semantics 3, §3). In RabbitMQ the copy
 * itself says so: dead-lettering adds `x-death`, a shovel `x-shovelled` (formats.md §4).
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
  const replayed = eventsOf(p, p.second).find(isReplayed);
  if (replayed !== undefined) raise(rabbitReplay(replayed, found));
  return score === 0 ? null : { cause: "dlq_replay", score, evidence: found };
}

type Table = { [key: string]: DetailValue };

function tables(value: DetailValue | undefined): Table[] {
  return Array.isArray(value) ? value.filter((v): v is Table => v !== null && typeof v === "object" && !Array.isArray(v)) : [];
}

/**
 * A shovel is an operator's replay tool (0.95). A dead-lettered copy back in a work queue was moved by someone
 * (0.9), except when it only ever expired: a TTL queue dead-lettering into the work queue is a retry loop built on
 * purpose, so that is weak (0.6). `x-death` lists the most recent death first.
 */
function rabbitReplay(e: NormalizedEvent, found: Evidence[]): number {
  const deaths = tables(e.detail.xDeath);
  const shovels = tables(e.detail.xShovelled);
  const last = deaths[0];
  if (last !== undefined) {
    // x-death times are the broker's, in whole seconds.
    found.push(evidence("dead_lettered", "cause", [e.id], { queue: str(last.queue), reason: str(last.reason), count: num(last.count), ts: num(last.time) }, { coarse: true }));
  }
  const shovel = shovels[0];
  if (shovel !== undefined) {
    found.push(evidence("shovelled", "cause", [e.id], { shovel: str(shovel.name), from: str(shovel.srcQueue) ?? str(shovel.srcExchange), to: str(shovel.destQueue) ?? str(shovel.destExchange) }));
    return 0.95;
  }
  return deaths.every((d) => str(d.reason) === "expired") ? 0.6 : 0.9;
}
