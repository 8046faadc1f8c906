import Link from "next/link";
import { CauseChart, type Series } from "@/components/charts/CauseChart.tsx";
import { FunnelChart } from "@/components/charts/FunnelChart.tsx";
import { GapChart } from "@/components/charts/GapChart.tsx";
import { OutcomeChart } from "@/components/charts/OutcomeChart.tsx";
import { CAUSE_COLORS, OUTCOME_COLORS } from "@/components/charts/palette.ts";
import { RateChart } from "@/components/charts/RateChart.tsx";
import { Widget } from "@/components/Widget.tsx";
import { causeName, defectName, outcomeName, type Locale } from "@/lib/diagnosis/messages.ts";
import { CAUSES, DEDUP_LAYERS, OUTCOMES, type Cause, type Defect } from "@/lib/diagnosis/vocabulary.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import type { Filters } from "@/lib/queries/filters.ts";
import { dedupFunnel, duplicatesByCause, gapHistogram, latestLeaks, outcomesOverTime, topByRate, totals } from "@/lib/queries/overview.ts";
import { getStore } from "@/lib/store/index.ts";

/**
 * The overview's widgets: each reads its own query and renders inside its own Suspense boundary, so a slow chart
 * does not hold back the others.
 */

type Props = { f: Filters; locale: Locale };

const driver = async () => (await getStore()).driver;
const fmt = (n: number, locale: Locale) => n.toLocaleString(locale);

function causeSeries(present: (c: Cause) => boolean, locale: Locale): Series[] {
  return CAUSES.filter(present).map((c) => ({ key: c, label: causeName(c, locale), color: CAUSE_COLORS[c] }));
}

function summary(counts: { label: string; n: number }[], locale: Locale): string {
  const total = counts.reduce((s, c) => s + c.n, 0);
  const top = [...counts].sort((a, b) => b.n - a.n).slice(0, 3).filter((c) => c.n > 0);
  return dictionary(locale).overview.chartSummary(fmt(total, locale), top.map((c) => `${c.label} (${fmt(c.n, locale)})`).join(", ") || "—");
}

export async function Kpis({ f, locale }: Props) {
  const t = dictionary(locale).overview.kpi;
  const k = await totals(await driver(), f);
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
  const points = await duplicatesByCause(await driver(), f);
  const count = (c: Cause) => points.reduce((s, p) => s + p[c], 0);
  const series = causeSeries((c) => count(c) > 0, locale);
  return (
    <Widget id="by-cause" title={t.byCause} note={t.byCauseNote} wide>
      <CauseChart points={points} series={series} rebalanceLabel={t.rebalances} from={f.from} to={f.to} />
      <p className="muted chart-summary">{summary(series.map((s) => ({ label: s.label, n: count(s.key as Cause) })), locale)}</p>
    </Widget>
  );
}

export async function OutcomeWidget({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const points = await outcomesOverTime(await driver(), f);
  const series = OUTCOMES.map((o) => ({ key: o, label: outcomeName(o, locale), color: OUTCOME_COLORS[o] }));
  return (
    <Widget id="outcomes" title={t.outcomes} note={t.outcomesNote}>
      <OutcomeChart points={points} series={series} from={f.from} to={f.to} />
      <p className="muted chart-summary">{summary(series.map((s) => ({ label: s.label, n: points.reduce((sum, p) => sum + p[s.key], 0) })), locale)}</p>
    </Widget>
  );
}

export async function FunnelWidget({ f, locale }: Props) {
  const d = dictionary(locale);
  const stages = await dedupFunnel(await driver(), f);
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
        {summary(
          DEDUP_LAYERS.map((l) => ({ label: d.layers[l], n: stages.find((s) => s.stage === l)?.caught ?? 0 })),
          locale,
        )}
      </p>
    </Widget>
  );
}

function gapLabel(fromMs: number, locale: Locale): string {
  return fromMs === 0 ? "< 1 ms" : `≥ ${formatDuration(fromMs, locale)}`;
}

export async function GapWidget({ f, locale }: Props) {
  const t = dictionary(locale).overview;
  const bins = await gapHistogram(await driver(), f);
  const count = (c: Cause) => bins.reduce((s, b) => s + b[c], 0);
  const series = causeSeries((c) => count(c) > 0, locale);
  const rows = bins.map((b) => ({ label: gapLabel(b.fromMs, locale), band: b.band, ...Object.fromEntries(CAUSES.map((c) => [c, b[c]])) }));
  const bands = (["ms", "seconds", "minutes"] as const).map((band) => ({ band, label: t.bands[band] }));
  return (
    <Widget id="gaps" title={t.gaps} note={t.gapsNote} wide>
      <GapChart rows={rows} series={series} bands={bands} />
      <p className="muted chart-summary">
        {summary(
          bands.map((b) => ({ label: b.label, n: bins.filter((x) => x.band === b.band).reduce((s, x) => s + CAUSES.reduce((n, c) => n + x[c], 0), 0) })),
          locale,
        )}
      </p>
    </Widget>
  );
}

export async function RateWidget({ f, locale, by }: Props & { by: "group" | "topic" }) {
  const t = dictionary(locale).overview;
  const rows = await topByRate(await driver(), f, by);
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
  const leaks = await latestLeaks(await driver(), f);
  return (
    <Widget id="leaks" title={d.overview.latestLeaks} note={d.overview.latestLeaksNote} wide>
      {leaks.length === 0 ? (
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
              {leaks.map((l) => (
                <tr key={`${l.bizKey}-${l.at}`}>
                  <td className="mono">{new Date(l.at).toISOString().slice(0, 19).replace("T", " ")}</td>
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
