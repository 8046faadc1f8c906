import { z } from "zod";
import { name, span, windowSeconds } from "./common.ts";
import { defineKind } from "./kind.ts";
import { KIND_TITLES } from "./titles.ts";
import type { Row } from "./sql.ts";

/** The time since sources starting with a prefix last stored anything. */
export const ingestSilent = defineKind({
  schema: z.object({ kind: z.literal("ingest_silent"), source: name, silentSeconds: windowSeconds }).strict(),
  fields: [
    { key: "source", control: "source", required: true },
    { key: "silentSeconds", control: "minutes", required: true, initial: 15 },
  ],
  groupableBy: ["source"],
  unit: "seconds",
  threshold: (c) => c.silentSeconds,
  async measure(c, { driver, now, since, by }) {
    const silence = (last: unknown) => {
      const at = last ? new Date(last as string | Date).getTime() : since;
      const silentSeconds = Math.max(0, (now - at) / 1000);
      return { value: silentSeconds, active: silentSeconds > c.silentSeconds, keys: [] };
    };
    if (by.includes("source")) {
      const rows = await driver.query<Row>(`SELECT source, last_ingested_at AS last FROM ingest_sources WHERE starts_with(source, $1)`, [c.source]);
      return rows.map((row) => ({ labels: { source: String(row.source) }, ...silence(row.last) }));
    }
    const [row] = await driver.query<Row>(`SELECT max(last_ingested_at) AS last FROM ingest_sources WHERE starts_with(source, $1)`, [c.source]);
    return [{ labels: {}, ...silence(row?.last) }];
  },
  metricLabels: [],
  promql(c, q) {
    const format = c.source.replace(/:$/, "");
    if (!q.formats.includes(format)) return { unsupported: `ingest_silent for source "${c.source}": metrics are labelled by format, not by source` };
    return { expr: `${q.increase("dupscope_ingest_events_total", { format, result: "accepted" }, c.silentSeconds)} == 0` };
  },
  title: KIND_TITLES.ingest_silent,
  describe: {
    en: (c) => `no events from sources starting with "${c.source}" for ${span(c.silentSeconds, "en")}`,
    "zh-CN": (c) => `以“${c.source}”开头的数据源已 ${span(c.silentSeconds, "zh-CN")}没有事件`,
  },
  examples: [{ kind: "ingest_silent", source: "rocketmq-client-log:", silentSeconds: 900 }, { kind: "ingest_silent", source: "app-7:", silentSeconds: 900 }],
});
