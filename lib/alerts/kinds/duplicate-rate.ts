import { z } from "zod";
import type { SqlDriver } from "../../store/driver.ts";
import type { GroupByLabel } from "../series.ts";
import { count, name, percent, scope, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import { keysOf, labelsOf, num, verdictCounts, type Row } from "./sql.ts";

const schema = z
  .object({ kind: z.literal("duplicate_rate"), group: name.optional(), topic: name.optional(), thresholdPercent: percent, minKeys: count.default(1), windowSeconds })
  .strict();

/**
 * Keys seen in the window, per group and/or topic when the split has them: the denominator of a rate. Returns how
 * many keys a row of the duplicates' split divides by.
 */
async function deliveredKeys(driver: SqlDriver, c: z.output<typeof schema>, by: readonly GroupByLabel[], now: number): Promise<(row: Row) => number> {
  const params: unknown[] = [now - c.windowSeconds * 1000];
  const group = c.group !== undefined ? ` AND $${params.push(c.group)} = ANY(groups)` : "";
  const topic = c.topic !== undefined ? ` AND $${params.push(c.topic)} = ANY(topics)` : "";
  const dims = (["group", "topic"] as const).filter((d) => by.includes(d));
  const from = dims.map((d) => `, unnest(${d === "group" ? "groups" : "topics"}) AS ${d}_value`).join("");
  const rows = await driver.query<Row>(
    `SELECT ${dims.map((d) => `${d}_value AS "${d}", `).join("")}count(*) AS n FROM key_diagnoses${from}
      WHERE last_ts >= $1${group}${topic}${dims.length > 0 ? ` GROUP BY ${dims.map((d) => `${d}_value`).join(", ")}` : ""}`,
    params,
  );
  const keyOf = (row: Row) => JSON.stringify(dims.map((d) => row[d] ?? null));
  const counts = new Map(rows.map((row) => [keyOf(row), num(row, "n")]));
  return (row) => counts.get(keyOf(row)) ?? 0;
}

/** Duplicates per 100 keys delivered in the window. */
export const duplicateRate = defineKind({
  schema,
  fields: [
    { key: "group", control: "group", required: false },
    { key: "topic", control: "topic", required: false },
    { key: "thresholdPercent", control: "percent", required: true, initial: 1 },
    { key: "minKeys", control: "count", required: false, initial: 1 },
    { key: "windowSeconds", control: "minutes", required: true, initial: 10 },
  ],
  groupableBy: ["group", "topic", "cause", "defect"],
  unit: "percent",
  threshold: (c) => c.thresholdPercent,
  async measure(c, { driver, now, by }) {
    const [duplicates, delivered] = await Promise.all([verdictCounts(driver, c, by, now), deliveredKeys(driver, c, by, now)]);
    return duplicates.map((row) => {
      const keys = delivered(row);
      const value = keys === 0 ? 0 : (num(row, "n") / keys) * 100;
      return { labels: labelsOf(row, by), value, active: keys >= c.minKeys && value > c.thresholdPercent, keys: keysOf(row) };
    });
  },
  metricLabels: ["group"],
  promql(c, q) {
    if (c.topic !== undefined) return { unsupported: `duplicate_rate with a topic: dupscope_keys_total is counted per group only` };
    const keys = q.increase("dupscope_keys_total", { group: c.group }, c.windowSeconds);
    return { expr: `(${q.increase("dupscope_duplicates_total", { group: c.group }, c.windowSeconds)} / ${keys}) * 100 > ${c.thresholdPercent} and ${keys} >= ${c.minKeys}` };
  },
  title: KIND_TITLES.duplicate_rate,
  describe: {
    en: (c) => `duplicates per 100 keys${scope(c, "en")} > ${c.thresholdPercent}% in ${span(c.windowSeconds, "en")}`,
    "zh-CN": (c) => `${span(c.windowSeconds, "zh-CN")}内${scope(c, "zh-CN")}每 100 个业务键的重复消费 > ${c.thresholdPercent}%`,
  },
  examples: [{ kind: "duplicate_rate", thresholdPercent: 1, windowSeconds: 600 }, { kind: "duplicate_rate", group: "g", topic: "t", thresholdPercent: 5, minKeys: 10, windowSeconds: 3600 }],
});
