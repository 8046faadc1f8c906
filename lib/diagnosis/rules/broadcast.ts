import { evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import { groupModelAt, sinceExpired, SPANS_VIA } from "../members.ts";
import type { Pair, RuleResult } from "../pair.ts";

/**
 * broadcast_consumption: the group consumes in BROADCASTING mode, so every instance receives every message and keeps
 * its own offsets; a second consumption on another instance is what the group asked for, not a fault. The mode is
 * logged when a consumer connects (`new consumer connected, group: G CONSUME_PASSIVELY BROADCASTING …`) and by the
 * client when it starts (`the consumer [G] start beginning. messageModel=BROADCASTING, …`): once, often weeks before
 * the key, which is why it is read from the group's members over time (members.ts) and not from the lines around the
 * key. A group on the same topic in CLUSTERING mode is not affected: the model is read for the pair's own group only.
 */
export function broadcastConsumption(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.copy.relation === "different" || p.second.direct) return null;
  if (instanceRelation(p.first.instance, p.second.instance) === "same") return null;
  const group = p.second.group ?? p.first.group;
  if (group === null) return null;
  const model = groupModelAt(p.members, group, p.second.start + p.options.clockSkewMs);
  if (model === undefined || model.model !== "BROADCASTING") return null;
  // A member's own log says it started with the mode; a broker's, that it connected with it; a span, that it consumed so.
  const started = model.via === "" ? { startedWith: true as const } : model.via === SPANS_VIA ? { inSpans: true as const } : {};
  const expired = sinceExpired(model, p.context) ? { expired: true as const } : {};
  const found = [
    ...p.copy.evidence,
    evidence("broadcasting_group", "cause", [model.sinceEvent], { group, instance: model.instance, ts: model.since!, ...started, ...expired }, { coarse: model.sinceCoarse }),
  ];
  return { cause: "broadcast_consumption", score: 0.96, evidence: found };
}
