import { formatMatchers } from "@/lib/alerts/matchers-text.ts";
import type { SilenceView } from "@/lib/alerts/silences.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { DeleteButton } from "./DeleteButton.tsx";

const when = (iso: string) => formatTime(Date.parse(iso), { precision: "min" });

/** Silences in force and to come, then the ended ones: who muted what, why, and for how long. */
export function SilencesTable({ silences, locale }: { silences: SilenceView[]; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts.silencesTable;
  if (silences.length === 0) return <p className="muted">{t.empty}</p>;
  const matchersOf = (s: SilenceView) => formatMatchers(s.matchers).split("\n").join(", ");
  const columns: Column<SilenceView>[] = [
    { id: "state", header: t.cols.state, cell: (s) => <span className={`alerts-state alerts-silence-${s.state}`}>{t.states[s.state]}</span> },
    { id: "matchers", header: t.cols.matchers, mono: true, wrap: "id", minWidth: "16ch", maxWidth: "32rem", cell: (s) => matchersOf(s) },
    { id: "starts", header: t.cols.starts, mono: true, priority: 2, cell: (s) => when(s.startsAt) },
    { id: "ends", header: t.cols.ends, mono: true, cell: (s) => when(s.endsAt) },
    { id: "by", header: t.cols.by, cell: (s) => s.createdBy },
    { id: "comment", header: t.cols.comment, wrap: "text", maxWidth: "32rem", cell: (s) => s.comment },
    {
      id: "actions",
      header: null,
      cell: (s) =>
        s.state === "expired" ? null : (
          <DeleteButton
            url={`/api/v1/alerts/silences/${encodeURIComponent(s.id)}`}
            question={t.confirmExpire}
            locale={locale}
            action="expire"
            ariaLabel={`${t.expire} ${matchersOf(s)}`}
          />
        ),
    },
  ];
  return <DataTable columns={columns} rows={silences} rowKey={(s) => s.id} rowAttributes={(s) => ({ "data-silence": matchersOf(s) })} more={d.table.more} label={t.label} />;
}
