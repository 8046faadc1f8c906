import { formatTime } from "../../format/time.ts";

/** What one notification says, whatever the channel: built from the stored firing and its rule at send time. */
export interface AlertMessage {
  /** Why it is sent: the alert started firing, is still firing (repeat interval), or resolved. */
  event: "firing" | "repeat" | "resolved";
  ruleId: string;
  ruleName: string;
  severity: string;
  labels: Record<string, string>;
  description: string | null;
  /** The condition and the value that breached it, in words. */
  summary: string;
  value: number;
  firingId: string;
  firedAt: Date;
  resolvedAt: Date | null;
  keys: string[];
  /** Absolute when DUPSCOPE_PUBLIC_URL is set, else paths on the dupscope server. */
  alertsUrl: string;
  keyUrl: (bizKey: string) => string;
}

export function statusOf(message: AlertMessage): "firing" | "resolved" {
  return message.event === "resolved" ? "resolved" : "firing";
}

export function title(message: AlertMessage): string {
  const tag = message.event === "resolved" ? "RESOLVED" : message.event === "repeat" ? "FIRING, still" : "FIRING";
  return `[${tag}] ${message.ruleName} (${message.severity})`;
}

const when = (d: Date) => formatTime(d.getTime(), { precision: "s", zone: true });

/** The body as Markdown lines, which DingTalk, WeCom, Feishu and Slack (with its own link syntax) all render. */
export function markdownLines(message: AlertMessage, link: (text: string, url: string) => string): string[] {
  const labels = Object.entries(message.labels).map(([k, v]) => `${k}=${v}`);
  return [
    message.summary,
    ...(message.description ? [message.description] : []),
    `fired at ${when(message.firedAt)}${message.resolvedAt ? `, resolved at ${when(message.resolvedAt)}` : ""}`,
    ...(labels.length > 0 ? [`labels: ${labels.join(", ")}`] : []),
    ...(message.keys.length > 0 ? [`keys: ${message.keys.map((k) => link(k, message.keyUrl(k))).join(", ")}`] : []),
    link("open in dupscope", message.alertsUrl),
  ];
}

/** A stored firing with its rule, as the outbox and the Alertmanager resend read it. */
export interface FiringRow {
  rule_id: string;
  firing_id: string;
  rule_name: string;
  severity: string;
  summary: string;
  value: number;
  keys: string[];
  fired_at: Date | string;
  resolved_at: Date | string | null;
  /** The rule's own labels. */
  labels: Record<string, string> | null;
  /** The alert's label set (its rule's group_by values). */
  alert_labels: Record<string, string> | null;
  description: string | null;
}

/** The columns of FiringRow, from alert_firings `f` and alert_rules `r`. */
export const FIRING_COLUMNS = `f.rule_id, f.id::text AS firing_id, f.rule_name, f.severity, f.summary, f.value, f.keys, f.fired_at, f.resolved_at,
  r.labels, f.labels AS alert_labels, r.description`;

/** `publicUrl`: DUPSCOPE_PUBLIC_URL, or '' for links relative to the dupscope server. */
export function messageOf(row: FiringRow, event: AlertMessage["event"], publicUrl: string): AlertMessage {
  return {
    event,
    ruleId: row.rule_id,
    ruleName: row.rule_name,
    severity: row.severity,
    // The rule's own labels and the alert's label set, which tells the alerts of one rule apart.
    labels: { ...row.labels, ...row.alert_labels },
    description: row.description,
    summary: row.summary,
    value: row.value,
    firingId: row.firing_id,
    firedAt: new Date(row.fired_at),
    resolvedAt: event === "resolved" && row.resolved_at ? new Date(row.resolved_at) : null,
    keys: row.keys,
    alertsUrl: `${publicUrl}/alerts`,
    keyUrl: (key) => `${publicUrl}/keys/${encodeURIComponent(key)}`,
  };
}
