import type { Labels } from "./labels.ts";

/**
 * A rule's annotation templates (summary, description, runbook URL) in the subset of Prometheus' template syntax
 * that means the same in both places: `{{ $labels.<name> }}`, `{{ $value }}`, and dupscope's own `{{ $keys }}`
 * (the alert's worst keys). The rules exported for Prometheus keep the first two as they are.
 */

const PLACEHOLDER = /\{\{\s*(\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)|\$value|\$keys)\s*\}\}/g;
const ANY_PLACEHOLDER = /\{\{[^}]*\}\}/g;

export interface TemplateData {
  labels: Labels;
  value: number;
  keys: readonly string[];
}

/** The placeholders a template uses that are none of the three: what a rule may not be saved with. */
export function unknownPlaceholders(template: string): string[] {
  return (template.match(ANY_PLACEHOLDER) ?? []).filter((p) => p.replace(PLACEHOLDER, "") !== "");
}

const valueText = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** A label the alert lacks reads as empty, as in Prometheus. */
export function renderTemplate(template: string, data: TemplateData): string {
  return template.replace(PLACEHOLDER, (_, what: string, label: string | undefined) => {
    if (label !== undefined) return data.labels[label] ?? "";
    return what === "$value" ? valueText(data.value) : data.keys.join(" ");
  });
}

/** For Prometheus, which has no keys: `{{ $keys }}` becomes a pointer to dupscope. */
export function prometheusTemplate(template: string): string {
  return template.replace(/\{\{\s*\$keys\s*\}\}/g, "(the keys are on dupscope's alerts page)");
}
