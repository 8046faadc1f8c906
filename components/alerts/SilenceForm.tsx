"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { parseMatchers } from "@/lib/alerts/matchers-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

/** A new silence; `matchers` comes filled in when the person came from an alert's "Silence" link. */
export function SilenceForm({ matchers, locale }: { matchers?: string; locale: Locale }) {
  const t = dictionary(locale).alerts.silenceForm;
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const parsed = parseMatchers(String(form.get("matchers") ?? ""));
    if ("problem" in parsed) return setError(parsed.problem);
    setBusy(true);
    const problem = await callApi("POST", "/api/v1/alerts/silences", {
      matchers: parsed.matchers,
      durationMinutes: Math.round(Number(form.get("hours") || 0) * 60),
      createdBy: String(form.get("by") ?? ""),
      comment: String(form.get("comment") ?? ""),
    });
    setBusy(false);
    setError(problem);
    if (problem) return;
    element.reset();
    // Leave the prefilled URL, so a reload does not offer the same silence again.
    router.push("/alerts#silences");
    router.refresh();
  }

  return (
    <form className="alerts-form" aria-label={t.label} onSubmit={submit}>
      {matchers ? <p className="alerts-hint">{t.prefilled}</p> : null}
      <label>
        {t.matchers} <textarea name="matchers" rows={3} required defaultValue={matchers ?? ""} className="mono" />
      </label>
      <label>
        {t.hours} <input name="hours" type="number" min={0.1} step="any" required defaultValue={2} />
      </label>
      <label>
        {t.by} <input name="by" required maxLength={120} />
      </label>
      <label>
        {t.comment} <input name="comment" required maxLength={2000} />
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {t.create}
        </button>
        {error ? (
          <span role="alert" className="alerts-error">
            {t.notCreated(error)}
          </span>
        ) : null}
      </div>
    </form>
  );
}
