"use client";

import { useLocale } from "@/components/LocaleContext.tsx";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/** A page that failed: say so, offer a retry; the detail is in the server log (and digest), not on screen. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = dictionary(useLocale()).states;
  return (
    <section role="alert">
      <h1>{t.error}</h1>
      <p>{t.errorBody}</p>
      {error.digest ? <p className="muted mono">digest {error.digest}</p> : null}
      <button type="button" onClick={reset}>
        {t.retry}
      </button>
    </section>
  );
}
