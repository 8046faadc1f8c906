import { similarNames } from "../groups/similar-names.ts";
import { groupKnown, groupNames } from "../queries/groups.ts";
import type { SqlDriver } from "../store/driver.ts";

/**
 * Whether a group name means anything to the store, and what else it may have meant. Apart from the group page's
 * read model: the proxy asks before a group page renders (proxy.ts), and should not load the page's whole graph.
 */

/** The request header that tells the 404 page which group name matched nothing (set by proxy.ts only). */
export const UNKNOWN_GROUP_HEADER = "x-dupscope-unknown-group";

/** Whether a group page has anything to show at any time (else it is a 404: a mistyped name, not a quiet group). */
export function groupExists(driver: SqlDriver, group: string): Promise<boolean> {
  return groupKnown(driver, group);
}

/** Names to offer for a group the store does not know: the similar ones, and the first known ones for when none is. */
export async function groupsLike(driver: SqlDriver, group: string, limit = 12): Promise<{ similar: string[]; known: string[] }> {
  const names = await groupNames(driver);
  return { similar: similarNames(group, names, limit), known: names.slice(0, limit) };
}
