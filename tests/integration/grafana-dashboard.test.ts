import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { parse, stringify } from "yaml";
import { CAUSES, OUTCOMES } from "../../lib/diagnosis/vocabulary.ts";
import { storedRegistry } from "../../lib/metrics/exposition.ts";
import { processRegistry } from "../../lib/metrics/process-registry.ts";
import { parseFilters } from "../../lib/queries/filters.ts";
import { readPromql } from "../helpers/promql.ts";

/**
 * deploy/grafana/dupscope.json against what the server exports: every query names metrics and labels the
 * registry of /api/metrics has (read from the registry, not from a list here), promtool parses every query, every
 * link opens a dupscope page on the dashboard's time range, and the dashboard imports and provisions (its data
 * source is an input and a variable).
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const GRAFANA = path.join(ROOT, "deploy", "grafana");

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { expr: string; refId: string; datasource?: { uid: string } }[];
  fieldConfig?: { defaults?: { links?: { url: string }[] } };
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  current?: { value?: string };
  datasource?: { uid: string };
}

interface Dashboard {
  __inputs: { name: string; type: string; pluginId: string }[];
  __requires: { type: string; id: string; version: string }[];
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  links: { url: string }[];
  templating: { list: Variable[] };
}

const dashboard = JSON.parse(readFileSync(path.join(GRAFANA, "dupscope.json"), "utf8")) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = panels.filter((p) => p.type !== "row");
const variables = dashboard.templating.list;

/** Labels Prometheus adds to every series it scrapes; the server does not export them. */
const TARGET_LABELS = ["job", "instance"];

/**
 * The series /api/metrics exports, with their label names: the server's registries as a scrape builds them (an
 * empty store still registers every family), a histogram's as its _bucket, _sum and _count series.
 */
function exportedSeries(): Map<string, string[]> {
  const registry = Registry.merge([processRegistry(), storedRegistry({ counters: [], formats: [], diagnosis: { ready: 0, settling: 0, unfolded: 0, oldestSince: null } }, Date.now())]);
  const series = new Map<string, string[]>();
  for (const metric of registry.getMetricsAsArray()) {
    const labels = [...((metric as { labelNames?: readonly string[] }).labelNames ?? [])];
    // prom-client declares the type an enum of these strings; the stored histogram is a plain object of the same shape.
    const type = String(metric.type);
    if (type === "histogram") {
      series.set(`${metric.name}_bucket`, [...labels, "le"]);
      series.set(`${metric.name}_sum`, labels);
      series.set(`${metric.name}_count`, labels);
    } else if (type === "summary") {
      series.set(metric.name, [...labels, "quantile"]);
      series.set(`${metric.name}_sum`, labels);
      series.set(`${metric.name}_count`, labels);
    } else {
      series.set(metric.name, labels);
    }
  }
  return series;
}

const EXPORTED = exportedSeries();
const BUILT_IN_RANGES: Record<string, string> = { __rate_interval: "2m", __interval: "1m", __range: "6h" };

/** A query as Prometheus receives it: Grafana's range variables as durations, the dashboard's own as "match all". */
function asPrometheusGets(expr: string): string {
  const names = new Set(variables.map((v) => v.name));
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare!;
    if (name in BUILT_IN_RANGES) return BUILT_IN_RANGES[name]!;
    if (names.has(name)) return ".*";
    throw new Error(`${whole} is neither a dashboard variable nor one of Grafana's range variables, in ${expr}`);
  });
}

/** What is wrong with the metric and label names of a query; empty when nothing is. */
function nameProblems(expr: string): string[] {
  const { selectors, groupings } = readPromql(asPrometheusGets(expr));
  const problems: string[] = [];
  const labelsOf = (metric: string) => [...(EXPORTED.get(metric) ?? []), ...TARGET_LABELS];
  for (const { metric, matchers } of selectors) {
    if (!EXPORTED.has(metric)) problems.push(`${metric} is not exported`);
    else for (const label of matchers) if (!labelsOf(metric).includes(label)) problems.push(`${metric} has no label ${label}`);
  }
  for (const { labels, metrics } of groupings) {
    for (const metric of metrics.filter((m) => EXPORTED.has(m))) {
      for (const label of labels) if (!labelsOf(metric).includes(label)) problems.push(`by (${labels.join(", ")}): ${metric} has no label ${label}`);
    }
  }
  return problems;
}

const variableQuery = (v: Variable) => (typeof v.query === "string" ? v.query : v.query.query);
const LABEL_VALUES = /^label_values\((.+),\s*(\w+)\)$/;

const targets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p, ...t })));

