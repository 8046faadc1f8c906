import { Counter, Gauge, Registry, type Metric } from "prom-client";
import { FORMATS } from "../../collectors/registry.ts";
import { GAP_BUCKETS_SECONDS } from "./config.ts";
import type { CounterRow, StoredMetrics } from "./stored.ts";

/**
 * Turns the stored counters into Prometheus families. A fresh registry per scrape: values are set from one
 * snapshot, so two concurrent scrapes never add into each other's metric objects.
 */

const STORED_COUNTERS = [
  { stored: "duplicates", name: "dupscope_duplicates_total", help: "Duplicate deliveries diagnosed, counted once their verdict settled.", labels: ["group", "topic", "cause", "outcome"] },
  { stored: "leaks", name: "dupscope_leaks_total", help: "Duplicates that passed every dedup layer, by the defect that let them through.", labels: ["group", "topic", "defect"] },
  { stored: "dedup_decisions", name: "dupscope_dedup_decisions_total", help: "Decisions logged by consumers' dedup layers (dedup log v1).", labels: ["group", "layer", "decision"] },
  { stored: "rebalances", name: "dupscope_rebalances_total", help: "Queue or partition ownership changes logged by consumers.", labels: ["group", "topic"] },
  { stored: "keys", name: "dupscope_keys_total", help: "Business keys seen per consumer group (the denominator of duplicate rates).", labels: ["group"] },
] as const;

/**
 * Every server reads these from the one store, so each exports the same values: a query summing them over a scrape
 * of several servers must first keep one copy of each series (`max by` these labels).
 */
export const STORED_COUNTER_LABELS: ReadonlyMap<string, readonly string[]> = new Map(STORED_COUNTERS.map((c) => [c.name, c.labels]));

const KNOWN_FORMATS: ReadonlySet<string> = new Set(FORMATS.map((f) => f.name));

/** Event ids that merely look like a collector's are normalized events: the format label stays a closed set. */
function formatLabel(format: string): string {
  return KNOWN_FORMATS.has(format) ? format : "events";
}

function pick(row: CounterRow, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, row.labels[n] ?? ""]));
}

const GAP_NAME = "dupscope_duplicate_gap_seconds";
const GAP_HELP = "Time between the two deliveries of a duplicate, by cause.";

/**
 * The gap histogram's buckets were counted in the store, not observed in this process, and prom-client's Histogram
 * can only observe. The registry needs nothing but name, help, type and get(), so this object provides those, and
 * its label names as prom-client's metrics carry them, for whoever reads the registry's families without samples
 * (the Grafana dashboard's test).
 */
function storedHistogram(buckets: CounterRow[], sums: CounterRow[]) {
  const values = () =>
    [...new Set(buckets.map((b) => b.labels.cause ?? ""))].sort().flatMap((cause) => {
      const counts = new Map(buckets.filter((b) => b.labels.cause === cause).map((b) => [b.labels.le, b.value]));
      let cumulative = 0;
      const bucketValues = [...GAP_BUCKETS_SECONDS.map(String), "+Inf"].map((le) => {
        cumulative += counts.get(le) ?? 0;
        return { metricName: `${GAP_NAME}_bucket`, labels: { cause, le }, value: cumulative };
      });
      const sumMs = sums.find((s) => s.labels.cause === cause)?.value ?? 0;
      return [
        ...bucketValues,
        { metricName: `${GAP_NAME}_sum`, labels: { cause }, value: sumMs / 1000 },
        { metricName: `${GAP_NAME}_count`, labels: { cause }, value: cumulative },
      ];
    });
  return {
    name: GAP_NAME,
    help: GAP_HELP,
    type: "histogram",
    labelNames: ["cause"],
    get: async () => ({ name: GAP_NAME, help: GAP_HELP, type: "histogram", values: values(), aggregator: "sum" }),
  };
}

export function storedRegistry(stored: StoredMetrics, now: number): Registry {
  const registry = new Registry();
  const byName = (name: string) => stored.counters.filter((c) => c.name === name);
  for (const family of STORED_COUNTERS) {
    const counter = new Counter({ name: family.name, help: family.help, labelNames: [...family.labels], registers: [registry] });
    for (const row of byName(family.stored)) counter.inc(pick(row, family.labels), row.value);
  }
  registry.registerMetric(storedHistogram(byName("gap_bucket"), byName("gap_ms_sum")) as unknown as Metric);

  const ingest = new Counter({
    name: "dupscope_ingest_events_total",
    help: "Ingested records by format: accepted (newly stored, by any writer), duplicate (already stored), rejected (refused by the server) and out_of_window (refused for their time: older than the raw-event retention or more than a day ahead).",
    labelNames: ["format", "result"],
    registers: [registry],
  });
  const lag = new Gauge({
    name: "dupscope_ingest_lag_seconds",
    help: "Age of the newest stored event of each format: how far behind real time ingest is, or how long a format has been silent.",
    labelNames: ["format"],
    registers: [registry],
  });
  const newest = new Map<string, number>();
  for (const row of stored.formats) {
    const format = formatLabel(row.format);
    ingest.inc({ format, result: "accepted" }, row.events);
    newest.set(format, Math.max(newest.get(format) ?? 0, row.maxTs));
  }
  for (const [format, maxTs] of newest) lag.set({ format }, Math.max(0, (now - maxTs) / 1000));
  for (const row of byName("ingest_events")) ingest.inc({ format: formatLabel(row.labels.format ?? ""), result: row.labels.result ?? "" }, row.value);

  const backlog = new Gauge({
    name: "dupscope_diagnosis_backlog_keys",
    help: "Keys waiting for a diagnosis: ready (queued, a worker may take them), settling (queued by a rebalance or lifecycle line, waiting for the lines after it), unfolded (named by ingested batches not yet folded into the queue).",
    labelNames: ["state"],
    registers: [registry],
  });
  backlog.set({ state: "ready" }, stored.diagnosis.ready);
  backlog.set({ state: "settling" }, stored.diagnosis.settling);
  backlog.set({ state: "unfolded" }, stored.diagnosis.unfolded);
  new Gauge({
    name: "dupscope_diagnosis_wait_seconds",
    help: "How long the longest-waiting ready key or unfolded batch has waited for the diagnosis workers; 0 when none waits.",
    registers: [registry],
  }).set(stored.diagnosis.oldestSince === null ? 0 : Math.max(0, (now - stored.diagnosis.oldestSince) / 1000));
  return registry;
}
