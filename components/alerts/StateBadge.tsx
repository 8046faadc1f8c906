/** A rule's state as a coloured word; the colour is decoration, the word carries the meaning. */
export function StateBadge({ state }: { state: string }) {
  return <span className={`alerts-state alerts-state-${state}`}>{state}</span>;
}
