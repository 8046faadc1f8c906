import { evidence, type Evidence } from "../evidence.ts";
import { hostOf, instanceRelation } from "../identity.ts";
import { memberHost, overlaps, sinceExpired, type MemberInterval } from "../members.ts";
import type { Pair, RuleResult } from "../pair.ts";

/**
 * shared_client_id: two processes on one machine consume with the same RocketMQ clientId (`ip@instanceName`: the
 * same configured instanceName, or `DEFAULT`, or pid 1 in two containers with host networking on clients before
 * 4.9.0). The broker counts both channels under one clientId, the average allocation computes the same index for
 * both, so both pull the same queues and each message of them is consumed twice, milliseconds apart, by two
 * processes of one host. The broker log shows it: `new consumer connected` twice with one clientId from two local
 * ports of one host to the same broker, the first never closed in between — hours or days before the key, so it is
 * read from the group's members over time (members.ts), where both connections stay open until a close ends them.
 * Advice: a unique instanceName.
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
  const expired = sinceExpired(earlier, p.context) || sinceExpired(later, p.context) ? { expired: true as const } : {};
  const found: Evidence[] = [
    ...p.copy.evidence,
    // The connect lines are cited even once expired: their ids still name the two connections, which is what makes
    // the keys of one overlap one incident of the group (episodes.ts).
    evidence("client_id_shared", "cause", [earlier.sinceEvent, later.sinceEvent], {
      clientId: later.member,
      host: hostOf(a),
      remotes: [earlier.remote ?? "?", later.remote ?? "?"],
      ts: later.since!,
      instances: [a, b],
      ...expired,
      ...(expired.expired ? { since: earlier.since! } : {}),
    }),
  ];
  return { cause: "shared_client_id", score: 0.94, evidence: found };
}

/**
 * Two connections of one clientId of the pair's group on `host`, through the same broker from two different
 * addresses, both begun before the redelivery and both still open when the first delivery began (a restart with a
 * fixed instanceName reconnects from a new port too, but its close ends the old connection first).
 */
function sharedConnection(p: Pair, host: string): [MemberInterval, MemberInterval] | undefined {
  const group = p.second.group ?? p.first.group;
  const { clockSkewMs } = p.options;
  const live = p.members
    .filter((i) => (group === null || i.group === group) && i.since !== null && i.remote !== null && i.via !== "" && memberHost(i) === host)
    .filter((i) => overlaps(i, p.first.start, p.second.start, clockSkewMs))
    .sort((x, y) => x.since! - y.since!);
  for (const [n, earlier] of live.entries()) {
    for (const later of live.slice(n + 1)) {
      if (later.member !== earlier.member || later.via !== earlier.via || later.remote === earlier.remote) continue;
      // Both open at once, around the first delivery.
      if (earlier.until !== null && earlier.until < later.since!) continue;
      return [earlier, later];
    }
  }
  return undefined;
}
