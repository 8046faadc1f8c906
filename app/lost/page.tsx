import type { Metadata } from "next";
import Link from "next/link";
import { DataTable, type Column } from "@/components/DataTable.tsx";
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
  // When, which key and how many are what the list is read for; the topics follow from the groups.
  const columns: Column<(typeof page.items)[number]>[] = [
    { id: "time", header: c.when, mono: true, wrap: "text", cell: (k) => formatTime(k.lastTs) },
    { id: "key", data: true, header: c.key, mono: true, cell: (k) => <Link href={`/keys/${encodeURIComponent(k.bizKey)}`}>{k.bizKey}</Link> },
    { id: "lost", header: c.lost, num: true, cell: (k) => k.lost.toLocaleString(locale) },
    { id: "groups", data: true, header: c.groups, wrap: "text", cell: (k) => k.groups.join(", ") },
    { id: "topics", data: true, header: c.topics, wrap: "text", priority: 2, cell: (k) => k.topics.join(", ") },
  ];
  return (
    <>
      <h1>{t.lost.title}</h1>
      <p className="muted">{t.lost.intro}</p>
      <FilterBar action="/lost" f={f} choices={choices} t={t} locale={locale} byCause={false} />
      {page.items.length === 0 ? (
        <p role="status">{t.lost.none}</p>
      ) : (
        <DataTable columns={columns} rows={page.items} rowKey={(k) => k.bizKey} more={t.table.more} testId="lost" />
      )}
      <nav className="pager" aria-label={t.lost.title}>
        {cursor ? <Link href={`/lost${base}`}>{t.duplicates.first}</Link> : null}
        {page.nextCursor ? <Link href={next(page.nextCursor)}>{t.duplicates.next}</Link> : null}
      </nav>
    </>
  );
}
