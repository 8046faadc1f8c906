import type { Metadata } from "next";
import Link from "next/link";
import { FilterBar } from "@/components/FilterBar.tsx";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { filterQuery, parseFilters, type SearchParams } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { filterChoices } from "@/lib/views/filters.ts";
import { lostPage } from "@/lib/views/lost.ts";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<SearchParams> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.lost.title };
}

const PAGE = 50;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/** The keys behind the overview's "lost messages", under the same range, group and topic. */
export default async function LostPage({ searchParams }: Props) {
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const store = await getStore();
  // Keys have no cause: a cause carried over from the overview would narrow nothing, so it is dropped.
  const f = { ...parseFilters(sp, Date.now()), cause: null };
  const cursor = one(sp.cursor);
  const [page, choices] = await Promise.all([lostPage(store.driver, f, PAGE, cursor), filterChoices(store.driver, f)]);
  const base = filterQuery(f);
  const next = (c: string) => {
    const params = new URLSearchParams(base.slice(1));
    params.set("cursor", c);
    return `/lost?${params}`;
  };
  const c = t.lost.cols;
  return (
    <>
      <h1>{t.lost.title}</h1>
      <p className="muted">{t.lost.intro}</p>
      <FilterBar action="/lost" f={f} choices={choices} t={t} locale={locale} byCause={false} />
      {page.items.length === 0 ? (
        <p role="status">{t.lost.none}</p>
      ) : (
        <div className="table-wrap">
          <table className="data" data-testid="lost">
            <thead>
              <tr>
                <th scope="col">{c.when}</th>
                <th scope="col">{c.key}</th>
                <th scope="col" className="num">
                  {c.lost}
                </th>
                <th scope="col">{c.groups}</th>
                <th scope="col">{c.topics}</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((k) => (
                <tr key={k.bizKey}>
                  <td className="mono">{formatTime(k.lastTs)}</td>
                  <td className="mono">
                    <Link href={`/keys/${encodeURIComponent(k.bizKey)}`}>{k.bizKey}</Link>
                  </td>
                  <td className="num">{k.lost.toLocaleString(locale)}</td>
                  <td>{k.groups.join(", ")}</td>
                  <td>{k.topics.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label={t.lost.title}>
        {cursor ? <Link href={`/lost${base}`}>{t.duplicates.first}</Link> : null}
        {page.nextCursor ? <Link href={next(page.nextCursor)}>{t.duplicates.next}</Link> : null}
      </nav>
    </>
  );
}
