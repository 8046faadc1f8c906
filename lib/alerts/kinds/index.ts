import { z } from "zod";
import type { Locale } from "../../i18n/locale.ts";
import type { GroupByLabel } from "../series.ts";
import type { ConditionField, ConditionKindModule, ConditionWords, Measurement, MeasureContext, Promql, PromqlContext } from "./kind.ts";
import { causeCount } from "./cause-count.ts";
import { dedupMissRate } from "./dedup-miss-rate.ts";
import { duplicateRate } from "./duplicate-rate.ts";
import { ingestSilent } from "./ingest-silent.ts";
import { leakedDuplicates } from "./leaked-duplicates.ts";
import { rebalances } from "./rebalances.ts";

/** Every condition kind, in the order the form offers them. */
export const KINDS = [leakedDuplicates, duplicateRate, causeCount, rebalances, dedupMissRate, ingestSilent] as const;

/** The kinds' schemas as a tuple, as z.discriminatedUnion takes them (map() alone would lose each one's type). */
type SchemasOf<T extends readonly { schema: unknown }[]> = { -readonly [I in keyof T]: T[I]["schema"] };
export const conditionSchema = z.discriminatedUnion("kind", KINDS.map((k) => k.schema) as unknown as SchemasOf<typeof KINDS>);

export type Condition = z.infer<typeof conditionSchema>;
export type ConditionKind = Condition["kind"];
type KeysOf<T> = T extends unknown ? keyof T & string : never;
/** The keys a condition's fields are: what the form labels (lib/i18n/ui/en.ts ruleForm.fields). */
export type ConditionFieldKey = Exclude<KeysOf<Condition>, "kind">;

/**
 * A kind's module seen through any condition. Each module is typed with its own condition; kindModule picks it by
 * the condition's own kind, so handing it that condition is sound.
 */
export interface AnyKind {
  schema: z.ZodType;
  fields: readonly ConditionField<ConditionFieldKey>[];
  groupableBy: readonly GroupByLabel[];
  unit: ConditionKindModule["unit"];
  threshold(c: Condition): number;
  measure(c: Condition, ctx: MeasureContext): Promise<Measurement[]>;
  metricLabels: readonly string[];
  promql(c: Condition, q: PromqlContext): Promql;
  title: Record<Locale, string>;
  describe: Record<Locale, (c: Condition, words: ConditionWords) => string>;
  examples: readonly unknown[];
}

export const CONDITION_KINDS: readonly ConditionKind[] = KINDS.map((k) => k.schema.shape.kind.value);

const BY_KIND = new Map<string, AnyKind>(KINDS.map((k) => [k.schema.shape.kind.value, k as unknown as AnyKind]));

export function kindModule(kind: ConditionKind): AnyKind {
  return BY_KIND.get(kind)!;
}

/** The form's names of the kinds in one language, for the dictionaries (lib/i18n/ui). */
