import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { EventTable } from "@/components/EventTable.tsx";
import { Timeline } from "@/components/timeline/Timeline.tsx";
import type { KeyReport } from "@/lib/views/key-report.ts";
import { defectName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { pathParam } from "@/lib/format/path-param.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import { verdictHeadline } from "@/lib/i18n/headline.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { contextAnchor } from "@/lib/views/context-rows.ts";
import { keyPage } from "@/lib/views/key-page.ts";
import { keysWithPrefix } from "@/lib/views/search.ts";
import { getStore } from "@/lib/store/index.ts";
import { RedisMarkers } from "./RedisMarkers.tsx";
import { Literal } from "@/components/Literal.tsx";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ bizKey: string }>; searchParams: Promise<{ lang?: string; via?: string; q?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: pathParam((await params).bizKey) };
}

const uniq = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))];

function Verdicts({ report, t, locale }: { report: KeyReport; t: Dictionary; locale: Locale }) {
  if (report.duplicates.length === 0 && report.lost.length === 0) {
    return (
      <p className="headline" data-testid="verdict-headline">
        {t.key.noDuplicate}
        {report.normalRetries.length > 0 ? ` ${t.key.normalRetries(report.normalRetries.length)}` : ""}
      </p>
    );
  }
  return (
    <>
      {report.duplicates.map((v) => (
        <article key={v.deliveries.join("-")} className={`verdict ${v.outcome}`} data-cause={v.cause} data-outcome={v.outcome} data-group={v.group ?? undefined}>
          <h3 className="verdict-pair" data-testid="verdict-pair">
            {v.pair}
          </h3>
          <p className="headline" data-testid="verdict-headline">
            {verdictHeadline(v, locale).map((s, i) => (s.strong ? <strong key={i}>{s.text}</strong> : <span key={i}><Literal text={s.text} /></span>))}
          </p>
          <p className="muted verdict-summary">
            <Literal text={v.summary} />
          </p>
        </article>
      ))}
      {report.lost.map((l) => (
        <article key={l.deliveries.join("-")} className="verdict lost">
          <p className="headline" data-testid="verdict-headline">
            <strong>{t.key.lost}</strong>
            {l.defect ? ` (${defectName(l.defect, locale)})` : ""}: {t.key.lostTail}.
          </p>
          <ul>
            {l.evidence.map((e, i) => (
              <li key={i}>
                <Literal text={e.text} />
              </li>
            ))}
          </ul>
        </article>
      ))}
    </>
  );
}

/** A partial key (an order number's first digits) names no events: the keys that start with it, whole, as links. */
async function PrefixMatches({ prefix, t }: { prefix: string; t: Dictionary }) {
  const { keys, more } = await keysWithPrefix((await getStore()).driver, prefix);
  if (keys.length === 0) return null;
  return (
    <section aria-labelledby="prefix-title" data-testid="prefix-matches">
      <h2 id="prefix-title">{t.key.startingWith(prefix)}</h2>
      <ul className="keys-list">
        {keys.map((k) => (
          <li key={k}>
            <Link href={`/keys/${encodeURIComponent(k)}`} className="mono" translate="no">
              {k}
            </Link>
          </li>
        ))}
      </ul>
      {more ? <p className="muted note">{t.key.startingWithMore(keys.length)}</p> : null}
    </section>
  );
}

