"use client";

import { useState, type FormEvent } from "react";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

/**
 * The form behind a notification's acknowledge link. Opening the link changes nothing (chat apps fetch links to
 * preview them); the person confirms with their name here.
 */
export function SignedAckForm({ token, what, locale }: { token: string; what: string; locale: Locale }) {
  const d = dictionary(locale).alerts;
  const t = d.ackForm;
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const by = String(form.get("by") ?? "");
    setBusy(true);
    const problem = await callApi("POST", "/api/v1/alerts/acks/signed", { token, by, comment: String(form.get("comment") ?? "") });
    setBusy(false);
    setError(problem);
    if (!problem) setDone(by);
  }

  if (done !== null) return <p role="status">{d.ackPage.done(done)}</p>;
  return (
    <form className="alerts-form" aria-label={t.label(what)} onSubmit={submit}>
      <label>
        {t.by} <input name="by" required maxLength={120} />
      </label>
      <label>
        {t.comment} <input name="comment" maxLength={2000} />
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {t.submit}
        </button>
        {error ? (
          <span role="alert" className="alerts-error">
            {t.notAcked(error)}
          </span>
        ) : null}
      </div>
    </form>
  );
}
