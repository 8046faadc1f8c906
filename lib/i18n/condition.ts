import { describeCondition, layersAfter, measuredValue, type Condition } from "../alerts/conditions.ts";
import { labelsText, type Labels } from "../alerts/labels.ts";
import { formatDuration } from "../format/duration.ts";
import { causeName } from "./diagnosis-text.ts";
import { dictionary } from "./dictionary.ts";
import type { Locale } from "./locale.ts";

/**
 * A rule's condition in the reader's language, for the alerts page. English is describeCondition's sentence, the
 * one notifications, the API and the firing history carry, so the English page and the messages never drift apart.
 */

/** A window or silence in seconds, written as every duration is (lib/format/duration.ts). */
const span = (seconds: number) => formatDuration(seconds * 1000, "zh-CN");

function scope(c: { group?: string | undefined; topic?: string | undefined }): string {
  const parts = [c.group ? `消费组 ${c.group}` : "", c.topic ? `主题 ${c.topic}` : ""].filter(Boolean);
  return parts.length > 0 ? `${parts.join("、")} 中` : "";
}

function chinese(c: Condition): string {
  const layers = dictionary("zh-CN").layers;
  switch (c.kind) {
    case "leaked_duplicates":
      return `${span(c.windowSeconds)}内${scope(c)}泄漏的重复消费 > ${c.threshold}`;
    case "duplicate_rate":
      return `${span(c.windowSeconds)}内${scope(c)}每 100 个业务键的重复消费 > ${c.thresholdPercent}%`;
    case "cause_count":
      return `${span(c.windowSeconds)}内${scope(c)}原因为“${causeName(c.cause, "zh-CN")}”的重复消费 > ${c.threshold}`;
    case "rebalances":
      return `${span(c.windowSeconds)}内${scope(c)}的重平衡次数 > ${c.threshold}`;
    case "dedup_miss_rate": {
      const layer = `“${layers[c.layer]}”`;
      const later = layersAfter(c.layer).map((l) => `“${layers[l]}”`);
      const share = later.length > 0 ? `从${layer}起各层的全部命中中，由${later.join("、")}拦下的比例` : "它已是最后一层，其后没有防重层";
      return `${span(c.windowSeconds)}内消费组 ${c.group} 中${layer}的漏拦率（${share}）> ${c.thresholdPercent}%`;
    }
    case "ingest_silent":
      return `以“${c.source}”开头的数据源已 ${span(c.silentSeconds)}没有事件`;
  }
}

export function conditionText(c: Condition, locale: Locale): string {
  return locale === "zh-CN" ? chinese(c) : describeCondition(c);
}

/** A firing's "what": its stored summary in English; in Chinese from the condition it fired on, when it was kept. */
export function firingSummary(f: { summary: string; condition: Condition | null; value: number; labels?: Labels }, locale: Locale): string {
  if (locale !== "zh-CN" || f.condition === null) return f.summary;
  const set = labelsText(f.labels ?? {});
  return `${chinese(f.condition)}${set ? ` {${set}}` : ""}：当前 ${measuredValue(f.condition, f.value, "zh-CN")}`;
}
