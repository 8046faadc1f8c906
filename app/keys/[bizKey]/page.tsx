import type { Metadata } from "next";
import { EventTable } from "@/components/EventTable.tsx";
import { eventsForKey } from "@/lib/store/events-repo.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ bizKey: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).bizKey };
}

export default async function KeyPage({ params }: Props) {
  const key = (await params).bizKey;
  const events = await eventsForKey(await getStore(), key);
  return (
    <>
      <h1>
        <span className="muted">key</span> <span className="mono">{key}</span>
      </h1>
      {events.length === 0 ? (
        <p role="status">
          No events for <code>{key}</code>. Keys are case-sensitive; check that its consumer logs and traces were ingested.
        </p>
      ) : (
        <>
          <p className="muted">{events.length} events, oldest first.</p>
          <EventTable events={events} />
        </>
      )}
    </>
  );
}
