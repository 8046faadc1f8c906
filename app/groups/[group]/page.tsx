import type { Metadata } from "next";
import { Suspense } from "react";
import { CauseWidget, Kpis, OutcomeWidget } from "@/components/overview/OverviewWidgets.tsx";
import { FilterBar } from "@/components/FilterBar.tsx";
import { GroupIncidents } from "@/components/groups/GroupIncidents.tsx";
import { InstanceLanes } from "@/components/groups/InstanceLanes.tsx";
import { MemberLanes } from "@/components/groups/MemberLanes.tsx";
import { RebalanceHistory } from "@/components/groups/RebalanceHistory.tsx";
import { WidgetSkeleton } from "@/components/Widget.tsx";
import { pathParam } from "@/lib/format/path-param.ts";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { historyPage, pageOfEpisode } from "@/lib/groups/rebalance-history.ts";
import { filterQuery, parseFilters, type SearchParams } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { filterChoices, keptResolution } from "@/lib/views/filters.ts";
import { ACTIVITY_LIMIT, GROUP_PAGE_DIAGNOSES, groupPage } from "@/lib/views/groups.ts";
import { TtlSample } from "./TtlSample.tsx";

export const dynamic = "force-dynamic";


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
  const { driver } = await getStore();
  const f = await keptResolution(driver, { ...parseFilters(sp, Date.now()), group });
  // Advice is statistics: the page reads the newest keys' diagnoses, not a busy week's every one (docs/dashboard.md).
  const [{ spans, members, episodes, activityCut, advice, incidents, rebalancesPerHour: perHour, findingsSampled }, choices] = await Promise.all([
    groupPage(driver, group, f, locale),
    filterChoices(driver, f),
  ]);
  const props = { f, locale };
  const history = historyPage(episodes, Number(Array.isArray(sp.history) ? sp.history[0] : (sp.history ?? 1)));
  const historyHref = (page: number, anchor = "history-title") => {
    const params = new URLSearchParams(filterQuery(f, { group: null }).slice(1));
    if (page > 1) params.set("history", String(page));
    return `/groups/${encodeURIComponent(group)}${params.size > 0 ? `?${params}` : ""}#${anchor}`;
  };
  const allLanes = (Array.isArray(sp.lanes) ? sp.lanes[0] : sp.lanes) === "all";
  const lanesHref = (anchor: string) => {
    const params = new URLSearchParams(filterQuery(f, { group: null }).slice(1));
    if (history.page > 1) params.set("history", String(history.page));
    params.set("lanes", "all");
    return `/groups/${encodeURIComponent(group)}?${params}#${anchor}`;
  };
  // The same page's anchor when the episode is listed on it, so following a mark does not reload the page.
  const episodeHref = (start: number) => {
    const page = pageOfEpisode(episodes, start);
    return page === history.page ? `#episode-${start}` : historyHref(page, `episode-${start}`);
  };
  return (
    <>
      <h1>
        <span className="muted">{t.groups.group}</span> <span className="mono" translate="no">
          {group}
        </span>
      </h1>
      <FilterBar action={`/groups/${encodeURIComponent(group)}`} f={f} choices={choices} t={t} locale={locale} fixedGroup />
      <Suspense fallback={<div className="kpis skeleton">{t.states.loading}</div>}>
        <Kpis {...props} />
      </Suspense>
      <section aria-labelledby="instances-title">
        <h2 id="instances-title">{t.groups.instances}</h2>
        <p className="muted note">{t.groups.instancesNote}</p>
        {activityCut ? (
          <p className="muted note">{t.groups.activityCut(ACTIVITY_LIMIT, formatTime(activityCut.firstTs, { precision: "s" }))}</p>
        ) : null}
        {spans.length === 0 ? <p className="muted">{t.groups.noInstances}</p> : (
          <InstanceLanes spans={spans} episodes={episodes} episodeHref={episodeHref} from={f.from} to={f.to} t={t} all={{ href: lanesHref("instances-title"), drawn: allLanes }} />
        )}
      </section>
      <section aria-labelledby="members-title">
        <h2 id="members-title">{t.groups.members}</h2>
        <p className="muted note">{t.groups.membersNote}</p>
        {members.length === 0 ? <p className="muted">{t.groups.noMembers}</p> : (
          <MemberLanes lanes={members} from={f.from} to={f.to} t={t} all={{ href: lanesHref("members-title"), drawn: allLanes }} />
        )}
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
          {findingsSampled ? <p className="muted note">{t.groups.findingsSample(GROUP_PAGE_DIAGNOSES)}</p> : null}
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
      <section aria-labelledby="incidents-title">
        <h2 id="incidents-title">{t.groups.incidents}</h2>
        <p className="muted note">{t.groups.incidentsNote}</p>
        {incidents.length === 0 ? <p className="muted">{t.groups.noIncidents}</p> : <GroupIncidents incidents={incidents} t={t} locale={locale} />}
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title">{t.groups.history}</h2>
        <p className="muted note">{t.groups.historyNote}</p>
        {episodes.length === 0 ? <p className="muted">{t.groups.noHistory}</p> : <RebalanceHistory history={history} pageHref={historyHref} t={t} />}
      </section>
      <Suspense fallback={<p className="muted">{t.states.loading}</p>}>
        <TtlSample group={group} locale={locale} />
      </Suspense>
    </>
  );
}