export default async function KeyPage({ params, searchParams }: Props) {
  const key = pathParam((await params).bizKey);
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const data = await keyPage((await getStore()).driver, key, locale);
  const title = (
    <h1>
      <span className="muted">{t.key.label}</span>{" "}
      <span className="mono" translate="no">
        {key}
      </span>
    </h1>
  );
  if (!data) {
    return (
      <>
        {title}
        <p role="status">{t.key.notFound(key)}</p>
        <PrefixMatches prefix={key} t={t} />
      </>
    );
  }
  const { report, timeline, context, contextWindows } = data;
  // Advice given for every group of the key needs no group named; advice for some of them says which.
  const adviceGroups = new Set(report.findings.map((f) => f.group));
  const advice = report.advice.map((a) => (a.groups.length === adviceGroups.size ? a.text : a.text + t.key.adviceFor(a.groups.map((g) => g ?? "?").join(", "))));
  const day = (ts: number) => formatTime(ts, { precision: "min" }).slice(0, 10);
  const windows = contextWindows.map((w) => `${formatTime(w.from, { precision: "s" })} – ${formatTime(w.to, { precision: "s", date: day(w.from) === day(w.to) ? "none" : "full" })}`).join(", ");
  const facts = {
    bizKey: key,
    msgIds: uniq(report.events.map((e) => e.msgId)),
    groups: uniq(report.deliveries.map((d) => d.group)),
    topics: uniq(report.events.map((e) => e.topic)),
  };
  return (
    <>
      {title}
      {sp.via && sp.q ? <p className="muted">{t.key.foundVia(sp.via, sp.q)}</p> : null}
      {report.expired ? (
        <p role="note" className="notice" data-testid="raw-events-expired">
          {t.key.rawEventsExpired(
            report.expired.rawEventsFrom === null ? null : formatTime(Date.parse(report.expired.rawEventsFrom), { precision: "min" }),
            formatTime(Date.parse(report.expired.diagnosedAt), { precision: "min" }),
            report.events.length,
          )}
        </p>
      ) : null}
      <section aria-labelledby="verdicts">
        <h2 id="verdicts" className="visually-hidden">
          {t.key.verdict}
        </h2>
        <Verdicts report={report} t={t} locale={locale} />
      </section>
      {timeline.lanes.length > 0 ? (
        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title">{t.key.timeline}</h2>
          <p className="muted note">
            {t.key.timelineNote(formatTime(timeline.start))}
            {timeline.lanes.some((l) => l.role === "table") ? ` ${t.key.timelineRows}` : null}
          </p>
          <Timeline data={timeline} t={t} locale={locale} />
        </section>
      ) : null}
      {report.duplicates.length > 0 ? (
        <section aria-labelledby="evidence-title">
          <h2 id="evidence-title">{t.key.evidence}</h2>
          {report.duplicates.map((v) => (
            <div key={v.deliveries.join("-")} className="evidence">
              {report.duplicates.length > 1 ? <h3 data-testid="evidence-pair">{v.pair}</h3> : null}
              <ul>
                {v.evidence.map((e, i) => (
                  <li key={i} data-role={e.role}>
                    <span className="role-tag">{t.key.roles[e.role]}</span> <Literal text={e.text} />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      ) : null}
      {report.membership.some((m) => m.members.length > 0) ? (
        <section aria-labelledby="membership-title" data-testid="membership">
          <h2 id="membership-title">{t.key.membership}</h2>
          <p className="muted note">{t.key.membershipNote}</p>
          <ul>
            {report.membership.map((m) => (
              <li key={m.delivery} data-delivery={m.delivery}>
                <span className="mono">{t.key.membershipLine(m.group, formatTime(m.at), m.members.length)}</span>
                {m.members.length === 0 ? ` — ${t.key.membershipNone}` : t.key.membershipList}
                {m.members.map((member, i) => (
                  <span key={member.member} className={member.collision ? "member-collision" : undefined} data-collision={member.collision || undefined}>
                    {i > 0 ? ", " : ""}
                    <span className="mono" translate="no">
                      {member.member}
                    </span>
                    {member.model !== null ? ` (${member.model})` : ""}
                    {member.collision ? ` ⚠ ${t.key.membershipShared}` : ""}
                  </span>
                ))}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {report.missing.length > 0 ? (
        <section aria-labelledby="missing-title">
          <h2 id="missing-title">{t.key.missing}</h2>
          <ul>
            {report.missing.map((m, i) => (
              <li key={i}>
                <Literal text={m.text} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {advice.length > 0 ? (
        <section aria-labelledby="advice-title">
          <h2 id="advice-title">{t.key.advice}</h2>
          <ul>
            {advice.map((a, i) => (
              <li key={i}>
                <Literal text={a} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <Suspense fallback={<p className="muted">{t.states.loading}</p>}>
        <RedisMarkers facts={facts} locale={locale} />
      </Suspense>
      <h2>{t.key.events}</h2>
      <p className="muted">{t.key.eventsCount(report.events.length)}</p>
      <EventTable events={report.events} recordLabel={t.key.showRecord} words={t.eventsTable} more={t.table.more} locale={locale} />
      <h2>{t.key.context}</h2>
      {report.context.length === 0 ? (
        <p className="muted">{t.key.contextNone}</p>
      ) : (
        <>
          <p className="muted">{t.key.contextCount(report.context.length, report.contextTruncated, windows)}</p>
          {context.shown.length < context.total ? (
            <p className="muted">
              {t.key.contextShown(context.shown.length, context.total)}{" "}
              <a href={`/api/v1/keys/${encodeURIComponent(key)}?context=all`}>{t.key.contextAll}</a>
            </p>
          ) : null}
          <EventTable
            events={context.shown}
            recordLabel={t.key.showRecord}
            words={t.eventsTable}
            more={t.table.more}
            locale={locale}
            testId="context"
            anchors={(e) => contextAnchor(e.ts, report.events)}
          />
        </>
      )}
    </>
  );
}
