import { z } from "zod";
import { CAUSES } from "../../diagnosis/vocabulary.ts";
import { count, name, scope, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import { keysOf, labelsOf, num, verdictCounts } from "./sql.ts";

/** Duplicates of one cause. */
export const causeCount = defineKind({
  schema: z.object({ kind: z.literal("cause_count"), cause: z.enum(CAUSES), group: name.optional(), topic: name.optional(), threshold: count, windowSeconds }).strict(),
  fields: [
    { key: "cause", control: "cause", required: true },
    { key: "group", control: "group", required: false },
    { key: "topic", control: "topic", required: false },
    { key: "threshold", control: "count", required: true, initial: 0 },
    { key: "windowSeconds", control: "minutes", required: true, initial: 10 },
  ],
  // It counts one cause, so it cannot be split by cause.
  groupableBy: ["group", "topic", "defect"],
  unit: "count",
  threshold: (c) => c.threshold,
  async measure(c, { driver, now, by }) {
    const rows = await verdictCounts(driver, c, by, now, ` AND cause = $2`, [c.cause]);
    return rows.map((row) => ({ labels: labelsOf(row, by), value: num(row, "n"), active: num(row, "n") > c.threshold, keys: keysOf(row) }));
  },
  metricLabels: ["group", "topic", "cause"],
  promql: (c, q) => ({ expr: `${q.increase("dupscope_duplicates_total", { group: c.group, topic: c.topic, cause: c.cause }, c.windowSeconds)} > ${c.threshold}` }),
  title: KIND_TITLES.cause_count,
  describe: {
    en: (c, words) => `${words.cause(c.cause)} duplicates${scope(c, "en")} > ${c.threshold} in ${span(c.windowSeconds, "en")}`,
    "zh-CN": (c, words) => `${span(c.windowSeconds, "zh-CN")}内${scope(c, "zh-CN")}原因为“${words.cause(c.cause)}”的重复消费 > ${c.threshold}`,
  },
  examples: [{ kind: "cause_count", cause: "rebalance", threshold: 5, windowSeconds: 900 }],
});
