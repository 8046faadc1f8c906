import type { NormalizedEvent } from "../../events/model.ts";
import { evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import type { Pair, RuleResult } from "../pair.ts";
import { states } from "../../events/facts.ts";
import { factsFor, str } from "../sources.ts";

const MODEL_LINES = factsFor("message_model");

/**
 * broadcast_consumption: the group consumes in BROADCASTING mode, so every instance receives every message and keeps
 * its own offsets; a second consumption on another instance is what the group asked for, not a fault. The mode is
 * logged when a consumer connects (`new consumer connected, group: G CONSUME_PASSIVELY BROADCASTING …`) and by the
 * client when it starts (`the consumer [G] start beginning. messageModel=BROADCASTING, …`), which is why scope.ts
 * gives a key its group's newest such line however old it is. A group on the same topic in CLUSTERING mode is not
 * affected: the line is read for the pair's own group only.
 */
export function broadcastConsumption(p: Pair): RuleResult | null {
  if (p.sameMsgId === false || p.copy.relation === "different" || p.second.direct) return null;
  if (instanceRelation(p.first.instance, p.second.instance) === "same") return null;
  const model = groupModel(p);
  if (model === undefined || str(model.detail.messageModel) !== "BROADCASTING") return null;
  // The client's own start line says the instance started with the mode; the broker's, that it connected with it.
  const started = states(model, MODEL_LINES) ? { startedWith: true as const } : {};
  const found = [...p.copy.evidence, evidence("broadcasting_group", "cause", [model.id], { group: model.group ?? "", instance: model.instance, ts: model.ts, ...started }, { coarse: model.tsPrecision === "s" })];
  return { cause: "broadcast_consumption", score: 0.96, evidence: found };
}

/** The newest line naming the pair's group's messageModel, up to the second delivery. */
function groupModel(p: Pair): NormalizedEvent | undefined {
  const group = p.second.group ?? p.first.group;
  if (group === null) return undefined;
  return p.context
    .filter((e) => e.group === group && typeof e.detail.messageModel === "string" && e.ts <= p.second.start + p.options.clockSkewMs)
    .sort((a, b) => b.ts - a.ts)[0];
}
