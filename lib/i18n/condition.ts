import { describeCondition, measuredValue, type Condition, type ConditionWords } from "../alerts/conditions.ts";
import { labelsText, type Labels } from "../alerts/labels.ts";
import { causeName } from "./diagnosis-text.ts";
import { dictionary } from "./dictionary.ts";
import type { Locale } from "./locale.ts";

/**
 * A rule's condition in the reader's language, for the alerts page. English is describeCondition's sentence, the
 * one notifications, the API and the firing history carry, so the English page and the messages never drift apart.
 */

/** Causes and layers by their Chinese names. */
const ZH: ConditionWords = { cause: (cause) => causeName(cause, "zh-CN"), layer: (layer) => dictionary("zh-CN").layers[layer] };

const chinese = (c: Condition) => describeCondition(c, "zh-CN", ZH);

export function conditionText(c: Condition, locale: Locale): string {
  return locale === "zh-CN" ? chinese(c) : describeCondition(c);
}

/** A firing's "what": its stored summary in English; in Chinese from the condition it fired on, when it was kept. */
export function firingSummary(f: { summary: string; condition: Condition | null; value: number; labels?: Labels }, locale: Locale): string {
  if (locale !== "zh-CN" || f.condition === null) return f.summary;
  const set = labelsText(f.labels ?? {});
  return `${chinese(f.condition)}${set ? ` {${set}}` : ""}：当前 ${measuredValue(f.condition, f.value, "zh-CN")}`;
}
