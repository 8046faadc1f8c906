import Link from "next/link";
import { SearchBox } from "@/components/SearchBox.tsx";
import { formatTs } from "@/lib/format/time.ts";
import { getStore } from "@/lib/store/index.ts";
import { storeOverview } from "@/lib/store/overview.ts";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const store = await getStore();
  const overview = await storeOverview(store);
  return (
    <>
      <h1>Why was it consumed twice?</h1>
      <p className="muted">Look up a business key (order id, payment id…) to see every event dupscope holds for it, in time order.</p>
      <SearchBox autoFocus />
      <p className="muted">
        {overview.events.toLocaleString("en-US")} events stored ({store.config.mode === "embedded" ? "embedded store" : "PostgreSQL"}).
      </p>
      {overview.recentKeys.length === 0 ? (
        <p>
          No events yet. Post normalized events to <code>/api/v1/events</code> (see the README and <code>docs/event-model.md</code>).
        </p>
      ) : (
        <>
          <h2>Recent keys</h2>
          <ul>
            {overview.recentKeys.map((k) => (
              <li key={k.bizKey}>
                <Link href={`/keys/${encodeURIComponent(k.bizKey)}`}>{k.bizKey}</Link> <span className="muted">last event {formatTs(k.lastTs, "ms")} UTC</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
