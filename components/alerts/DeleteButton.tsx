"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

interface Props {
  url: string;
  question: string;
  locale: Locale;
  /** What the DELETE does, for the button's word and its failure message: delete (default), or end a silence. */
  action?: "delete" | "expire";
  /** What the button acts on, when its word alone does not say (a table of many rows). */
  ariaLabel?: string;
}

/** A DELETE to the alerts API after the person confirms; the page refreshes when it went through. */
export function DeleteButton({ url, question, locale, action = "delete", ariaLabel }: Props) {
  const t = dictionary(locale).alerts;
  // Words are looked up here, not passed in: a server component cannot hand a function to a client one.
  const { label, failed } = action === "expire" ? { label: t.silencesTable.expire, failed: t.silencesTable.notExpired } : { label: t.delete, failed: t.notDeleted };
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        className="alerts-button danger"
        disabled={busy}
        {...(ariaLabel ? { "aria-label": ariaLabel } : {})}
        onClick={async () => {
          if (!window.confirm(question)) return;
          setBusy(true);
          const problem = await callApi("DELETE", url);
          setBusy(false);
          setError(problem);
          if (!problem) router.refresh();
        }}
      >
        {label}
      </button>
      {error ? (
        <span role="alert" className="alerts-error">
          {failed(error)}
        </span>
      ) : null}
    </>
  );
}
