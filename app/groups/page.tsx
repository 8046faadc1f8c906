import type { Metadata } from "next";
import Link from "next/link";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { FilterBar } from "@/components/FilterBar.tsx";
import { requestText } from "@/lib/i18n/request.ts";
import { filterQuery, parseFilters, type SearchParams } from "@/lib/queries/filters.ts";
import { getStore } from "@/lib/store/index.ts";
import { filterChoices, keptResolution } from "@/lib/views/filters.ts";
import { groupList } from "@/lib/views/groups.ts";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<SearchParams> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.groups.title };
}

export default async function GroupsPage({ searchParams }: Props) {
  const sp = await searchParams;
  const { locale, t } = await requestText(sp.lang);
  const { driver } = await getStore();
  const f = await keptResolution(driver, { ...parseFilters(sp, Date.now()), group: null });
  const [groups, choices] = await Promise.all([groupList(driver, f), filterChoices(driver, f)]);
  const fmt = (n: number) => n.toLocaleString(locale);
  const keep = filterQuery(f, { group: null });
  const columns: Column<(typeof groups)[number]>[] = [
    { id: "group", header: t.groups.group, wrap: "id", title: (g) => g.group, cell: (g) => <Link href={`/groups/${encodeURIComponent(g.group)}${keep}`}>{g.group}</Link> },
    { id: "keys", header: t.groups.keys, num: true, cell: (g) => fmt(g.keys) },
    { id: "rate", header: t.groups.rate, num: true, cell: (g) => `${(g.rate * 100).toFixed(1)}%` },
    { id: "duplicates", header: t.groups.duplicates, num: true, cell: (g) => fmt(g.duplicates) },
    { id: "leaked", header: t.groups.leaked, num: true, cell: (g) => fmt(g.leaked) },
    { id: "rebalances", header: t.groups.rebalances, num: true, cell: (g) => fmt(g.rebalances) },
  ];
  return (
    <>
      <h1>{t.groups.title}</h1>
      <p className="muted">{t.groups.intro}</p>
      <FilterBar action="/groups" f={f} choices={choices} t={t} locale={locale} fixedGroup />
      {groups.length === 0 ? (
        <p role="status">{t.groups.none}</p>
      ) : (
        <DataTable columns={columns} rows={groups} rowKey={(g) => g.group} testId="groups" />
      )}
    </>
  );
}
