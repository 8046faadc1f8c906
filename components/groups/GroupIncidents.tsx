import Link from "next/link";
import type { Episode } from "@/lib/diagnosis/episodes.ts";
import { formatTime } from "@/lib/format/time.ts";
import { causeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { Locale } from "@/lib/i18n/locale.ts";

const utc = (ts: number) => formatTime(ts, { precision: "s" });
const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** Incidents listed before the earlier ones fold into one disclosure: a storm of resets would run for pages. */
const SHOWN_INCIDENTS = 5;

function Incident({ e, open, t, locale }: { e: Episode; open: boolean; t: Dictionary; locale: Locale }) {
  const resetTo = typeof e.values.resetTo === "number" ? utc(e.values.resetTo) : null;
  return (
    <li data-testid="group-incident">
      <details open={open}>
        <summary>
          <span className="mono">{utc(e.ts)} UTC</span> · {t.groups.incidentSummary(causeName(e.cause, locale), e.keys, e.queues.length)}
        </summary>
        {e.cause === "offset_rollback" ? <p>{t.groups.resetDetail(resetTo, text(e.values.by))}</p> : null}
        {e.cause === "shared_client_id" ? <p>{t.groups.sharedDetail(text(e.values.clientId) ?? "?", Array.isArray(e.values.remotes) ? e.values.remotes.join(", ") : "?")}</p> : null}
        {e.queues.length > 0 ? (
          <ul className="moves">
            {e.queues.map((q) => (
              <li key={q.queue} className="mono">
                {t.groups.offsetRange(q.queue, q.fromOffset, q.toOffset, q.keys)}
              </li>
            ))}
          </ul>
        ) : null}
        <p className="muted note">{t.groups.incidentKeys(e.sampleKeys.length, e.keys)}</p>
        <ul className="keys-list">
          {e.sampleKeys.map((k) => (
            <li key={k}>
              <Link href={`/keys/${encodeURIComponent(k)}`} className="mono" translate="no">
                {k}
              </Link>
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}

/**
 * Group-wide incidents, newest first: when, which cause, how many keys on which queues and offsets, who asked for
 * the reset, and the keys themselves (each a link to its key page, never broken across lines); the newest is open
 * and the earlier ones past the first few fold away.
 */
export function GroupIncidents({ incidents, t, locale }: { incidents: Episode[]; t: Dictionary; locale: Locale }) {
  const rest = incidents.slice(SHOWN_INCIDENTS);
  return (
    <>
      <ol className="history">
        {incidents.slice(0, SHOWN_INCIDENTS).map((e, i) => (
          <Incident key={e.eventId} e={e} open={i === 0} t={t} locale={locale} />
        ))}
      </ol>
      {rest.length > 0 ? (
        <details className="more-incidents">
          <summary>{t.groups.moreIncidents(rest.length)}</summary>
          <ol className="history" start={SHOWN_INCIDENTS + 1}>
            {rest.map((e) => (
              <Incident key={e.eventId} e={e} open={false} t={t} locale={locale} />
            ))}
          </ol>
        </details>
      ) : null}
    </>
  );
}