describe("the Grafana dashboard", () => {
  it("reads the registry: every family of a scrape, histogram series and labels included", () => {
    assert.ok(EXPORTED.has("dupscope_duplicate_gap_seconds_bucket"));
    assert.deepEqual(EXPORTED.get("dupscope_duplicate_gap_seconds_bucket"), ["cause", "le"]);
    assert.deepEqual(EXPORTED.get("dupscope_duplicates_total"), ["group", "topic", "cause", "outcome"]);
    assert.ok(EXPORTED.has("process_cpu_seconds_total"));
  });

  it("tells a query naming what the server does not export from one that names what it does", () => {
    assert.deepEqual(nameProblems('sum by (group) (rate(dupscope_leaks_total{group=~"$group"}[5m]))'), []);
    assert.deepEqual(nameProblems("sum(rate(dupscope_leak_total[5m]))"), ["dupscope_leak_total is not exported"]);
    assert.deepEqual(nameProblems('dupscope_ingest_lag_seconds{group=~"$group"}'), ["dupscope_ingest_lag_seconds has no label group"]);
    assert.deepEqual(nameProblems("sum by (cause) (rate(dupscope_leaks_total[5m]))"), ["by (cause): dupscope_leaks_total has no label cause"]);
    assert.throws(() => nameProblems("sum(rate(dupscope_leaks_total[5m])) by (group)"), /between the aggregation and its argument/);
    assert.throws(() => nameProblems("rate(dupscope_leaks_total[$__unknown])"), /neither a dashboard variable/);
  });

  it("queries only metrics and labels the server exports", () => {
    assert.ok(targets.length >= 15, `only ${targets.length} queries`);
    const problems = targets.flatMap((t) => nameProblems(t.expr).map((p) => `panel "${t.panel.title}" ${t.refId}: ${p}`));
    assert.deepEqual(problems, []);
    const used = new Set(targets.flatMap((t) => readPromql(asPrometheusGets(t.expr)).selectors.map((s) => s.metric)));
    const dupscopeFamilies = [...EXPORTED.keys()].filter((n) => n.startsWith("dupscope_") && !/_(sum|count)$/.test(n));
    assert.deepEqual(dupscopeFamilies.filter((n) => !used.has(n)), [], "every dupscope metric has a panel");
  });

  it("fills its variables from exported metrics and labels", () => {
    for (const v of variables.filter((x) => x.type === "query")) {
      const m = LABEL_VALUES.exec(variableQuery(v));
      assert.ok(m, `${v.name}: ${variableQuery(v)} is not label_values(selector, label)`);
      assert.deepEqual(nameProblems(m[1]!), [], v.name);
      const [selector] = readPromql(asPrometheusGets(m[1]!)).selectors;
      assert.ok([...EXPORTED.get(selector!.metric)!, ...TARGET_LABELS].includes(m[2]!), `${v.name}: ${selector!.metric} has no label ${m[2]}`);
    }
  });

  it("has queries promtool parses", () => {
    const rules = targets.map((t) => ({ record: `dupscope_grafana:panel_${t.panel.id}_${t.refId}`, expr: asPrometheusGets(t.expr) }));
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-grafana-"));
    try {
      const file = path.join(dir, "queries.rules.yml");
      writeFileSync(file, stringify({ groups: [{ name: "grafana-dashboard", rules }] }));
      const result = spawnSync("promtool", ["check", "rules", file], { encoding: "utf8" });
      if (result.error) throw new Error("promtool is not installed: apt-get install prometheus (npm run setup:test installs it)");
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
      assert.match(result.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("links into dupscope's pages on the dashboard's time range, from the labels its queries keep", () => {
    const from = Date.UTC(2026, 10, 30, 12);
    const to = from + 6 * 3_600_000;
    const sample: Record<string, string> = { group: "pay-consumer", cause: CAUSES[0] };
    const links = [
      ...dashboard.links.map((l) => ({ url: l.url, outputs: [] as string[], where: "dashboard" })),
      ...queryPanels.flatMap((p) =>
        (p.fieldConfig?.defaults?.links ?? []).map((l) => ({
          url: l.url,
          where: p.title,
          // The labels a series of the panel carries: the outermost aggregation's, or the selector's own.
          outputs: (p.targets ?? []).flatMap((t) => {
            const read = readPromql(asPrometheusGets(t.expr));
            return read.groupings[0]?.labels ?? EXPORTED.get(read.selectors[0]!.metric) ?? [];
          }),
        })),
      ),
    ];
    assert.ok(links.length >= 10, `only ${links.length} links`);
    for (const link of links) {
      assert.ok(link.url.startsWith("${dupscope_url}/"), `${link.where}: ${link.url} does not start at the dupscope_url variable`);
      const url = new URL(
        link.url
          .replace("${dupscope_url}", "http://dupscope.test")
          .replaceAll("${__from}", String(from))
          .replaceAll("${__to}", String(to))
          .replace(/\$\{__field\.labels\.(\w+)\}/g, (_, label: string) => {
            assert.ok(link.outputs.includes(label), `${link.where}: its series have no label ${label} for ${link.url}`);
            return encodeURIComponent(sample[label] ?? `a-${label}`);
          }),
      );
      assert.doesNotMatch(url.href, /\$/, `${link.where}: ${link.url} uses a variable this test does not know`);
      const segments = url.pathname.split("/").filter(Boolean);
      assert.ok(pageExists(segments), `${link.where}: no page app/${segments.join("/")}`);
      const sp = Object.fromEntries(url.searchParams);
      if (sp.from !== undefined) {
        const f = parseFilters(sp, to + 60_000);
        assert.deepEqual({ range: f.range, from: f.from, to: f.to }, { range: "custom", from, to }, `${link.where}: ${link.url}`);
        if (sp.group) assert.equal(f.group, sample.group);
        if (sp.cause) assert.equal(f.cause, sample.cause);
      }
      if (sp.outcome) assert.ok((OUTCOMES as readonly string[]).includes(sp.outcome), `${link.where}: outcome ${sp.outcome}`);
    }
  });

  it("imports with a Prometheus input and provisions with a data source variable", () => {
    assert.ok(dashboard.schemaVersion >= 36, "Grafana 10's schema");
    assert.equal(dashboard.__requires.find((r) => r.id === "grafana")?.version.split(".")[0], "10");
    assert.deepEqual(dashboard.__inputs.map((i) => [i.name, i.type, i.pluginId]), [["DS_PROMETHEUS", "datasource", "prometheus"]]);
    const datasource = variables.find((v) => v.name === "datasource");
    assert.equal(datasource?.type, "datasource");
    assert.equal(datasource?.query, "prometheus");
    assert.equal(datasource?.current?.value, "${DS_PROMETHEUS}", "an import fills the variable from the input");
    assert.equal(variables.find((v) => v.name === "dupscope_url")?.type, "textbox");
    for (const p of queryPanels) {
      assert.equal(p.datasource?.uid, "${datasource}", p.title);
      for (const t of p.targets ?? []) assert.equal(t.datasource?.uid, "${datasource}", `${p.title} ${t.refId}`);
    }
    for (const v of variables.filter((x) => x.type === "query")) assert.equal(v.datasource?.uid, "${datasource}", v.name);
    const declared = new Set(dashboard.__requires.filter((r) => r.type === "panel").map((r) => r.id));
    assert.deepEqual([...new Set(queryPanels.map((p) => p.type))].filter((t) => !declared.has(t)), [], "panel types declared in __requires");
    assert.equal(new Set(panels.map((p) => p.id)).size, panels.length, "panel ids are unique");
    assert.deepEqual(overlaps(panels), [], "no two panels overlap");

    const provider = parse(readFileSync(path.join(GRAFANA, "provisioning", "dashboards", "dupscope.yaml"), "utf8")) as { apiVersion: number; providers: { type: string; options: { path: string } }[] };
    assert.equal(provider.apiVersion, 1);
    assert.equal(provider.providers[0]?.type, "file");
  });
});

/** Whether app/ has a page for these path segments, a [param] folder matching any one segment. */
function pageExists(segments: string[]): boolean {
  let dir = path.join(ROOT, "app");
  for (const segment of segments) {
    const entries = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
    const match = entries.find((e) => e.name === segment) ?? entries.find((e) => /^\[\w+\]$/.test(e.name));
    if (!match) return false;
    dir = path.join(dir, match.name);
  }
  return existsSync(path.join(dir, "page.tsx"));
}

function overlaps(list: Panel[]): string[] {
  const found: string[] = [];
  for (const [i, a] of list.entries()) {
    assert.ok(a.gridPos.x + a.gridPos.w <= 24, `${a.title} is wider than the grid`);
    for (const b of list.slice(i + 1)) {
      const apart = a.gridPos.x + a.gridPos.w <= b.gridPos.x || b.gridPos.x + b.gridPos.w <= a.gridPos.x || a.gridPos.y + a.gridPos.h <= b.gridPos.y || b.gridPos.y + b.gridPos.h <= a.gridPos.y;
      if (!apart) found.push(`${a.title} / ${b.title}`);
    }
  }
  return found;
}
