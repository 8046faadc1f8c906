import type { Episode } from "../diagnosis/episodes.ts";
import type { Locale } from "../i18n/locale.ts";
import { memberLanes, type MemberLane } from "../groups/member-lanes.ts";
import { instancesOverTime, type InstanceSpan } from "../groups/membership.ts";
import { rebalanceHistory, type RebalanceEpisode } from "../groups/rebalance-history.ts";
import type { Filters } from "../queries/filters.ts";
import { ACTIVITY_LIMIT, groupActivity, groupSummaries, type GroupSummary } from "../queries/groups.ts";
import type { SqlDriver } from "../store/driver.ts";
import { groupMembersDuring } from "../store/group-members.ts";
import { findings } from "./findings.ts";

export { ACTIVITY_LIMIT };
export type { GroupSummary };

/** Keys with findings the group page reads at most, newest first: advice is statistics, not a busy week's every key. */
export const GROUP_PAGE_DIAGNOSES = 2_000;

/** /groups: every consumer group with keys, duplicates, leaks and rebalances in the range. */
export function groupList(driver: SqlDriver, f: Filters): Promise<GroupSummary[]> {
  return groupSummaries(driver, f);
}

export interface GroupPage {
  /** Instances as lanes: when each joined, left or vanished. */
  spans: InstanceSpan[];
  /** The group's members over the range (group_members): connections, the model, clientIds connected twice. */
  members: MemberLane[];
  episodes: RebalanceEpisode[];
  /** The membership lines were cut at ACTIVITY_LIMIT; the oldest shown is at `firstTs`. */
  activityCut: { firstTs: number } | null;
  advice: string[];
  /** Group-wide incidents (offset resets) with the keys they explain, newest first. */
  incidents: Episode[];
  /** Rebalances per hour over the range, when the group had any. */
  rebalancesPerHour: number | null;
  findingsSampled: boolean;
}

/** /groups/{group}: membership over time, rebalance history and the group's advice, worded in `locale`. */
export async function groupPage(driver: SqlDriver, group: string, f: Filters, locale: Locale): Promise<GroupPage> {
  const [activity, found, intervals] = await Promise.all([
    groupActivity(driver, group, f),
    findings(driver, { from: f.from, to: f.to, group, lang: locale }, GROUP_PAGE_DIAGNOSES),
    groupMembersDuring(driver, group, f.from, f.to),
  ]);
  return {
    spans: instancesOverTime(activity.events),
    members: memberLanes(intervals, f.from, f.to),
    episodes: rebalanceHistory(activity.events),
    activityCut: activity.truncated && activity.events[0] ? { firstTs: activity.events[0].ts } : null,
    advice: found.groups.flatMap((g) => g.adviceText),
    incidents: found.groups.flatMap((g) => g.episodes).sort((a, b) => b.ts - a.ts),
    rebalancesPerHour: found.groups.find((g) => g.rebalances.perHour !== null)?.rebalances.perHour ?? null,
    findingsSampled: found.truncated,
  };
}
