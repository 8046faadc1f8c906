import type { z } from "zod";
import type { Cause, DedupLayer } from "../../diagnosis/vocabulary.ts";
import type { Locale } from "../../i18n/locale.ts";
import type { SqlDriver } from "../../store/driver.ts";
import type { Labels } from "../labels.ts";
import type { GroupByLabel } from "../series.ts";

/**
 * What one condition kind is: everything the API, the evaluator, the form, the Prometheus export and the page's
 * words need of it, in one module per kind (lib/alerts/kinds/*.ts), collected in index.ts. A new kind is a new
 * module and a line in that list; tests/unit/alerts/condition-kinds.test.ts checks each is fully described.
 */

/** A condition measured at one moment for one label set: its value, whether it breaches, and the keys behind it. */
export interface Measurement {
  labels: Labels;
  value: number;
  active: boolean;
  keys: string[];
}

export interface MeasureContext {
  driver: SqlDriver;
  now: number;
  /** When the rule was created: a source that has sent nothing is silent since then. */
  since: number;
  /** The rule's group_by, only labels the kind can be split by; [] : one measurement, always. */
  by: readonly GroupByLabel[];
}

export type Promql = { expr: string } | { unsupported: string };

/** What prometheus-rules.ts lends a kind to write its PromQL with: the metrics are its business, not the kind's. */
export interface PromqlContext {
  by: readonly GroupByLabel[];
  /** `sum [by (…)](increase(metric{matchers}[window]))`, one copy of a store-derived counter per series. */
  increase(metric: string, matchers: Record<string, string | undefined> | string, windowSeconds: number): string;
  /** The collector formats the ingest counter is labelled by. */
  formats: readonly string[];
}

/** The words of the vocabularies in the reader's language: the page's zh-CN text names causes and layers in Chinese. */
export interface ConditionWords {
  cause(cause: Cause): string;
  layer(layer: DedupLayer): string;
}

/**
 * How the form edits one field of the condition. text fields: group and topic offer the store's known names;
 * minutes: a number of seconds edited in minutes.
 */
export type FieldControl = "group" | "topic" | "source" | "cause" | "layer" | "count" | "percent" | "minutes";

export interface ConditionField<K extends string> {
  key: K;
  control: FieldControl;
  /** A field the schema takes as optional is left out when empty; required ones must be filled in. */
  required: boolean;
  /** What a new rule's form starts with, in the field's own unit (minutes for "minutes"). */
  initial?: number | string;
}

type AnyConditionSchema = z.ZodObject<{ kind: z.ZodLiteral<string> }>;

export interface ConditionKindModule<S extends AnyConditionSchema = AnyConditionSchema> {
  schema: S;
  /** The form's fields, in order, each a key of this condition. */
  fields: readonly ConditionField<Exclude<keyof z.input<S> & string, "kind">>[];
  /** The labels its rows carry, which a rule may be split by (lib/alerts/series.ts). */
  groupableBy: readonly GroupByLabel[];
  /** The unit of its value: a count, a percentage, or seconds of silence (written as a duration). */
  unit: "count" | "percent" | "seconds";
  threshold(c: z.output<S>): number;
  measure(c: z.output<S>, ctx: MeasureContext): Promise<Measurement[]>;
  /** The labels of the metrics its PromQL reads, for a `sum by`; a split by any other cannot be exported. */
  metricLabels: readonly string[];
  promql(c: z.output<S>, q: PromqlContext): Promql;
  /** The form's name of the kind. */
  title: Record<Locale, string>;
  /** One line a person reads: English is what notifications, the API and the firing history carry. */
  describe: Record<Locale, (c: z.output<S>, words: ConditionWords) => string>;
  /** Conditions the contract test describes and exports; the first is a new rule's. */
  examples: readonly [z.input<S>, ...z.input<S>[]];
}

/** Keeps a kind's own types while checking it against the contract. */
export function defineKind<S extends AnyConditionSchema>(kind: ConditionKindModule<S>): ConditionKindModule<S> {
  return kind;
}
