import type { Metadata } from "next";
import { EventTable } from "@/components/EventTable.tsx";
import { keyReport } from "@/lib/api/key-report.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ bizKey: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).bizKey };
}

export default async function KeyPage({ params }: Props) {
  const key = (await params).bizKey;
  const report = await keyReport((await getStore()).driver, key);
  if (!report) {
    return (
      <>
        <h1>
          <span className="muted">key</span> <span className="mono">{key}</span>
        </h1>
        <p role="status">
          No events for <code>{key}</code>. Keys are case-sensitive; check that its consumer logs and traces were ingested.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>
        <span className="muted">key</span> <span className="mono">{key}</span>
      </h1>
      <section aria-labelledby="verdicts">
        <h2 id="verdicts">Verdict</h2>
        {report.duplicates.length === 0 && report.lost.length === 0 ? (
          <p>No duplicate: every delivery of this key is accounted for{report.normalRetries.length > 0 ? ` (${report.normalRetries.length} normal retry after a clean failure)` : ""}.</p>
        ) : null}
        {report.duplicates.map((v) => (
          <article key={v.deliveries.join("-")} className="verdict">
            <p className="verdict-summary">{v.summary}</p>
            <ul>
              {v.evidence.map((e, i) => (
                <li key={i}>{e.text}</li>
              ))}
            </ul>
          </article>
        ))}
        {report.lost.map((l) => (
          <article key={l.deliveries.join("-")} className="verdict lost">
            <p className="verdict-summary">Lost message{l.defect ? ` (${l.defect})` : ""}: the business never ran.</p>
            <ul>
              {l.evidence.map((e, i) => (
                <li key={i}>{e.text}</li>
              ))}
            </ul>
          </article>
        ))}
        {report.missing.length > 0 ? (
          <>
            <h3>Missing data</h3>
            <ul>
              {report.missing.map((m, i) => (
                <li key={i}>{m.text}</li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <h2>Events</h2>
      <p className="muted">{report.events.length} events, oldest first.</p>
      <EventTable events={report.events} />
      <h2>Around them</h2>
      {report.context.length === 0 ? (
        <p className="muted">No rebalance or lifecycle events of these consumer groups and hosts around this key&apos;s events.</p>
      ) : (
        <>
          <p className="muted">
            {report.context.length} rebalance, lifecycle and keyless events of the same groups and hosts from 2 minutes before to 3 minutes after
            {report.contextTruncated ? " (the first ones only: the window is crowded)" : ""}.
          </p>
          <EventTable events={report.context} />
        </>
      )}
    </>
  );
}
