import { z } from "zod";
import { count, name, scope, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import { keysOf, labelsOf, num, verdictCounts } from "./sql.ts";

/** Duplicates that got through every dedup layer, by the second delivery's time. */
export const leakedDuplicates = defineKind({
  schema: z.object({ kind: z.literal("leaked_duplicates"), group: name.optional(), topic: name.optional(), threshold: count, windowSeconds }).strict(),
  fields: [
    { key: "group", control: "group", required: false },
    { key: "topic", control: "topic", required: false },
    { key: "threshold", control: "count", required: true, initial: 0 },
    { key: "windowSeconds", control: "minutes", required: true, initial: 10 },
  ],
  groupableBy: ["group", "topic", "cause", "defect"],
  unit: "count",
  threshold: (c) => c.threshold,
  async measure(c, { driver, now, by }) {
    const rows = await verdictCounts(driver, c, by, now, ` AND outcome = 'leaked'`);
    return rows.map((row) => ({ labels: labelsOf(row, by), value: num(row, "n"), active: num(row, "n") > c.threshold, keys: keysOf(row) }));
  },
  metricLabels: ["group", "topic", "defect"],
  promql: (c, q) => ({ expr: `${q.increase("dupscope_leaks_total", { group: c.group, topic: c.topic }, c.windowSeconds)} > ${c.threshold}` }),
  title: KIND_TITLES.leaked_duplicates,
  describe: {
    en: (c) => `leaked duplicates${scope(c, "en")} > ${c.threshold} in ${span(c.windowSeconds, "en")}`,
    "zh-CN": (c) => `${span(c.windowSeconds, "zh-CN")}内${scope(c, "zh-CN")}泄漏的重复消费 > ${c.threshold}`,
  },
  examples: [{ kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 }, { kind: "leaked_duplicates", group: "g", topic: "t", threshold: 3, windowSeconds: 3600 }],
});
