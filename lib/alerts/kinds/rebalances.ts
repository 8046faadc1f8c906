import { z } from "zod";
import { count, name, scope, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import { labelsOf, num, split, type Row } from "./sql.ts";

/** Rebalance events of one group. */
export const rebalances = defineKind({
  // Event-based kinds need the group: events are indexed by (group, ts), and a scan of every event each 30 s would not scale.
  schema: z.object({ kind: z.literal("rebalances"), group: name, topic: name.optional(), threshold: count, windowSeconds }).strict(),
  fields: [
    { key: "group", control: "group", required: true },
    { key: "topic", control: "topic", required: false },
    { key: "threshold", control: "count", required: true, initial: 0 },
    { key: "windowSeconds", control: "minutes", required: true, initial: 10 },
  ],
  groupableBy: ["group", "topic"],
  unit: "count",
  threshold: (c) => c.threshold,
  async measure(c, { driver, now, by }) {
    const params: unknown[] = [c.group, now - c.windowSeconds * 1000];
    const { select, groupBy } = split(by, { topic: "topic" });
    const rows = await driver.query<Row>(
      `SELECT ${select}count(*) AS n FROM events WHERE group_name = $1 AND ts >= $2 AND kind = 'rebalance'${c.topic !== undefined ? ` AND topic = $${params.push(c.topic)}` : ""}${groupBy}`,
      params,
    );
    return rows.map((row) => ({ labels: labelsOf(row, by, { group: c.group }), value: num(row, "n"), active: num(row, "n") > c.threshold, keys: [] }));
  },
  metricLabels: ["group", "topic"],
  promql: (c, q) => ({ expr: `${q.increase("dupscope_rebalances_total", { group: c.group, topic: c.topic }, c.windowSeconds)} > ${c.threshold}` }),
  title: KIND_TITLES.rebalances,
  describe: {
    en: (c) => `rebalances${scope(c, "en")} > ${c.threshold} in ${span(c.windowSeconds, "en")}`,
    "zh-CN": (c) => `${span(c.windowSeconds, "zh-CN")}内${scope(c, "zh-CN")}的重平衡次数 > ${c.threshold}`,
  },
  examples: [{ kind: "rebalances", group: "g", threshold: 3, windowSeconds: 600 }],
});
