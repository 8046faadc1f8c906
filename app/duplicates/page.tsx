import type { Metadata } from "next";
import Link from "next/link";
import { DataTable, type Column } from "@/components/DataTable.tsx";
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
  const columns: Column<(typeof page.items)[number]>[] = [
    // Date and time may take two lines, so a narrow box keeps its room for the cause and the instances.
    { id: "time", header: c.when, mono: true, wrap: "text", cell: (d) => formatTime(d.secondTs) },
    { id: "key", data: true, header: c.key, mono: true, cell: (d) => <Link href={`/keys/${encodeURIComponent(d.bizKey)}`}>{d.bizKey}</Link> },
    { id: "group", data: true, header: c.group, cell: (d) => d.group },
    {
      id: "cause",
      header: c.cause,
      wrap: "text",
      cell: (d) => (
        <>
          <span className="swatch" style={{ background: CAUSE_COLORS[d.cause as Cause] ?? CAUSE_COLORS.unknown }} aria-hidden="true" />
          {causeName(d.cause as Cause, locale)}
        </>
      ),
    },
    {
      id: "outcome",
      header: c.outcome,
      wrap: "text",
      cell: (d) => (
        <>
          <span className={`outcome ${d.outcome}`}>{outcomeName(d.outcome as Outcome, locale)}</span>
          {d.layer ? ` (${t.layers[d.layer as keyof typeof t.layers] ?? d.layer})` : d.defect ? ` (${defectName(d.defect as Defect, locale)})` : ""}
        </>
      ),
    },
    {
      id: "gap",
      header: c.gap,
      num: true,
      wrap: "text",
      cell: (d) => (
        <>
          {formatDuration(d.gapMs, locale)}
          {d.clockSkewMs > 0 ? <span className="muted clock-skew"> ({describeClockSkew(d.clockSkewMs, { locale })})</span> : null}
        </>
      ),
    },
    {
      id: "instances",
      data: true,
      header: c.instances,
      mono: true,
      wrap: "id",
      // One instance and its arrow to a line.
      minWidth: "18ch",
      title: (d) => `${d.firstInstance ?? "?"} → ${d.secondInstance ?? "?"}`,
      cell: (d) => `${d.firstInstance ?? "?"} → ${d.secondInstance ?? "?"}`,
    },
    { id: "msgId", data: true, header: c.msgId, mono: true, wrap: "id", minWidth: "12ch", priority: 2, title: (d) => d.msgId ?? undefined, cell: (d) => d.msgId },
  ];
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
        <DataTable columns={columns} rows={page.items} rowKey={(d) => `${d.bizKey}-${d.secondTs}-${d.group}`} more={t.table.more} testId="duplicates" />
      )}
      <nav className="pager" aria-label={t.duplicates.title}>
        {cursor ? <Link href={`/duplicates${withParams({})}`}>{t.duplicates.first}</Link> : null}
        {page.nextCursor ? <Link href={`/duplicates${withParams({ cursor: page.nextCursor })}`}>{t.duplicates.next}</Link> : null}
      </nav>
    </>
  );
}
