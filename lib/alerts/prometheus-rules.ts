import { stringify } from "yaml";
import { FORMATS } from "../../collectors/registry.ts";
import { prometheusTemplate } from "./annotations.ts";
import { STORED_COUNTER_LABELS } from "../metrics/exposition.ts";
import { layersAfter, type Condition } from "./conditions.ts";
import type { GroupByLabel } from "./series.ts";
import type { RuleView } from "./repo.ts";

/**
 * The rules as a Prometheus alerting rules file over /api/metrics, for teams that alert from Prometheus. The
 * metrics count by ingest time and verdicts are counted once settled, so Prometheus sees a breach a little later
 * than dupscope's own evaluator, which reads event time.
 */

const selector = (labels: Record<string, string | undefined>) => {
  const parts = Object.entries(labels).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${JSON.stringify(v)}`]));
  return parts.length > 0 ? `{${parts.join(",")}}` : "";
};
/** A PromQL range or `for:` literal ("15m", "2h", "1d"): Prometheus syntax, not a duration for a reader. */
const promDuration = (seconds: number) =>
  seconds % 86400 === 0 ? `${seconds / 86400}d` : seconds % 3600 === 0 ? `${seconds / 3600}h` : seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
/** The labels each metric a condition reads carries (lib/metrics/exposition.ts), for its `sum by`. */
const METRIC_LABELS: Record<Condition["kind"], readonly string[]> = {
  leaked_duplicates: ["group", "topic", "defect"],
  cause_count: ["group", "topic", "cause"],
  rebalances: ["group", "topic"],
  duplicate_rate: ["group"],
  dedup_miss_rate: ["group"],
  ingest_silent: [],
};

/**
 * A store-derived counter is exported alike by every server scraped (STORED_COUNTER_LABELS): one copy of each
 * series, or a sum over N servers counts everything N times. A server's own counters (ingest) are summed as they are.
 */
function oneCopy(metric: string, expr: string): string {
  const labels = STORED_COUNTER_LABELS.get(metric);
  return labels === undefined ? expr : `max by (${labels.join(", ")}) (${expr})`;
}

/** PromQL for a condition split by `by` (a rule's group_by), or why Prometheus cannot express it with these metrics. */
export function promqlFor(c: Condition, by: readonly GroupByLabel[] = []): { expr: string } | { unsupported: string } {
  const missing = by.filter((label) => !METRIC_LABELS[c.kind].includes(label));
  if (missing.length > 0) return { unsupported: `${c.kind} by ${missing.join(", ")}: the metric it reads has no such label` };
  const sum = by.length > 0 ? `sum by (${by.join(", ")})` : "sum";
  const increase = (metric: string, labels: Record<string, string | undefined>, window: string) => `${sum}(${oneCopy(metric, `increase(${metric}${selector(labels)}[${window}])`)})`;
  if (c.kind === "ingest_silent") {
    const format = c.source.replace(/:$/, "");
    if (!FORMATS.some((f) => f.name === format)) return { unsupported: `ingest_silent for source "${c.source}": metrics are labelled by format, not by source` };
    return { expr: `${increase("dupscope_ingest_events_total", { format, result: "accepted" }, promDuration(c.silentSeconds))} == 0` };
  }
  const w = promDuration(c.windowSeconds);
  switch (c.kind) {
    case "leaked_duplicates":
      return { expr: `${increase("dupscope_leaks_total", { group: c.group, topic: c.topic }, w)} > ${c.threshold}` };
    case "cause_count":
      return { expr: `${increase("dupscope_duplicates_total", { group: c.group, topic: c.topic, cause: c.cause }, w)} > ${c.threshold}` };
    case "rebalances":
      return { expr: `${increase("dupscope_rebalances_total", { group: c.group, topic: c.topic }, w)} > ${c.threshold}` };
    case "duplicate_rate": {
      if (c.topic !== undefined) return { unsupported: `duplicate_rate with a topic: dupscope_keys_total is counted per group only` };
      const keys = increase("dupscope_keys_total", { group: c.group }, w);
      return { expr: `(${increase("dupscope_duplicates_total", { group: c.group }, w)} / ${keys}) * 100 > ${c.thresholdPercent} and ${keys} >= ${c.minKeys}` };
    }
    case "dedup_miss_rate": {
      const hits = (layers: string[]) =>
        `${sum}(${oneCopy("dupscope_dedup_decisions_total", `increase(dupscope_dedup_decisions_total{group=${JSON.stringify(c.group)},decision="hit",layer=~"${layers.join("|")}"}[${w}])`)})`;
      const later = layersAfter(c.layer);
      if (later.length === 0) return { unsupported: `dedup_miss_rate of ${c.layer}: no layer comes after it` };
      const all = hits([c.layer, ...later]);
      return { expr: `(${hits(later)} / ${all}) * 100 > ${c.thresholdPercent} and ${all} >= ${c.minHits}` };
    }
  }
}

/** Alert names must be metric-name-like in Prometheus; the rule's own name goes into an annotation. */
export function alertName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  return /^[A-Za-z_]/.test(camel) ? camel : `Dupscope${camel}`;
}

export function prometheusRulesYaml(rules: RuleView[]): string {
  const skipped: string[] = [];
  const alerts = rules
    .filter((r) => r.enabled)
    .flatMap((rule) => {
      const promql = promqlFor(rule.condition, rule.groupBy);
      if ("unsupported" in promql) {
        skipped.push(`${rule.name}: ${promql.unsupported}`);
        return [];
      }
      return [
        {
          alert: alertName(rule.name),
          expr: promql.expr,
          ...(rule.forSeconds > 0 ? { for: promDuration(rule.forSeconds) } : {}),
          labels: { ...rule.labels, severity: rule.severity },
          // The same annotations as dupscope's own notifications; the templates' placeholders are Prometheus' own.
          annotations: {
            summary: rule.summary ? prometheusTemplate(rule.summary) : `${rule.name}: ${rule.conditionText}${rule.groupBy.length > 0 ? ` (${rule.groupBy.map((l) => `${l}={{ $labels.${l} }}`).join(", ")})` : ""}`,
            ...(rule.description ? { description: prometheusTemplate(rule.description) } : {}),
            ...(rule.runbookUrl ? { runbook_url: prometheusTemplate(rule.runbookUrl) } : {}),
            dupscope_rule_id: rule.id,
          },
        },
      ];
    });
  const header = [
    "Generated by dupscope from its alert rules (GET /api/v1/alerts/prometheus-rules), over the metrics of /api/metrics.",
    ...(skipped.length > 0 ? ["Rules Prometheus cannot express with these metrics (alert on them in dupscope):", ...skipped.map((s) => `  ${s}`)] : []),
  ];
  const doc = stringify({ groups: [{ name: "dupscope", rules: alerts }] }, { lineWidth: 0 });
  return `${header.map((line) => `# ${line}`).join("\n")}\n${doc}`;
}
