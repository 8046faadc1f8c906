import { foldHoldings, holdingChangesIn, holdingsFor, queuesOf } from "../../lib/diagnosis/holdings.ts";
import { foldMembers, memberChangesIn, membersFor, membersSpan } from "../../lib/diagnosis/members.ts";
import { contextOf, contextScope, msgIdsOf } from "../../lib/diagnosis/scope.ts";
import type { DiagnosisInput } from "../../lib/diagnosis/types.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";

const byTs = (a: NormalizedEvent, b: NormalizedEvent) => a.ts - b.ts;

/**
 * scope.ts's selection (rules 1 and 2), the groups' members (membersFor) and the queues' holders (holdingsFor) over
 * every event of a run, as the store makes them.
 */
export function inputsOf(events: readonly NormalizedEvent[]): DiagnosisInput[] {
  const byKey = new Map<string, NormalizedEvent[]>();
  const keylessByMsgId = new Map<string, NormalizedEvent[]>();
  const keyless: NormalizedEvent[] = [];
  for (const e of events) {
    if (e.bizKey !== null) byKey.set(e.bizKey, [...(byKey.get(e.bizKey) ?? []), e]);
    else {
      keyless.push(e);
      if (e.msgId !== null) keylessByMsgId.set(e.msgId, [...(keylessByMsgId.get(e.msgId) ?? []), e]);
    }
  }
  const memberChanges = memberChangesIn(keyless);
  const members = foldMembers(memberChanges);
  const holdings = foldHoldings(holdingChangesIn(keyless), memberChanges);
  return [...byKey].map(([bizKey, own]) => {
    const keyEvents = [...own, ...msgIdsOf(own).flatMap((id) => keylessByMsgId.get(id) ?? [])].sort(byTs);
    const scope = contextScope(keyEvents)!;
    const around = contextOf(keyEvents, keyless.filter((e) => scope.windows.some((w) => e.ts >= w.from && e.ts <= w.to)));
    const span = membersSpan(keyEvents);
    return { bizKey, events: keyEvents, context: around.sort(byTs), members: membersFor(members, scope.groups, span, scope), holdings: holdingsFor(holdings, queuesOf(keyEvents), span) };
  });
}
