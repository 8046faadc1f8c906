"use client";

import { useLocale } from "@/components/LocaleContext.tsx";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/** Shown while a page's data loads (its widgets then stream in one by one). */
export default function Loading() {
  return (
    <p role="status" aria-live="polite" className="muted">
      {dictionary(useLocale()).states.loading}
    </p>
  );
}
