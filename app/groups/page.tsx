import type { Metadata } from "next";
import Link from "next/link";
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
  return (
    <>
      <h1>{t.groups.title}</h1>
      <p className="muted">{t.groups.intro}</p>
      <FilterBar action="/groups" f={f} choices={choices} t={t} locale={locale} fixedGroup />
      {groups.length === 0 ? (
        <p role="status">{t.groups.none}</p>
      ) : (
        <div className="table-wrap">
          <table className="data" data-testid="groups">
            <thead>
              <tr>
                <th scope="col">{t.groups.group}</th>
                <th scope="col" className="num">
                  {t.groups.keys}
                </th>
                <th scope="col" className="num">
                  {t.groups.rate}
                </th>
                <th scope="col" className="num">
                  {t.groups.duplicates}
                </th>
                <th scope="col" className="num">
                  {t.groups.leaked}
                </th>
                <th scope="col" className="num">
                  {t.groups.rebalances}
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.group}>
                  <td>
                    <Link href={`/groups/${encodeURIComponent(g.group)}${keep}`}>{g.group}</Link>
                  </td>
                  <td className="num">{fmt(g.keys)}</td>
                  <td className="num">{(g.rate * 100).toFixed(1)}%</td>
                  <td className="num">{fmt(g.duplicates)}</td>
                  <td className="num">{fmt(g.leaked)}</td>
                  <td className="num">{fmt(g.rebalances)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
