import type { Locale } from "./locale.ts";
import { en, type Dictionary } from "./ui/en.ts";
import { zhCN } from "./ui/zh-CN.ts";

/**
 * The UI's own words, one table per language in lib/i18n/ui/ (en.ts, and zh-CN.ts typed as the English table, so a
 * string missing in one language fails the type check). Diagnosis sentences (verdicts, evidence, advice, missing
 * data) come from lib/i18n/diagnosis-text.ts; these are only what the pages add around them.
 */

export type { Dictionary };

const TABLES: Record<Locale, Dictionary> = { en, "zh-CN": zhCN };

export function dictionary(locale: Locale): Dictionary {
  return TABLES[locale];
}
