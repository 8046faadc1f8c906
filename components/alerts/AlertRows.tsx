"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import type { Labels } from "@/lib/alerts/labels.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

export interface AckTarget {
  ruleId: string;
  labels: Labels;
  acked: boolean;
}

/**
 * One alert's row with its actions: silence, and acknowledge (a small form: who and why) or withdraw the
 * acknowledgement it has. The form opens in a row of its own under the alert, spanning the table: squeezed into
 * the actions cell it ran over the silence link.
 */
export function AlertRows({ what, cells, silence, ack, columns, locale }: { what: string; cells: ReactNode; silence: ReactNode; ack: AckTarget | null; columns: number; locale: Locale }) {
  const d = dictionary(locale).alerts;
  const t = d.ackForm;
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function send(method: "POST" | "DELETE", body: unknown) {
    setBusy(true);
    const problem = await callApi(method, "/api/v1/alerts/acks", body);
    setBusy(false);
    setError(problem);
    if (problem) return;
    setOpen(false);
    router.refresh();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (ack === null) return;
    const form = new FormData(event.currentTarget);
    const hours = Number(form.get("hours") || 0);
    await send("POST", {
      ruleId: ack.ruleId,
      labels: ack.labels,
      by: String(form.get("by") ?? ""),
      comment: String(form.get("comment") ?? ""),
      ...(hours > 0 ? { minutes: Math.max(1, Math.round(hours * 60)) } : {}),
    });
  }

  const failure = error ? (
    <span role="alert" className="alerts-error">
      {t.notAcked(error)}
    </span>
  ) : null;
  let control: ReactNode = null;
  if (ack?.acked) {
    control = (
      <>
        <button type="button" className="alerts-button quiet" disabled={busy} onClick={() => send("DELETE", { ruleId: ack.ruleId, labels: ack.labels })}>
          {d.alertsTable.withdraw}
        </button>
        {failure}
      </>
    );
  } else if (ack) {
    control = (
      <button type="button" className="alerts-button quiet" aria-expanded={open} onClick={() => setOpen(!open)}>
        {d.alertsTable.acknowledge}
      </button>
    );
  }
  return (
    <>
      <tr data-alert={what}>
        {cells}
        <td className="alerts-actions">
          {silence} {control}
        </td>
      </tr>
      {open && ack && !ack.acked ? (
        <tr className="alerts-ack-row" data-ack-for={what}>
          <td colSpan={columns}>
            <form className="alerts-inline" aria-label={t.label(what)} onSubmit={submit}>
              <label>
                {t.by} <input name="by" required maxLength={120} autoFocus />
              </label>
              <label>
                {t.comment} <input name="comment" maxLength={2000} />
              </label>
              <label>
                {t.hours} <input name="hours" type="number" min={0} step="any" />
              </label>
              <button type="submit" className="alerts-button" disabled={busy}>
                {t.submit}
              </button>
              <button type="button" className="alerts-button quiet" onClick={() => setOpen(false)}>
                {t.cancel}
              </button>
              {failure}
            </form>
          </td>
        </tr>
      ) : null}
    </>
  );
}
