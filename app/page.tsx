import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { CauseWidget, FunnelWidget, GapWidget, Kpis, LeaksWidget, OutcomeWidget, RateWidget } from "@/components/overview/OverviewWidgets.tsx";
import { DemoLoader } from "@/components/DemoLoader.tsx";
import { FilterBar } from "@/components/FilterBar.tsx";
import { LiveFeed } from "@/components/LiveFeed.tsx";
import { SearchBox } from "@/components/SearchBox.tsx";
import { WidgetSkeleton } from "@/components/Widget.tsx";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { atKeptResolution, filterQuery, parseFilters, type Filters, type SearchParams } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { filterChoices } from "@/lib/views/filters.ts";
import { rankOrder, storeState } from "@/lib/views/overview.ts";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<SearchParams> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  // The root layout's title template does not apply to its own segment's page.
  return { title: { absolute: `${(await requestText((await searchParams).lang)).t.overview.title} · dupscope` } };
}

const DAY = 24 * 3_600_000;

function liveQuery(f: Filters): string {
  const params = new URLSearchParams();
  for (const name of ["group", "topic", "cause"] as const) if (f[name]) params.set(name, f[name]);
  return params.size > 0 ? `?${params}` : "";
}

export default async function OverviewPage({ searchParams }: Props) {
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const { driver } = await getStore();
  const state = await storeState(driver);
  if (!state.hasEvents) {
    return (
      <>
        <h1>{t.overview.heading}</h1>
        <section className="empty" aria-labelledby="empty-title">
          <h2 id="empty-title">{t.empty.title}</h2>
          <p>{t.empty.body}</p>
          <p className="muted">{t.empty.ingest}</p>
        </section>
        <section className="empty" aria-labelledby="demo-title">
          <h2 id="demo-title">{t.empty.demoTitle}</h2>
          <p>{t.empty.demoBody}</p>
          <DemoLoader locale={locale} tokenRequired={Boolean(process.env.DUPSCOPE_INGEST_TOKEN)} />
          <p className="muted">
            <code>npm run demo</code> — {t.empty.demoCli}
          </p>
        </section>
      </>
    );
  }

  const f = atKeptResolution(parseFilters(sp, Date.now()), state.rawEventsFrom);
  const choices = await filterChoices(driver, f);
  const skeleton = (id: string, title: string) => <WidgetSkeleton id={id} title={title} label={t.states.loading} />;
  const props = { f, locale };
  return (
    <>
      <h1>{t.overview.heading}</h1>
      <p className="muted">{t.overview.intro}</p>
      <SearchBox id="q-home" label={t.search.label} placeholder={t.search.placeholder} button={t.search.button} landmark={false} />
      <FilterBar action="/" f={f} choices={choices} t={t} locale={locale} />
      <p className="muted range">{t.filters.showing(formatTime(f.from, { precision: "min" }), formatTime(f.to, { precision: "min" }))}</p>
      {state.newestDuplicate !== null && state.newestDuplicate < f.from ? (
        <p role="status" className="notice">
          {t.overview.noDuplicates} {t.overview.newestIs(formatTime(state.newestDuplicate, { precision: "min" }))}{" "}
          <Link href={`/${filterQuery(f, { range: "custom", from: state.newestDuplicate - DAY, to: state.newestDuplicate + 60_000 })}`}>{t.overview.showNewest}</Link>
        </p>
      ) : null}
      {state.oldestKeyLastTs !== null && (state.rawEventsFrom === null || state.oldestKeyLastTs < state.rawEventsFrom) && f.from < (state.rawEventsFrom ?? f.to) ? (
        <p role="note" className="notice" data-testid="raw-events-expired">
          {t.overview.rawEventsExpired(state.rawEventsFrom === null ? null : formatTime(state.rawEventsFrom, { precision: "min" }))}
        </p>
      ) : null}
      <Suspense fallback={<div className="kpis skeleton">{t.states.loading}</div>}>
        <Kpis {...props} />
      </Suspense>
      <LiveFeed locale={locale} query={liveQuery(f)} />
      <div className="widgets">
        <Suspense fallback={skeleton("by-cause", t.overview.byCause)}>
          <CauseWidget {...props} />
        </Suspense>
        <Suspense fallback={skeleton("outcomes", t.overview.outcomes)}>
          <OutcomeWidget {...props} />
        </Suspense>
        <Suspense fallback={skeleton("funnel", t.overview.funnel)}>
          <FunnelWidget {...props} />
        </Suspense>
        <Suspense fallback={skeleton("gaps", t.overview.gaps)}>
          <GapWidget {...props} />
        </Suspense>
        <Suspense fallback={skeleton("top-group", t.overview.topGroups)}>
          <RateWidget {...props} by="group" order={rankOrder(sp.groupsBy)} />
        </Suspense>
        <Suspense fallback={skeleton("top-topic", t.overview.topTopics)}>
          <RateWidget {...props} by="topic" order={rankOrder(sp.topicsBy)} />
        </Suspense>
        <Suspense fallback={skeleton("leaks", t.overview.latestLeaks)}>
          <LeaksWidget {...props} />
        </Suspense>
      </div>
    </>
  );
}
