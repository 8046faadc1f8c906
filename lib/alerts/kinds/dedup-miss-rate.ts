import { z } from "zod";
import { DEDUP_LAYERS, type DedupLayer } from "../../diagnosis/vocabulary.ts";
import { count, name, percent, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import { keysOf, labelsOf, MAX_KEYS, num, split, type Row } from "./sql.ts";

/** The layers a duplicate meets after `layer` in a Bloom → Redis → DB → state stack. */
export function layersAfter(layer: DedupLayer): DedupLayer[] {
  return DEDUP_LAYERS.slice(DEDUP_LAYERS.indexOf(layer) + 1);
}

/** Of the dedup hits from a layer on, the share a later layer caught: duplicates the layer let through. */
export const dedupMissRate = defineKind({
  schema: z.object({ kind: z.literal("dedup_miss_rate"), group: name, layer: z.enum(DEDUP_LAYERS), thresholdPercent: percent, minHits: count.default(1), windowSeconds }).strict(),
  fields: [
    { key: "group", control: "group", required: true },
    { key: "layer", control: "layer", required: true, initial: "redis" },
    { key: "thresholdPercent", control: "percent", required: true, initial: 1 },
    { key: "minHits", control: "count", required: false, initial: 1 },
    { key: "windowSeconds", control: "minutes", required: true, initial: 10 },
  ],
  groupableBy: ["group", "topic"],
  unit: "percent",
  threshold: (c) => c.thresholdPercent,
  async measure(c, { driver, now, by }) {
    const later = layersAfter(c.layer);
    const { select, groupBy } = split(by, { topic: "topic" });
    const rows = await driver.query<Row>(
      `SELECT ${select}count(*) FILTER (WHERE detail->>'layer' = ANY($3::text[])) AS missed, count(*) AS hits,
              (array_agg(DISTINCT biz_key) FILTER (WHERE detail->>'layer' = ANY($3::text[])))[1:${MAX_KEYS}] AS keys
         FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'dedup' AND detail->>'decision' = 'hit' AND detail->>'layer' = ANY($4::text[])${groupBy}`,
      [c.group, now - c.windowSeconds * 1000, later, [c.layer, ...later]],
    );
    return rows.map((row) => {
      const hits = num(row, "hits");
      const value = hits === 0 ? 0 : (num(row, "missed") / hits) * 100;
      return { labels: labelsOf(row, by, { group: c.group }), value, active: hits >= c.minHits && value > c.thresholdPercent, keys: keysOf(row) };
    });
  },
  metricLabels: ["group"],
  promql(c, q) {
    const later = layersAfter(c.layer);
    if (later.length === 0) return { unsupported: `dedup_miss_rate of ${c.layer}: no layer comes after it` };
    const hits = (layers: string[]) => q.increase("dupscope_dedup_decisions_total", `group=${JSON.stringify(c.group)},decision="hit",layer=~"${layers.join("|")}"`, c.windowSeconds);
    const all = hits([c.layer, ...later]);
    return { expr: `(${hits(later)} / ${all}) * 100 > ${c.thresholdPercent} and ${all} >= ${c.minHits}` };
  },
  title: KIND_TITLES.dedup_miss_rate,
  describe: {
    en: (c, words) =>
      `${words.layer(c.layer)} miss rate in group ${c.group} (hits by ${layersAfter(c.layer).map(words.layer).join("/") || "no later layer"} of all hits from ${words.layer(c.layer)} on) > ${c.thresholdPercent}% in ${span(c.windowSeconds, "en")}`,
    "zh-CN": (c, words) => {
      const layer = `“${words.layer(c.layer)}”`;
      const later = layersAfter(c.layer).map((l) => `“${words.layer(l)}”`);
      const share = later.length > 0 ? `从${layer}起各层的全部命中中，由${later.join("、")}拦下的比例` : "它已是最后一层，其后没有防重层";
      return `${span(c.windowSeconds, "zh-CN")}内消费组 ${c.group} 中${layer}的漏拦率（${share}）> ${c.thresholdPercent}%`;
    },
  },
  examples: [{ kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 }, { kind: "dedup_miss_rate", group: "g", layer: "state", thresholdPercent: 5, windowSeconds: 3600 }],
});
