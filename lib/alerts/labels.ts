/** An alert's label set: its rule's labels and, for a rule with group_by, the values that split it. */
export type Labels = Record<string, string>;

/**
 * A label set's canonical text, the key of its state within the rule: '' for none, else the pairs sorted by
 * name. A value the data lacks (a verdict without a topic) is left out, as Prometheus drops empty labels.
 */
export function seriesKey(labels: Labels): string {
  const names = Object.keys(labels).sort();
  return names.length === 0 ? "" : JSON.stringify(names.map((n) => [n, labels[n]]));
}

/** `group="pay-consumer", topic="pay"`: how a label set is written beside the rule's name. */
export function labelsText(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((n) => `${n}=${JSON.stringify(labels[n])}`)
    .join(", ");
}
