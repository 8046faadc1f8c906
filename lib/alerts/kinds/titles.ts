import type { Locale } from "../../i18n/locale.ts";

/**
 * The kinds' titles, as the form offers them, apart from their schemas: the dictionaries reach every page's browser
 * code, and zod must not come with them (it probes for eval when it builds a schema, which the pages' CSP reports).
 */
export const KIND_TITLES = {
  leaked_duplicates: { en: "Leaked duplicates > N", "zh-CN": "泄漏的重复消费 > N" },
  duplicate_rate: { en: "Duplicates per 100 keys > X %", "zh-CN": "每 100 个业务键的重复消费 > X %" },
  cause_count: { en: "Duplicates of one cause > N", "zh-CN": "某一原因的重复消费 > N" },
  rebalances: { en: "Rebalances of a group > N", "zh-CN": "消费组的重平衡次数 > N" },
  dedup_miss_rate: { en: "Dedup layer miss rate > X %", "zh-CN": "防重层漏拦率 > X %" },
  ingest_silent: { en: "Source silent for longer than T", "zh-CN": "数据源静默超过 T" },
} satisfies Record<string, Record<Locale, string>>;

/** The kinds by name, as the modules (and their conditions' `kind`) name them; each module takes its title here. */
export type TitledKind = keyof typeof KIND_TITLES;

export function kindTitles(locale: Locale): Record<TitledKind, string> {
  return Object.fromEntries(Object.entries(KIND_TITLES).map(([kind, title]) => [kind, title[locale]])) as Record<TitledKind, string>;
}
