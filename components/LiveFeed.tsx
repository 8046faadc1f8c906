"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { causeName, outcomeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { Cause, Outcome } from "@/lib/diagnosis/vocabulary.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import type { LiveDuplicate } from "@/lib/views/live.ts";

/** How often the charts may be re-rendered while the worker keeps reporting. */
const REFRESH_EVERY_MS = 15_000;
const KEEP = 8;

/**
 * New duplicates as they are diagnosed (server-sent events from /api/v1/live), newest on top, announced to screen
 * readers; the page's charts are refreshed at most every 15 s while verdicts keep coming.
 */
export function LiveFeed({ locale, query = "" }: { locale: Locale; query?: string }) {
  const t = dictionary(locale);
  const router = useRouter();
  const [items, setItems] = useState<LiveDuplicate[]>([]);
  const [connected, setConnected] = useState(false);
  const [announce, setAnnounce] = useState("");
  const lastRefresh = useRef(Date.now());

  useEffect(() => {
    const source = new EventSource(`/api/v1/live${query}`);
    source.addEventListener("ready", () => setConnected(true));
    source.addEventListener("error", () => setConnected(false));
    source.addEventListener("duplicates", (e) => {
      const fresh = JSON.parse((e as MessageEvent<string>).data) as LiveDuplicate[];
      setItems((old) => [...fresh, ...old.filter((o) => !fresh.some((f) => f.id === o.id))].slice(0, KEEP));
      setAnnounce(t.live.newDuplicates(fresh.length));
    });
    source.addEventListener("diagnosed", () => {
      if (Date.now() - lastRefresh.current < REFRESH_EVERY_MS) return;
      lastRefresh.current = Date.now();
      router.refresh();
    });
    return () => source.close();
  }, [query, router, t]);

  return (
    <section className="live" aria-label={t.live.label}>
      <p className="muted live-state">
        <span className={connected ? "dot on" : "dot"} aria-hidden="true" /> {connected ? t.live.connected : t.live.reconnecting}
      </p>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announce}
      </p>
      {items.length > 0 ? (
        <ul className="live-list" data-testid="live-duplicates">
          {items.map((d) => (
            <li key={d.id}>
              <span className="mono">{formatTime(d.at, { precision: "s", date: "none" })}</span> <Link href={`/keys/${encodeURIComponent(d.bizKey)}`}>{d.bizKey}</Link> {d.group} ·{" "}
              {causeName(d.cause as Cause, locale)} · <span className={`outcome ${d.outcome}`}>{outcomeName(d.outcome as Outcome, locale)}</span> · {formatDuration(d.gapMs, locale)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
