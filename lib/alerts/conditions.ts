import type { Locale } from "../i18n/locale.ts";
import { span } from "./kinds/common.ts";
import { conditionSchema, kindModule, type Condition, type ConditionKind } from "./kinds/index.ts";
import type { ConditionWords } from "./kinds/kind.ts";
import { labelsText, type Labels } from "./labels.ts";
import type { GroupByLabel } from "./series.ts";

/**
 * What a rule watches. Every kind is a number compared with a threshold over a window that ends now:
 * verdict-based kinds look at duplicates whose second delivery falls in the window, event-based kinds at events
 * stamped in it, ingest_silent at the time since a source last stored anything. Each kind is a module of
 * lib/alerts/kinds/; this is what the rest of dupscope asks of a condition.
 */

export { conditionSchema, CONDITION_KINDS, type Condition, type ConditionKind } from "./kinds/index.ts";
export type { ConditionWords } from "./kinds/kind.ts";

/** English names the vocabularies' ids as they are: the words of notifications, the API and logs. */
const IDS: ConditionWords = { cause: (cause) => cause, layer: (layer) => layer };

/** The measured value with the condition's unit; a silence (in seconds) as a duration. */
export function measuredValue(c: Condition, value: number, locale: Locale = "en"): string {
  const unit = kindModule(c.kind).unit;
  if (unit === "seconds") return span(value, locale);
  return `${Number.isInteger(value) ? String(value) : value.toFixed(2)}${unit === "percent" ? "%" : ""}`;
}

/** What a firing says in notifications and the API: the condition, the alert's label set, and the value that made it fire. */
export function summaryOf(c: Condition, value: number, labels: Labels = {}): string {
  const set = labelsText(labels);
  return `${describeCondition(c)}${set ? ` {${set}}` : ""}: now ${measuredValue(c, value)}`;
}

/** One line a person reads in the UI and in notifications; `words` name causes and layers in another language. */
export function describeCondition(c: Condition, locale: Locale = "en", words: ConditionWords = IDS): string {
  return kindModule(c.kind).describe[locale](c, words);
}

export function thresholdOf(c: Condition): number {
  return kindModule(c.kind).threshold(c);
}

/**
 * The labels each condition kind can be split by: what its rows carry. Verdicts have group, topic, cause and
 * defect; rebalances and dedup decisions are events of one group, by topic; silence is per source.
 */
export function groupableBy(kind: ConditionKind): readonly GroupByLabel[] {
  return kindModule(kind).groupableBy;
}

