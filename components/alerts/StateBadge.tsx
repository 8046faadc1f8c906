import type { AlertStateName } from "@/lib/alerts/state-machine.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/** A rule's state as a coloured word; the colour is decoration, the word carries the meaning. */
export function StateBadge({ state, locale }: { state: AlertStateName | "disabled"; locale: Locale }) {
  return <span className={`alerts-state alerts-state-${state}`}>{dictionary(locale).alerts.states[state]}</span>;
}
