import type { Metadata } from "next";
import { EventTable } from "@/components/EventTable.tsx";
import { contextForKey, eventsForKey } from "@/lib/store/events-repo.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ bizKey: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).bizKey };
}

export default async function KeyPage({ params }: Props) {
  const key = (await params).bizKey;
  const store = await getStore();
  const events = await eventsForKey(store, key);
  const { context, truncated } = await contextForKey(store, events);
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
          <h2>Around them</h2>
          {context.length === 0 ? (
            <p className="muted">No rebalance or lifecycle events of these consumer groups within 5 minutes of this key&apos;s events.</p>
          ) : (
            <>
              <p className="muted">
                {context.length} rebalance, lifecycle and keyless events of the same groups and messages within 5 minutes
                {truncated ? " (the first ones only: the window is crowded)" : ""}.
              </p>
              <EventTable events={context} />
            </>
          )}
        </>
      )}
    </>
  );
}
