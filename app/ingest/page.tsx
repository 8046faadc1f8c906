import type { Metadata } from "next";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { getStore } from "@/lib/store/index.ts";
import { sourceFile, unrecognisedLines, type UnrecognisedSourceRow } from "@/lib/views/unrecognised.ts";

export const dynamic = "force-dynamic";

type Shape = UnrecognisedSourceRow["shapes"][number];

type Props = { searchParams: Promise<{ lang?: string | string[] }> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.ingest.title };
}

/** What the collectors skipped but looked relevant, per source: the misses a user would otherwise never see. */
export default async function IngestPage({ searchParams }: Props) {
  const { locale, t } = await requestText((await searchParams).lang);
  const { driver } = await getStore();
  const { total, sources } = await unrecognisedLines(driver);
  const fmt = (n: number) => n.toLocaleString(locale);
  // A shape is a whole log line with its values masked: it wraps between words rather than widen the card.
  const columns: Column<Shape>[] = [
    { id: "shape", header: t.ingest.shape, wrap: "text", cell: (shape) => <code className="shape">{shape.shape}</code> },
    { id: "anchor", header: t.ingest.anchor, cell: (shape) => shape.anchor },
    { id: "lines", header: t.ingest.lines, num: true, cell: (shape) => fmt(shape.count) },
    { id: "lastSeen", header: t.ingest.lastSeen, mono: true, wrap: "text", cell: (shape) => formatTime(shape.lastSeen, { precision: "s" }) },
  ];
  return (
    <>
      <h1>{t.ingest.title}</h1>
      <p className="muted">{t.ingest.intro}</p>
      {sources.length === 0 ? (
        <p role="status">{t.ingest.none}</p>
      ) : (
        <>
          <p role="status">{t.ingest.total(total, sources.length)}</p>
          {sources.map((s) => {
            const file = sourceFile(s.source, s.format);
            return (
              <section key={s.source} className="card" data-testid="unrecognised-source" aria-label={s.source}>
                <h2 className="source-name">{s.source}</h2>
                <dl className="facts">
                  <dt>{t.ingest.format}</dt>
                  <dd>{s.format}</dd>
                  <dt>{t.ingest.lines}</dt>
                  <dd>{fmt(s.count)}</dd>
                  <dt>{t.ingest.lastSeen}</dt>
                  <dd>{formatTime(s.lastSeen, { precision: "s", zone: true })}</dd>
                  {s.groups.length > 0 && (
                    <>
                      <dt>{t.ingest.groups}</dt>
                      <dd>{s.groups.join(", ")}</dd>
                    </>
                  )}
                </dl>
                <DataTable columns={columns} rows={s.shapes} rowKey={(shape) => shape.shape} testId="unrecognised-shapes" />
                <p className="muted">
                  {file === null ? t.ingest.explainHttp : t.ingest.explain}{" "}
                  <code>
                    npx dupscope explain --format {s.format} {file ?? "<file>"}
                  </code>
                  {s.shapes[0] ? ` (${t.ingest.line(s.shapes[0].lastLine)})` : ""}
                </p>
              </section>
            );
          })}
          <p className="muted">{t.ingest.patterns}</p>
        </>
      )}
    </>
  );
}
