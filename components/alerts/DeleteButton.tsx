"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

export function DeleteButton({ url, question, locale }: { url: string; question: string; locale: Locale }) {
  const t = dictionary(locale).alerts;
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        className="alerts-button danger"
        disabled={busy}
        onClick={async () => {
          if (!window.confirm(question)) return;
          setBusy(true);
          const problem = await callApi("DELETE", url);
          setBusy(false);
          setError(problem);
          if (!problem) router.refresh();
        }}
      >
        {t.delete}
      </button>
      {error ? (
        <span role="alert" className="alerts-error">
          {t.notDeleted(error)}
        </span>
      ) : null}
    </>
  );
}
