import type { AlertStateName } from "@/lib/alerts/state-machine.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";

/**
 * A rule's or an alert's state as a coloured word; the colour is decoration, the word carries the meaning. A
 * silenced or acknowledged alert is told apart from one nobody has answered: its own word and look, its state
 * still named.
 */
export function StateBadge({ state, locale, handled }: { state: AlertStateName | "disabled"; locale: Locale; handled?: "silenced" | "acknowledged" | undefined }) {
  const t = dictionary(locale).alerts;
  const word = t.states[state];
  if (handled) return <span className={`alerts-state alerts-state-${handled}`}>{t.handled[handled](word)}</span>;
  return <span className={`alerts-state alerts-state-${state}`}>{word}</span>;
}
