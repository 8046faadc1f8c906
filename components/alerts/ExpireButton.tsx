"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

/** Ends a silence now; it stays in the table as expired. */
export function ExpireButton({ id, label, locale }: { id: string; label: string; locale: Locale }) {
  const t = dictionary(locale).alerts.silencesTable;
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        className="alerts-button danger"
        aria-label={label}
        disabled={busy}
        onClick={async () => {
          if (!window.confirm(t.confirmExpire)) return;
          setBusy(true);
          const problem = await callApi("DELETE", `/api/v1/alerts/silences/${encodeURIComponent(id)}`);
          setBusy(false);
          setError(problem);
          if (!problem) router.refresh();
        }}
      >
        {t.expire}
      </button>
      {error ? (
        <span role="alert" className="alerts-error">
          {t.notExpired(error)}
        </span>
      ) : null}
    </>
  );
}
