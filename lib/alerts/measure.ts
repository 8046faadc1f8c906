import type { SqlDriver } from "../store/driver.ts";
import { kindModule, type Condition } from "./kinds/index.ts";
import type { Measurement } from "./kinds/kind.ts";
import type { GroupByLabel } from "./series.ts";

export type { Measurement } from "./kinds/kind.ts";

/**
 * Measures a condition per label set of `by` ([] : one measurement, always), as its kind's module does.
 * `since`: when the rule was created; a source that has sent nothing is silent since then.
 */
export async function measure(driver: SqlDriver, c: Condition, now: number, since: number = now, by: readonly GroupByLabel[] = []): Promise<Measurement[]> {
  return kindModule(c.kind).measure(c, { driver, now, since, by });
}
