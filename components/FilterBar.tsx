import type { ReactNode } from "react";
import { CAUSES } from "@/lib/diagnosis/vocabulary.ts";
import { causeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import { formatTime } from "@/lib/format/time.ts";
import { RANGE_PRESETS, type Filters, type RangeKey } from "@/lib/queries/filters.ts";

/**
 * The filters as a plain GET form: they land in the URL (shareable, back-button friendly) and work without
 * JavaScript. The custom from/to apply when the range is "custom".
 */
export function FilterBar({
  action,
  f,
  choices,
  t,
  locale,
  extra,
  fixedGroup = false,
  byCause = true,
}: {
  action: string;
  f: Filters;
  choices: { groups: string[]; topics: string[] };
  t: Dictionary;
  locale: Locale;
  extra?: ReactNode;
  fixedGroup?: boolean;
  /** False on a list of keys, which have no cause (only their duplicates do). */
  byCause?: boolean;
}) {
  const ranges: RangeKey[] = [...(Object.keys(RANGE_PRESETS) as RangeKey[]), "custom"];
  // Text, not datetime-local: Chromium draws that in its own language, order and clock ("12/07/2026, 09:30 PM" on
  // a Chinese page), unlike every other time on the page.
  const timeInput = {
    type: "text",
    pattern: "\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}",
    placeholder: t.filters.timeFormat,
    title: t.filters.timeFormat,
    spellCheck: false,
    autoComplete: "off",
    size: 16,
  } as const;
  return (
    <form className="filters" method="get" action={action} aria-label={t.filters.legend}>
      <div className="field">
        <label htmlFor="f-range">{t.filters.range}</label>
        <select id="f-range" name="range" defaultValue={f.range}>
          {ranges.map((r) => (
            <option key={r} value={r}>
              {t.filters.ranges[r]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-from">{t.filters.from}</label>
        <input id="f-from" name="from" {...timeInput} defaultValue={formatTime(f.from, { precision: "min" })} />
      </div>
      <div className="field">
        <label htmlFor="f-to">{t.filters.to}</label>
        <input id="f-to" name="to" {...timeInput} defaultValue={formatTime(f.to, { precision: "min" })} />
      </div>
      {fixedGroup ? null : (
        <div className="field">
          <label htmlFor="f-group">{t.filters.group}</label>
          <select id="f-group" name="group" defaultValue={f.group ?? ""}>
            <option value="">{t.filters.allGroups}</option>
            {choices.groups.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor="f-topic">{t.filters.topic}</label>
        <select id="f-topic" name="topic" defaultValue={f.topic ?? ""}>
          <option value="">{t.filters.allTopics}</option>
          {choices.topics.map((topic) => (
            <option key={topic} value={topic}>
              {topic}
            </option>
          ))}
        </select>
      </div>
      {byCause ? (
        <div className="field">
          <label htmlFor="f-cause">{t.filters.cause}</label>
          <select id="f-cause" name="cause" defaultValue={f.cause ?? ""}>
            <option value="">{t.filters.allCauses}</option>
            {CAUSES.map((c) => (
              <option key={c} value={c}>
                {causeName(c, locale)}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {extra}
      <div className="field actions">
        <button type="submit">{t.filters.apply}</button>
        <a href={action}>{t.filters.reset}</a>
      </div>
    </form>
  );
}
