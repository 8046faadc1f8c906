import { formatMatchers } from "@/lib/alerts/matchers-text.ts";
import type { SilenceView } from "@/lib/alerts/silences.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DeleteButton } from "./DeleteButton.tsx";

const when = (iso: string) => formatTime(Date.parse(iso), { precision: "min" });

/** Silences in force and to come, then the ended ones: who muted what, why, and for how long. */
export function SilencesTable({ silences, locale }: { silences: SilenceView[]; locale: Locale }) {
  const t = dictionary(locale).alerts.silencesTable;
  if (silences.length === 0) return <p className="muted">{t.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label={t.label}>
        <thead>
          <tr>
            <th>{t.cols.state}</th>
            <th>{t.cols.matchers}</th>
            <th>{t.cols.starts}</th>
            <th>{t.cols.ends}</th>
            <th>{t.cols.by}</th>
            <th>{t.cols.comment}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {silences.map((s) => {
            const matchers = formatMatchers(s.matchers).split("\n").join(", ");
            return (
              <tr key={s.id} data-silence={matchers}>
                <td>
                  <span className={`alerts-state alerts-silence-${s.state}`}>{t.states[s.state]}</span>
                </td>
                <td className="mono alerts-wrap">{matchers}</td>
                <td className="mono">{when(s.startsAt)}</td>
                <td className="mono">{when(s.endsAt)}</td>
                <td>{s.createdBy}</td>
                <td className="alerts-wrap">{s.comment}</td>
                <td className="alerts-actions">{s.state === "expired" ? null : (
                    <DeleteButton
                      url={`/api/v1/alerts/silences/${encodeURIComponent(s.id)}`}
                      question={t.confirmExpire}
                      locale={locale}
                      action="expire"
                      ariaLabel={`${t.expire} ${matchers}`}
                    />
                  )}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
