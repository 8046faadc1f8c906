import type { AlertMessage } from "./message.ts";

/**
 * Alertmanager's own API (POST /api/v2/alerts), as Prometheus talks to it: each alert is its label set, sent
 * when it starts and again while it fires, with an `endsAt` a few resends ahead so that Alertmanager resolves it
 * by itself if dupscope goes away; a resolved alert is sent once more with `endsAt` at its resolution. Grouping,
 * inhibition, silences and routing are then Alertmanager's.
 */

/** How often firing alerts are sent again, as Prometheus' `--rules.alert.resend-delay` (1 m). */
export const RESEND_MS = 60_000;
/** endsAt of a firing alert: four resends ahead, Prometheus' own margin. */
const VALID_FOR_MS = 4 * RESEND_MS;

/** The v2 API's path under the Alertmanager URL a user gives (http://alertmanager:9093, or with a route prefix). */
export function alertsEndpoint(base: string): string {
  const url = new URL(base);
  if (!url.pathname.endsWith("/api/v2/alerts")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/api/v2/alerts`;
  return url.toString();
}

/** The labels an alert is known by: its rule's name and severity, the rule's labels and the alert's label set. */
export function alertLabels(m: Pick<AlertMessage, "ruleName" | "severity" | "labels">): Record<string, string> {
  return { ...m.labels, alertname: m.ruleName, severity: m.severity };
}

/**
 * What an alert says, by the annotation names Alertmanager's templates and Grafana know (summary, description,
 * runbook_url), plus its worst keys and the links back to dupscope.
 */
export function alertAnnotations(m: AlertMessage): Record<string, string> {
  const annotations: Record<string, string> = { summary: m.summary };
  if (m.description) annotations.description = m.description;
  if (m.runbookUrl) annotations.runbook_url = m.runbookUrl;
  if (m.keys.length > 0) annotations.keys = m.keys.join(" ");
  if (m.groupUrl) annotations.group_url = m.groupUrl;
  if (m.ackUrl) annotations.acknowledge_url = m.ackUrl;
  return annotations;
}

/** One alert as `postableAlert` of Alertmanager's OpenAPI (api/v2/openapi.yaml). */
export function postableAlert(m: AlertMessage, now: number) {
  const annotations = alertAnnotations(m);
  // generatorURL is validated as an absolute URI; without DUPSCOPE_PUBLIC_URL dupscope only knows a path.
  const absolute = /^https?:\/\//.test(m.alertsUrl);
  return {
    labels: alertLabels(m),
    annotations,
    startsAt: m.firedAt.toISOString(),
    endsAt: (m.event === "resolved" && m.resolvedAt ? m.resolvedAt : new Date(now + VALID_FOR_MS)).toISOString(),
    ...(absolute ? { generatorURL: m.alertsUrl } : {}),
  };
}
