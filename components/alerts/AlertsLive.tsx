"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/**
 * Keeps the alerts page current: the live stream (/api/v1/live) says when an evaluation moved an alert, and the
 * page is rendered again from the server. Forms keep what was typed: a refresh re-renders, it does not remount.
 */
export function AlertsLive({ locale }: { locale: Locale }) {
  const t = dictionary(locale).alerts.live;
  const router = useRouter();
  const [connected, setConnected] = useState(false);
  const [announce, setAnnounce] = useState("");

  useEffect(() => {
    const source = new EventSource("/api/v1/live");
    source.addEventListener("ready", () => setConnected(true));
    source.addEventListener("error", () => setConnected(false));
    source.addEventListener("alerts", () => {
      setAnnounce(t.changed);
      router.refresh();
    });
    return () => source.close();
  }, [router, t]);

  return (
    <p className="muted live-state" data-testid="alerts-live">
      <span className={connected ? "dot on" : "dot"} aria-hidden="true" /> {connected ? t.connected : t.reconnecting}
      <span className="visually-hidden" role="status" aria-live="polite">
        {announce}
      </span>
    </p>
  );
}
