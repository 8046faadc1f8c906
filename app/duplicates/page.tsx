import type { Metadata } from "next";
import Link from "next/link";
import { FilterBar } from "@/components/FilterBar.tsx";
import { CAUSE_COLORS } from "@/components/charts/palette.ts";
import { causeName, defectName, describeClockSkew, outcomeName } from "@/lib/i18n/diagnosis-text.ts";
import { OUTCOMES, type Cause, type Defect, type Outcome } from "@/lib/diagnosis/vocabulary.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { filterQuery, parseFilters, type SearchParams } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { duplicatesPage } from "@/lib/views/duplicates.ts";
import { filterChoices } from "@/lib/views/filters.ts";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<SearchParams> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.duplicates.title };
}

const PAGE = 50;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function DuplicatesPage({ searchParams }: Props) {
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const store = await getStore();
  const f = parseFilters(sp, Date.now());
  const outcomeParam = one(sp.outcome);
  const outcome = (OUTCOMES as readonly string[]).includes(outcomeParam ?? "") ? (outcomeParam as Outcome) : undefined;
  const cursorParam = one(sp.cursor);
  const cursor = cursorParam && /^\d+:.+$/.test(cursorParam) ? cursorParam : undefined;
  const query = {
    from: f.from,
    to: f.to,
    ...(f.group ? { group: f.group } : {}),
    ...(f.topic ? { topic: f.topic } : {}),
    ...(f.cause ? { cause: f.cause } : {}),
    ...(outcome ? { outcome } : {}),
  };
  const [page, choices] = await Promise.all([duplicatesPage(store.driver, { ...query, limit: PAGE, ...(cursor ? { cursor } : {}) }), filterChoices(store.driver, f)]);
  const base = filterQuery(f);
  const withParams = (extra: Record<string, string>) => {
    const params = new URLSearchParams(base.slice(1));
    if (outcome) params.set("outcome", outcome);
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return `?${params}`;
  };
  const csv = `/api/v1/duplicates.csv?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;
  const c = t.duplicates.cols;
  return (
    <>
      <h1>{t.duplicates.title}</h1>
      <p className="muted">{t.duplicates.intro}</p>
      <FilterBar
        action="/duplicates"
        f={f}
        choices={choices}
        t={t}
        locale={locale}
        extra={
          <div className="field">
            <label htmlFor="f-outcome">{t.duplicates.outcome}</label>
            <select id="f-outcome" name="outcome" defaultValue={outcome ?? ""}>
              <option value="">{t.duplicates.allOutcomes}</option>
              {OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {outcomeName(o, locale)}
                </option>
              ))}
            </select>
          </div>
        }
      />
      <p className="pager">
        <a href={csv} download>
          {t.duplicates.csv}
        </a>
      </p>
      {page.items.length === 0 ? (
        <p role="status">{t.duplicates.none}</p>
      ) : (
        <div className="table-wrap">
          <table className="data" data-testid="duplicates">
            <thead>
              <tr>
                <th scope="col">{c.when}</th>
                <th scope="col">{c.key}</th>
                <th scope="col">{c.group}</th>
                <th scope="col">{c.cause}</th>
                <th scope="col">{c.outcome}</th>
                <th scope="col" className="num">
                  {c.gap}
                </th>
                <th scope="col">{c.instances}</th>
                <th scope="col">{c.msgId}</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((d) => (
                <tr key={`${d.bizKey}-${d.secondTs}-${d.group}`}>
                  <td className="mono">{formatTime(d.secondTs)}</td>
                  <td className="mono" translate="no">
                    <Link href={`/keys/${encodeURIComponent(d.bizKey)}`}>{d.bizKey}</Link>
                  </td>
                  <td translate="no">{d.group}</td>
                  <td>
                    <span className="swatch" style={{ background: CAUSE_COLORS[d.cause as Cause] ?? CAUSE_COLORS.unknown }} aria-hidden="true" />
                    {causeName(d.cause as Cause, locale)}
                  </td>
                  <td>
                    <span className={`outcome ${d.outcome}`}>{outcomeName(d.outcome as Outcome, locale)}</span>
                    {d.layer ? ` (${t.layers[d.layer as keyof typeof t.layers] ?? d.layer})` : d.defect ? ` (${defectName(d.defect as Defect, locale)})` : ""}
                  </td>
                  <td className="num">
                    {formatDuration(d.gapMs, locale)}
                    {d.clockSkewMs > 0 ? <span className="muted clock-skew"> ({describeClockSkew(d.clockSkewMs, { locale })})</span> : null}
                  </td>
                  <td className="mono" translate="no">
                    {d.firstInstance ?? "?"} → {d.secondInstance ?? "?"}
                  </td>
                  <td className="mono" translate="no">
                    {d.msgId}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label={t.duplicates.title}>
        {cursor ? <Link href={`/duplicates${withParams({})}`}>{t.duplicates.first}</Link> : null}
        {page.nextCursor ? <Link href={`/duplicates${withParams({ cursor: page.nextCursor })}`}>{t.duplicates.next}</Link> : null}
      </nav>
    </>
  );
}
