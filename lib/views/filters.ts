import type { Filters } from "../queries/filters.ts";
import { filterChoices as choices } from "../queries/overview.ts";
import type { SqlDriver } from "../store/driver.ts";

/** The filter bar's group and topic lists: those with data in the range, so every choice shows something. */
export function filterChoices(driver: SqlDriver, f: Filters): Promise<{ groups: string[]; topics: string[] }> {
  return choices(driver, f);
}
