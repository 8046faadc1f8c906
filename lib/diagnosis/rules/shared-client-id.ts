import type { NormalizedEvent } from "../../events/model.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { hostOf, instanceRelation } from "../identity.ts";
import type { Pair, RuleResult } from "../pair.ts";
import { states } from "../../events/facts.ts";
import { CLIENT_CLOSES, factsFor, str } from "../sources.ts";

/** How far before the first delivery the two connections may have been made: the processes had been running. */
const CONNECTED_WITHIN_MS = 10 * 60_000;
const CONNECTS = factsFor("client_connect");

/**
 * shared_client_id: two processes on one machine consume with the same RocketMQ clientId (`ip@instanceName`: the
 * same configured instanceName, or `DEFAULT`, or pid 1 in two containers with host networking on clients before
 * 4.9.0). The broker counts both channels under one clientId, the average allocation computes the same index for
 * both, so both pull the same queues and each message of them is consumed twice, milliseconds apart, by two
 * processes of one host. The broker log shows it: `new consumer connected` twice with one clientId from two local
 * ports of one host to the same broker, the first never closed in between. Advice: a unique instanceName.
 */
export function sharedClientId(p: Pair): RuleResult | null {
  if (p.first.broker !== "rocketmq" || p.sameMsgId === false || p.copy.relation === "different" || p.second.direct) return null;
  if (p.first.retryTimes !== null && p.second.retryTimes !== null && p.first.retryTimes !== p.second.retryTimes) return null;
  const a = p.first.instance;
  const b = p.second.instance;
  if (a === null || b === null || hostOf(a) !== hostOf(b) || instanceRelation(a, b) === "same") return null;
  // Both pull the queue at once: anything further apart is another story (a rebalance hands it over).
  if (Math.abs(p.gapMs) > p.options.rebalanceIntervalMs) return null;
  const shared = sharedConnection(p, hostOf(a));
  if (shared === undefined) return null;
  const [earlier, later] = shared;
  const found: Evidence[] = [
    ...p.copy.evidence,
    evidence("client_id_shared", "cause", [earlier.id, later.id], {
      clientId: str(later.detail.instanceRaw) ?? later.instance ?? "",
      host: hostOf(a),
      remotes: [str(earlier.detail.remoteAddress) ?? "?", str(later.detail.remoteAddress) ?? "?"],
      ts: later.ts,
      instances: [a, b],
    }),
  ];
  return { cause: "shared_client_id", score: 0.94, evidence: found };
}

/**
 * Two `connected` lines of the pair's group, one clientId on `host`, to the same broker from two different local
 * addresses, before the redelivery, with no close of the first connection between them (a restart with a fixed
 * instanceName reconnects from a new port too, but closes the old one first).
 */
function sharedConnection(p: Pair, host: string): [NormalizedEvent, NormalizedEvent] | undefined {
  const group = p.second.group ?? p.first.group;
  const { clockSkewMs } = p.options;
  const ofGroup = (e: NormalizedEvent) => group === null || e.group === null || e.group === group;
  const onHost = (e: NormalizedEvent) => e.instance !== null && hostOf(e.instance) === host;
  const events = p.context.filter((e) => e.kind === "instance_lifecycle" && ofGroup(e) && e.ts <= p.second.start + clockSkewMs && e.ts >= p.first.start - CONNECTED_WITHIN_MS);
  const connects = events.filter((e) => states(e, CONNECTS) && onHost(e) && str(e.detail.remoteAddress) !== null).sort((x, y) => x.ts - y.ts);
  const broker = (e: NormalizedEvent) => str(e.detail.brokerInstance) ?? e.source;
  const client = (e: NormalizedEvent) => str(e.detail.instanceRaw) ?? e.instance;
  for (const [i, earlier] of connects.entries()) {
    for (const later of connects.slice(i + 1)) {
      if (client(later) !== client(earlier) || broker(later) !== broker(earlier) || later.detail.remoteAddress === earlier.detail.remoteAddress) continue;
      const closed = events.some(
        (e) => states(e, CLIENT_CLOSES) && e.ts >= earlier.ts && e.ts <= later.ts && (e.detail.remoteAddress === earlier.detail.remoteAddress || (client(e) === client(earlier) && broker(e) === broker(earlier))),
      );
      if (!closed) return [earlier, later];
    }
  }
  return undefined;
}
