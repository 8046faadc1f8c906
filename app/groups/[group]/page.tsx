import type { Metadata } from "next";
import { Suspense } from "react";
import { TtlSample } from "@/app/_groups/TtlSample.tsx";
import { CauseWidget, Kpis, OutcomeWidget } from "@/app/_overview/widgets.tsx";
import { FilterBar } from "@/components/FilterBar.tsx";
import { InstanceLanes } from "@/components/groups/InstanceLanes.tsx";
import { RebalanceHistory } from "@/components/groups/RebalanceHistory.tsx";
import { WidgetSkeleton } from "@/components/Widget.tsx";
import { findings } from "@/lib/api/findings-query.ts";
import { pathParam } from "@/lib/format/path-param.ts";
import { instancesOverTime } from "@/lib/groups/membership.ts";
import { rebalanceHistory } from "@/lib/groups/rebalance-history.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { parseFilters, type SearchParams } from "@/lib/queries/filters.ts";
import { ACTIVITY_LIMIT, groupActivity } from "@/lib/queries/groups.ts";
import { filterChoices } from "@/lib/queries/overview.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

/** Keys with findings the page reads at most, newest first. */
const GROUP_PAGE_DIAGNOSES = 2_000;

type Props = { params: Promise<{ group: string }>; searchParams: Promise<SearchParams> };

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  // A bare group name could be anything in a list of tabs: say it is a consumer group.
  const { t } = await requestText((await searchParams).lang);
  return { title: `${pathParam((await params).group)} · ${t.groups.title}` };
}

export default async function GroupPage({ params, searchParams }: Props) {
  const group = pathParam((await params).group);
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const store = await getStore();
  const f = { ...parseFilters(sp, Date.now()), group };
  const [activity, choices, found] = await Promise.all([
    groupActivity(store.driver, group, f),
    filterChoices(store.driver, f),
    // Advice is statistics: the page reads the newest keys' diagnoses, not a busy week's every one (docs/dashboard.md).
    findings(store, { from: f.from, to: f.to, group, lang: locale }, GROUP_PAGE_DIAGNOSES),
  ]);
  const spans = instancesOverTime(activity.events);
  const episodes = rebalanceHistory(activity.events);
  const advice = found.groups.flatMap((g) => g.adviceText);
  const perHour = found.groups.find((g) => g.rebalances.perHour !== null)?.rebalances.perHour ?? null;
  const props = { f, locale };
  return (
    <>
      <h1>
        <span className="muted">{t.groups.group}</span> <span className="mono">{group}</span>
      </h1>
      <FilterBar action={`/groups/${encodeURIComponent(group)}`} f={f} choices={choices} t={t} locale={locale} fixedGroup />
      <Suspense fallback={<div className="kpis skeleton">{t.states.loading}</div>}>
        <Kpis {...props} />
      </Suspense>
      <section aria-labelledby="instances-title">
        <h2 id="instances-title">{t.groups.instances}</h2>
        <p className="muted note">{t.groups.instancesNote}</p>
        {activity.truncated ? (
          <p className="muted note">{t.groups.activityCut(ACTIVITY_LIMIT, new Date(activity.events[0]!.ts).toISOString().slice(0, 19).replace("T", " "))}</p>
        ) : null}
        {spans.length === 0 ? <p className="muted">{t.groups.noInstances}</p> : <InstanceLanes spans={spans} episodes={episodes} from={f.from} to={f.to} t={t} />}
      </section>
      <div className="widgets">
        <Suspense fallback={<WidgetSkeleton id="by-cause" title={t.overview.byCause} label={t.states.loading} />}>
          <CauseWidget {...props} />
        </Suspense>
        <Suspense fallback={<WidgetSkeleton id="outcomes" title={t.overview.outcomes} label={t.states.loading} />}>
          <OutcomeWidget {...props} />
        </Suspense>
        <section className="widget" aria-labelledby="findings-title">
          <h2 id="findings-title">{t.groups.findings}</h2>
          {perHour !== null ? <p className="muted note">{t.groups.perHour(String(perHour))}</p> : null}
          {found.truncated ? <p className="muted note">{t.groups.findingsSample(GROUP_PAGE_DIAGNOSES)}</p> : null}
          {advice.length === 0 ? (
            <p className="muted">{t.groups.noFindings}</p>
          ) : (
            <ul data-testid="advice">
              {advice.map((a, i) => (
                <li key={i}>{a}</li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <section aria-labelledby="history-title">
        <h2 id="history-title">{t.groups.history}</h2>
        <p className="muted note">{t.groups.historyNote}</p>
        {episodes.length === 0 ? <p className="muted">{t.groups.noHistory}</p> : <RebalanceHistory episodes={episodes} t={t} />}
      </section>
      <Suspense fallback={<p className="muted">{t.states.loading}</p>}>
        <TtlSample group={group} locale={locale} />
      </Suspense>
    </>
  );
}
