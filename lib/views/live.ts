import { newestDuplicates, type LiveDuplicate, type LiveFilter } from "../queries/live.ts";
import type { SqlDriver } from "../store/driver.ts";

export type { LiveDuplicate, LiveFilter };

/** How many of the newest duplicates the live feed compares: bounded, and enough to tell what is new. */
const WINDOW = 50;

/** The newest stored duplicates, newest first: the live feed sends those it has not sent before. */
export function latestDuplicates(driver: SqlDriver, filter: LiveFilter): Promise<LiveDuplicate[]> {
  return newestDuplicates(driver, filter, WINDOW);
}
