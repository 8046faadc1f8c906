import { atKeptResolution, type Filters } from "../queries/filters.ts";
import { filterChoices as choices } from "../queries/overview.ts";
import { rawEventsFrom } from "../queries/retention.ts";
import type { SqlDriver } from "../store/driver.ts";

/** The filter bar's group and topic lists: those with data in the range, so every choice shows something. */
export function filterChoices(driver: SqlDriver, f: Filters): Promise<{ groups: string[]; topics: string[] }> {
  return choices(driver, f);
}

/** The filters as the store can still chart them (atKeptResolution): whole minutes before its oldest raw events. */
export async function keptResolution<F extends Filters>(driver: SqlDriver, f: F): Promise<F> {
  return atKeptResolution(f, await rawEventsFrom(driver));
}
