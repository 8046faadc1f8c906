import Link from "next/link";
import { CauseChart, type Series } from "@/components/charts/CauseChart.tsx";
import { FunnelChart } from "@/components/charts/FunnelChart.tsx";
import { GapChart } from "@/components/charts/GapChart.tsx";
import { OutcomeChart } from "@/components/charts/OutcomeChart.tsx";
import { CAUSE_COLORS, OUTCOME_COLORS } from "@/components/charts/palette.ts";
import { RateChart } from "@/components/charts/RateChart.tsx";
import { Widget } from "@/components/Widget.tsx";
import { causeName, defectName, outcomeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { CAUSES, type Cause, type Defect } from "@/lib/diagnosis/vocabulary.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import type { Filters } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { causeTrend, funnel, gaps, kpis, leaders, leaks, outcomeTrend, topRates, type Count } from "@/lib/views/overview.ts";

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
  const t = dictionary(locale).overview.kpi;
  const k = await kpis(await driver(), f);
  const items: [string, number, string?][] = [
    [t.keys, k.keys],
    [t.keysWithDuplicates, k.keysWithDuplicates],
    [t.duplicates, k.duplicates],
    [t.caught, k.caught, "caught"],
    [t.leaked, k.leaked, "leaked"],
    [t.lost, k.lost, "lost"],
  ];
  return (
    <dl className="kpis">
      {items.map(([label, n, tone]) => (
        <div key={label} className={tone ? `kpi ${tone}` : "kpi"}>
          <dt>{label}</dt>
          <dd>{fmt(n, locale)}</dd>
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
      <CauseChart points={points} series={series} rebalanceLabel={t.rebalances} from={f.from} to={f.to} />
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
      <OutcomeChart points={points} series={series} from={f.from} to={f.to} />
      <p className="muted chart-summary">{summary(outcomes, (o) => outcomeName(o, locale), locale)}</p>
    </Widget>
  );
}

export async function FunnelWidget({ f, locale }: Props) {
  const d = dictionary(locale);
  const { stages, caughtBy } = await funnel(await driver(), f);
  const rows = stages.map((s) => ({
    label: s.stage === "checked" || s.stage === "leaked" ? d.overview.funnelStages[s.stage] : d.layers[s.stage],
    reached: s.reached,
    note: s.caught > 0 ? d.overview.funnelCaught(fmt(s.caught, locale)) : s.stage === "leaked" || s.stage === "checked" ? fmt(s.reached, locale) : "",
    color: s.stage === "leaked" ? OUTCOME_COLORS.leaked : s.stage === "checked" ? "#4e79a7" : "#76b7b2",
  }));
  return (
    <Widget id="funnel" title={d.overview.funnel} note={d.overview.funnelNote}>
      <FunnelChart rows={rows} valueLabel={d.overview.kpi.duplicates} />
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
      <GapChart rows={rows} series={series} bands={bands} />
      <p className="muted chart-summary">
        {summary(perBand, (band) => t.bands[band], locale)}
      </p>
    </Widget>
  );
}

export async function RateWidget({ f, locale, by }: Props & { by: "group" | "topic" }) {
  const t = dictionary(locale).overview;
  const rows = await topRates(await driver(), f, by);
  const bars = rows.map((r) => ({
    name: r.name,
    pct: Math.round(r.rate * 1000) / 10,
    text: t.rateLabel(`${(r.rate * 100).toFixed(1)}%`, fmt(r.keysWithDuplicates, locale), fmt(r.keys, locale)),
  }));
  return (
    <Widget id={`top-${by}`} title={by === "group" ? t.topGroups : t.topTopics} note={t.rateNote}>
      {bars.length === 0 ? <p className="muted">{t.noDuplicates}</p> : <RateChart bars={bars} valueLabel={dictionary(locale).groups.rate} />}
      {by === "group" && bars.length > 0 ? (
        <ul className="inline-links">
          {rows.map((r) => (
            <li key={r.name}>
              <Link href={`/groups/${encodeURIComponent(r.name)}`}>{r.name}</Link>
            </li>
          ))}
        </ul>
      ) : null}
    </Widget>
  );
}

export async function LeaksWidget({ f, locale }: Props) {
  const d = dictionary(locale);
  const latest = await leaks(await driver(), f);
  return (
    <Widget id="leaks" title={d.overview.latestLeaks} note={d.overview.latestLeaksNote} wide>
      {latest.length === 0 ? (
        <p className="muted">{d.overview.noLeaks}</p>
      ) : (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">{d.duplicates.cols.when}</th>
                <th scope="col">{d.duplicates.cols.key}</th>
                <th scope="col">{d.duplicates.cols.group}</th>
                <th scope="col">{d.duplicates.cols.cause}</th>
                <th scope="col">{d.duplicates.cols.outcome}</th>
                <th scope="col">{d.duplicates.cols.gap}</th>
              </tr>
            </thead>
            <tbody>
              {latest.map((l) => (
                <tr key={`${l.bizKey}-${l.at}`}>
                  <td className="mono">{formatTime(l.at, { precision: "s" })}</td>
                  <td className="mono">
                    <Link href={`/keys/${encodeURIComponent(l.bizKey)}`}>{l.bizKey}</Link>
                  </td>
                  <td>{l.group}</td>
                  <td>
                    <span className="swatch" style={{ background: CAUSE_COLORS[l.cause as Cause] ?? CAUSE_COLORS.unknown }} aria-hidden="true" />
                    {causeName(l.cause as Cause, locale)}
                  </td>
                  <td>{l.defect ? defectName(l.defect as Defect, locale) : outcomeName("leaked", locale)}</td>
                  <td>{formatDuration(l.gapMs, locale)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Widget>
  );
}
