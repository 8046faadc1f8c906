import Link from "next/link";
import { CauseChart, type Series } from "@/components/charts/CauseChart.tsx";
import { FunnelChart } from "@/components/charts/FunnelChart.tsx";
import { GapChart } from "@/components/charts/GapChart.tsx";
import { OutcomeChart } from "@/components/charts/OutcomeChart.tsx";
import { CAUSE_COLORS, OUTCOME_COLORS } from "@/components/charts/palette.ts";
import { RateChart } from "@/components/charts/RateChart.tsx";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { Widget } from "@/components/Widget.tsx";
import { causeName, defectName, outcomeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { CAUSES, type Cause, type Defect } from "@/lib/diagnosis/vocabulary.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import { dictionary, type Dictionary } from "@/lib/i18n/dictionary.ts";
import { filterQuery, type Filters } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { kpiLinks, type KpiName } from "@/lib/views/kpi-links.ts";
import { causeTrend, funnel, funnelBars, gaps, kpis, leaders, leaks, outcomeTrend, RANK_ORDERS, rates, type Count, type RankOrder, type RateRow } from "@/lib/views/overview.ts";

/**
 * The overview's widgets: each reads its own read model (lib/views/overview.ts) and renders inside its own Suspense
 * boundary, so a slow chart does not hold back the others.
 */

type Props = { f: Filters; locale: Locale };

const driver = async () => (await getStore()).driver;
const fmt = (n: number, locale: Locale) => n.toLocaleString(locale);

function causeSeries(causes: readonly Count<Cause>[], locale: Locale): Series[] {
  return causes.map(({ key }) => ({ key, label: causeName(key, locale), color: CAUSE_COLORS[key] }));
}

function summary<K extends string>(counts: readonly Count<K>[], label: (key: K) => string, locale: Locale): string {
  const { total, top } = leaders(counts);
  return dictionary(locale).overview.chartSummary(fmt(total, locale), top.map((c) => `${label(c.key)} (${fmt(c.n, locale)})`).join(", ") || "—");
}

export async function Kpis({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const k = await kpis(await driver(), f);
  const links = kpiLinks(f);
  const items: [KpiName, number, string?][] = [
    ["keys", k.keys],
    ["keysWithDuplicates", k.keysWithDuplicates],
    ["duplicates", k.duplicates],
    ["caught", k.caught, "caught"],
    ["leaked", k.leaked, "leaked"],
    ["lost", k.lost, "lost"],
  ];
  // Each card is one link (its label is the link's name, the card its target) to the list of what it counts.
  return (
    <dl className="kpis">
      {items.map(([name, n, tone]) => (
        <div key={name} className={tone ? `kpi ${tone}` : "kpi"} data-kpi={name}>
          <dt>
            <Link href={links[name]}>{t.kpi[name]}</Link>
          </dt>
          <dd>{fmt(n, locale)}</dd>
          {name === "lost" ? <dd className="kpi-note">{t.kpiLostNote}</dd> : null}
        </div>
      ))}
    </dl>
  );
}

export async function CauseWidget({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const { points, causes } = await causeTrend(await driver(), f);
  const series = causeSeries(causes, locale);
  return (
    <Widget id="by-cause" title={t.byCause} note={t.byCauseNote} wide>
      <CauseChart points={points} series={series} rebalanceLabel={t.rebalances} moreText={t.tooltipMore} from={f.from} to={f.to} />
      <p className="muted chart-summary">{summary(causes, (c) => causeName(c, locale), locale)}</p>
    </Widget>
  );
}

export async function OutcomeWidget({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const { points, outcomes } = await outcomeTrend(await driver(), f);
  const series = outcomes.map(({ key }) => ({ key, label: outcomeName(key, locale), color: OUTCOME_COLORS[key] }));
  return (
    <Widget id="outcomes" title={t.outcomes} note={t.outcomesNote}>
      <OutcomeChart points={points} series={series} moreText={t.tooltipMore} from={f.from} to={f.to} />
      <p className="muted chart-summary">{summary(outcomes, (o) => outcomeName(o, locale), locale)}</p>
    </Widget>
  );
}

export async function FunnelWidget({ f, locale }: Props) {
  const d = dictionary(locale);
  const { stages, caughtBy } = await funnel(await driver(), f);
  const rows = funnelBars(stages).map((b) => ({
    label: b.stage === "checked" || b.stage === "leaked" ? d.overview.funnelStages[b.stage] : d.layers[b.stage],
    value: b.value,
    note: b.kind === "caught" ? d.overview.funnelCaught(fmt(b.value, locale)) : fmt(b.value, locale),
    color: b.kind === "leaked" ? OUTCOME_COLORS.leaked : b.kind === "checked" ? "#4e79a7" : "#76b7b2",
  }));
  return (
    <Widget id="funnel" title={d.overview.funnel} note={d.overview.funnelNote}>
      <FunnelChart rows={rows} moreText={d.overview.tooltipMore} />
      <p className="muted chart-summary">
        {summary(caughtBy, (l) => d.layers[l], locale)}
      </p>
    </Widget>
  );
}

function gapLabel(fromMs: number, locale: Locale): string {
  return fromMs === 0 ? `< ${formatDuration(1, locale)}` : `≥ ${formatDuration(fromMs, locale)}`;
}

export async function GapWidget({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const { bins, causes, bands: perBand } = await gaps(await driver(), f);
  const series = causeSeries(causes, locale);
  const rows = bins.map((b) => ({ label: gapLabel(b.fromMs, locale), band: b.band, ...Object.fromEntries(CAUSES.map((c) => [c, b[c]])) }));
  const bands = perBand.map(({ key }) => ({ band: key, label: t.bands[key] }));
  return (
    <Widget id="gaps" title={t.gaps} note={t.gapsNote} wide>
      <GapChart rows={rows} series={series} bands={bands} moreText={t.tooltipMore} />
      <p className="muted chart-summary">
        {summary(perBand, (band) => t.bands[band], locale)}
      </p>
    </Widget>
  );
}

/** Rows the widget charts and lists before folding the rest away. */
const SHOWN_RANKS = 8;

function RankTable({ rows, by, label, testId, t, locale }: { rows: readonly RateRow[]; by: "group" | "topic"; label?: string; testId: string; t: Dictionary; locale: Locale }) {
  const o = t.overview;
  const columns: Column<RateRow>[] = [
    {
      id: by,
      data: true,
      header: by === "group" ? t.filters.group : t.filters.topic,
      mono: true,
      wrap: "id",
      cell: (r) => (by === "group" ? <Link href={`/groups/${encodeURIComponent(r.name)}`}>{r.name}</Link> : r.name),
    },
    { id: "duplicates", header: o.rankCols.duplicates, num: true, cell: (r) => fmt(r.duplicates, locale) },
    // Its header ("keys consumed twice / delivered") wraps rather than widen a widget half a 1024-wide window across.
    { id: "keys", header: o.rankCols.keys, num: true, wrap: "text", cell: (r) => o.keysOf(fmt(r.keysWithDuplicates, locale), fmt(r.keys, locale)) },
    { id: "rate", header: o.rankCols.rate, num: true, cell: (r) => `${(r.rate * 100).toFixed(1)}%` },
  ];
  return <DataTable columns={columns} rows={rows} rowKey={(r) => r.name} rowAttributes={(r) => ({ "data-rank-name": r.name })} label={label} testId={testId} compact />;
}

export async function RateWidget({ f, locale, by, order }: Props & { by: "group" | "topic"; order: RankOrder }) {
  const d = dictionary(locale);
  const t = d.overview;
  const rows = await rates(await driver(), f, by, order);
  const shown = rows.slice(0, SHOWN_RANKS);
  const rest = rows.slice(SHOWN_RANKS);
  const bars = shown.map((r) => ({
    name: r.name,
    value: order === "rate" ? Math.round(r.rate * 1000) / 10 : r.duplicates,
    text: t.rateLabel(fmt(r.duplicates, locale), `${(r.rate * 100).toFixed(1)}%`),
  }));
  const id = `top-${by}`;
  const param = by === "group" ? "groupsBy" : "topicsBy";
  const orderLink = (o: RankOrder) => {
    const params = new URLSearchParams(filterQuery(f).slice(1));
    params.set(param, o);
    return `/?${params}#${id}`;
  };
  return (
    <Widget id={id} title={by === "group" ? t.topGroups : t.topTopics} note={t.rateNote}>
      {rows.length === 0 ? (
        <p className="muted">{t.noDuplicates}</p>
      ) : (
        <>
          <nav className="rank-order" aria-label={t.rankBy}>
            {t.rankBy}:{" "}
            {RANK_ORDERS.map((o) => (
              <span key={o}>
                {o === order ? (
                  <strong aria-current="true">{t.rankOrders[o]}</strong>
                ) : (
                  <Link href={orderLink(o)} data-rank-order={o}>
                    {t.rankOrders[o]}
                  </Link>
                )}{" "}
              </span>
            ))}
          </nav>
          <RateChart bars={bars} unit={order === "rate" ? "%" : ""} valueLabel={t.rankOrders[order]} moreText={t.tooltipMore} />
          <RankTable rows={shown} by={by} testId={id} t={d} locale={locale} />
          {rest.length > 0 ? (
            <details className="rank-rest">
              <summary>{t.moreRanked(rest.length, by)}</summary>
              <RankTable rows={rest} by={by} label={t.moreRanked(rest.length, by)} testId={`${id}-rest`} t={d} locale={locale} />
            </details>
          ) : null}
        </>
      )}
    </Widget>
  );
}

export async function LeaksWidget({ f, locale }: Props) {
  const d = dictionary(locale);
  const latest = await leaks(await driver(), f);
  const c = d.duplicates.cols;
  // The duplicates list's columns a leak is read from; its msgId and instances are a click away on the key page.
  const columns: Column<(typeof latest)[number]>[] = [
    { id: "time", header: c.when, mono: true, wrap: "text", cell: (l) => formatTime(l.at, { precision: "s" }) },
    { id: "key", data: true, header: c.key, mono: true, cell: (l) => <Link href={`/keys/${encodeURIComponent(l.bizKey)}`}>{l.bizKey}</Link> },
    { id: "group", data: true, header: c.group, cell: (l) => l.group },
    {
      id: "cause",
      header: c.cause,
      wrap: "text",
      cell: (l) => (
        <>
          <span className="swatch" style={{ background: CAUSE_COLORS[l.cause as Cause] ?? CAUSE_COLORS.unknown }} aria-hidden="true" />
          {causeName(l.cause as Cause, locale)}
        </>
      ),
    },
    { id: "outcome", header: c.outcome, wrap: "text", cell: (l) => (l.defect ? defectName(l.defect as Defect, locale) : outcomeName("leaked", locale)) },
    { id: "gap", header: c.gap, num: true, cell: (l) => formatDuration(l.gapMs, locale) },
  ];
  return (
    <Widget id="leaks" title={d.overview.latestLeaks} note={d.overview.latestLeaksNote} wide>
      {latest.length === 0 ? (
        <p className="muted">{d.overview.noLeaks}</p>
      ) : (
        <DataTable columns={columns} rows={latest} rowKey={(l) => `${l.bizKey}-${l.at}`} testId="leaks" />
      )}
    </Widget>
  );
}
