import { z } from "zod";
import { CAUSES, DEDUP_LAYERS } from "../diagnosis/vocabulary.ts";
import { formatDuration } from "../format/duration.ts";
import type { Locale } from "../i18n/locale.ts";
import { labelsText, type Labels } from "./labels.ts";

/**
 * What a rule watches. Every kind is a number compared with a threshold over a window that ends now:
 * verdict-based kinds look at duplicates whose second delivery falls in the window, event-based kinds at events
 * stamped in it, ingest_silent at the time since a source last stored anything.
 */

const name = z.string().trim().min(1).max(255);
const windowSeconds = z.number().int().min(60).max(7 * 24 * 3600);
const count = z.number().int().min(0).max(1e9);
const percent = z.number().min(0).max(100);

export const conditionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("leaked_duplicates"), group: name.optional(), topic: name.optional(), threshold: count, windowSeconds }).strict(),
  z
    .object({ kind: z.literal("duplicate_rate"), group: name.optional(), topic: name.optional(), thresholdPercent: percent, minKeys: count.default(1), windowSeconds })
    .strict(),
  z.object({ kind: z.literal("cause_count"), cause: z.enum(CAUSES), group: name.optional(), topic: name.optional(), threshold: count, windowSeconds }).strict(),
  // Event-based kinds need the group: events are indexed by (group, ts), and a scan of every event each 30 s would not scale.
  z.object({ kind: z.literal("rebalances"), group: name, topic: name.optional(), threshold: count, windowSeconds }).strict(),
  z.object({ kind: z.literal("dedup_miss_rate"), group: name, layer: z.enum(DEDUP_LAYERS), thresholdPercent: percent, minHits: count.default(1), windowSeconds }).strict(),
  z.object({ kind: z.literal("ingest_silent"), source: name, silentSeconds: windowSeconds }).strict(),
]);

export type Condition = z.infer<typeof conditionSchema>;
export type ConditionKind = Condition["kind"];

export const CONDITION_KINDS = conditionSchema.options.map((o) => o.shape.kind.value);

/** The layers a duplicate meets after `layer` in a Bloom → Redis → DB → state stack. */
export function layersAfter(layer: (typeof DEDUP_LAYERS)[number]): (typeof DEDUP_LAYERS)[number][] {
  return DEDUP_LAYERS.slice(DEDUP_LAYERS.indexOf(layer) + 1);
}

/** A window or silence of the condition, in seconds, as every duration is written (lib/format/duration.ts). */
const span = (seconds: number, locale: Locale = "en") => formatDuration(seconds * 1000, locale);

function scope(c: { group?: string | undefined; topic?: string | undefined }): string {
  const parts = [c.group ? `group ${c.group}` : "", c.topic ? `topic ${c.topic}` : ""].filter(Boolean);
  return parts.length > 0 ? ` in ${parts.join(", ")}` : "";
}

/** The measured value with the condition's unit; a silence (in seconds) as a duration. */
export function measuredValue(c: Condition, value: number, locale: Locale = "en"): string {
  if (c.kind === "ingest_silent") return span(value, locale);
  const unit = c.kind === "duplicate_rate" || c.kind === "dedup_miss_rate" ? "%" : "";
  return `${Number.isInteger(value) ? String(value) : value.toFixed(2)}${unit}`;
}

/** What a firing says in notifications and the API: the condition, the alert's label set, and the value that made it fire. */
export function summaryOf(c: Condition, value: number, labels: Labels = {}): string {
  const set = labelsText(labels);
  return `${describeCondition(c)}${set ? ` {${set}}` : ""}: now ${measuredValue(c, value)}`;
}

/** One line a person reads in the UI and in notifications. */
export function describeCondition(c: Condition): string {
  switch (c.kind) {
    case "leaked_duplicates":
      return `leaked duplicates${scope(c)} > ${c.threshold} in ${span(c.windowSeconds)}`;
    case "duplicate_rate":
      return `duplicates per 100 keys${scope(c)} > ${c.thresholdPercent}% in ${span(c.windowSeconds)}`;
    case "cause_count":
      return `${c.cause} duplicates${scope(c)} > ${c.threshold} in ${span(c.windowSeconds)}`;
    case "rebalances":
      return `rebalances${scope(c)} > ${c.threshold} in ${span(c.windowSeconds)}`;
    case "dedup_miss_rate":
      return `${c.layer} miss rate in group ${c.group} (hits by ${layersAfter(c.layer).join("/") || "no later layer"} of all hits from ${c.layer} on) > ${c.thresholdPercent}% in ${span(c.windowSeconds)}`;
    case "ingest_silent":
      return `no events from sources starting with "${c.source}" for ${span(c.silentSeconds)}`;
  }
}

export function thresholdOf(c: Condition): number {
  switch (c.kind) {
    case "duplicate_rate":
    case "dedup_miss_rate":
      return c.thresholdPercent;
    case "ingest_silent":
      return c.silentSeconds;
    default:
      return c.threshold;
  }
}
