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
  /** The button's word and its failure message; default "Delete" and "Not deleted: …". */
  words?: { label: string; failed: (why: string) => string };
  /** What the button acts on, when its word alone does not say (a table of many rows). */
  ariaLabel?: string;
}

/** A DELETE to the alerts API after the person confirms; the page refreshes when it went through. */
export function DeleteButton({ url, question, locale, words, ariaLabel }: Props) {
  const t = dictionary(locale).alerts;
  const { label, failed } = words ?? { label: t.delete, failed: t.notDeleted };
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
