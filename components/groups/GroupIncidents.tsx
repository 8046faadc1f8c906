import Link from "next/link";
import type { Episode } from "@/lib/diagnosis/episodes.ts";
import { formatTime } from "@/lib/format/time.ts";
import { causeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { Locale } from "@/lib/i18n/locale.ts";

const utc = (ts: number) => formatTime(ts, { precision: "s" });
const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/**
 * Group-wide incidents, newest first: when, which cause, how many keys on which queues and offsets, who asked for
 * the reset, and the keys themselves (each a link to its key page); the newest is open.
 */
export function GroupIncidents({ incidents, t, locale }: { incidents: Episode[]; t: Dictionary; locale: Locale }) {
  return (
    <ol className="history">
      {incidents.map((e, i) => {
        const resetTo = typeof e.values.resetTo === "number" ? utc(e.values.resetTo) : null;
        return (
          <li key={e.eventId} data-testid="group-incident">
            <details open={i === 0}>
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
              <p className="keys-list">
                {e.sampleKeys.map((k, j) => (
                  <span key={k}>
                    {j > 0 ? " " : null}
                    <Link href={`/keys/${encodeURIComponent(k)}`} className="mono">
                      {k}
                    </Link>
                  </span>
                ))}
              </p>
            </details>
          </li>
        );
      })}
    </ol>
  );
}
