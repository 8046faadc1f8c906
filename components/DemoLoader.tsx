"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { DemoJob } from "@/lib/demo/job.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";

interface Status {
  job: DemoJob;
  diagnosisQueue: number;
}

/**
 * The empty store's offer: one button that asks the server to load the simulated day, then follows its progress
 * (polling the status endpoint) and shows the dashboard once the diagnosis caught up.
 */
export function DemoLoader({ locale, tokenRequired }: { locale: Locale; tokenRequired: boolean }) {
  const t = dictionary(locale).empty;
  const router = useRouter();
  const [token, setToken] = useState("");
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = status !== null && (status.job.state === "loading" || (status.job.state === "done" && status.diagnosisQueue > 0));

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(async () => {
      const response = await fetch("/api/v1/demo", { cache: "no-store" }).catch(() => null);
      if (!response?.ok) return;
      const next = (await response.json()) as Status;
      setStatus(next);
      if (next.job.state === "done" && next.diagnosisQueue === 0) router.refresh();
      if (next.job.state === "failed") setError(t.demoFailed(next.job.error));
    }, 1000);
    return () => clearInterval(timer);
  }, [running, router, t]);

  async function start() {
    setError(null);
    const response = await fetch("/api/v1/demo", { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {} }).catch((e: unknown) => e as Error);
    if (response instanceof Error) return setError(t.demoFailed(response.message));
    const body = (await response.json().catch(() => ({}))) as Status & { error?: { message: string } };
    if (!response.ok) return setError(t.demoFailed(body.error?.message ?? String(response.status)));
    setStatus(body);
  }

  const job = status?.job;
  const message =
    job?.state === "loading"
      ? job.progress
        ? t.demoRunning(job.progress.run, job.progress.runs, job.progress.accepted.toLocaleString(locale))
        : t.demoStarting
      : job?.state === "done"
        ? status!.diagnosisQueue > 0
          ? t.demoDiagnosing(status!.diagnosisQueue.toLocaleString(locale))
          : t.demoDone
        : null;
  return (
    <div className="demo-loader">
      {tokenRequired ? (
        <div className="field">
          <label htmlFor="demo-token">{t.token}</label>
          <input id="demo-token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
        </div>
      ) : null}
      <button type="button" onClick={start} disabled={running}>
        {t.demoButton}
      </button>
      <p role="status" aria-live="polite" className="muted">
        {message}
      </p>
      {error ? (
        <p role="alert" className="error-text">
          {error}
        </p>
      ) : null}
    </div>
  );
}
