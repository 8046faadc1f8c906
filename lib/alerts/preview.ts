import type { SqlDriver } from "../store/driver.ts";
import { measure, type Measurement } from "./measure.ts";
import type { RuleInput } from "./schema.ts";

export interface RulePreview {
  /** The label sets whose condition holds now: the alerts the rule would have (pending, then firing after `for`). */
  breaching: Measurement[];
  /** How many label sets were measured in all. */
  measured: number;
}

/** A rule measured now without saving it: what the form shows before the rule exists ("would fire now for …"). */
export async function previewRule(driver: SqlDriver, rule: Pick<RuleInput, "condition" | "groupBy" | "enabled">, now: number = Date.now()): Promise<RulePreview> {
  const measured = rule.enabled === false ? [] : await measure(driver, rule.condition, now, now, rule.groupBy);
  return { breaching: measured.filter((m) => m.active).sort((a, b) => b.value - a.value), measured: measured.length };
}
