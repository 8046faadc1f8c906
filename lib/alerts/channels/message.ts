import { formatTime } from "../../format/time.ts";
import { ACK_LINK_TTL_MS, signAck } from "../acks.ts";
import { renderTemplate } from "../annotations.ts";
import { labelsText } from "../labels.ts";

/** What one notification says, whatever the channel: built from the stored firing and its rule at send time. */
export interface AlertMessage {
  /** Why it is sent: the alert started firing, is still firing (repeat interval), or resolved. */
  event: "firing" | "repeat" | "resolved";
  ruleId: string;
  ruleName: string;
  severity: string;
  labels: Record<string, string>;
  /** The rule's description template, filled in (annotations.ts). */
  description: string | null;
  /** The rule's summary template filled in, else the condition, the label set and the value that breached it, in words. */
  summary: string;
  /** The rule's runbook URL template, filled in. */
  runbookUrl: string | null;
  value: number;
  firingId: string;
  firedAt: Date;
  resolvedAt: Date | null;
  keys: string[];
  /** The alert on the alerts page. Absolute when DUPSCOPE_PUBLIC_URL is set, else paths on the dupscope server. */
  alertsUrl: string;
  /** The page of the consumer group the alert is about, when it is about one. */
  groupUrl: string | null;
  /** A signed link that acknowledges this firing (acks.ts), on firing and repeat notices. */
  ackUrl: string | null;
  keyUrl: (bizKey: string) => string;
}

/** The alerts of one rule that one message carries to one channel (grouped as dispatcher.ts decides), never empty. */
export type Notice = readonly [AlertMessage, ...AlertMessage[]];

export function statusOf(message: AlertMessage): "firing" | "resolved" {
  return message.event === "resolved" ? "resolved" : "firing";
}

/** Firing while any of its alerts fires, as Alertmanager says of a group. */
export function noticeStatus(notice: Notice): "firing" | "resolved" {
  return notice.some((m) => statusOf(m) === "firing") ? "firing" : "resolved";
}

export function title(message: AlertMessage): string {
  const tag = message.event === "resolved" ? "RESOLVED" : message.event === "repeat" ? "FIRING, still" : "FIRING";
  return `[${tag}] ${message.ruleName} (${message.severity})`;
}

/** One alert's title as before; several: how many fire and how many resolved, as Alertmanager's templates count them. */
export function noticeTitle(notice: Notice): string {
  if (notice.length === 1) return title(notice[0]);
  const firing = notice.filter((m) => statusOf(m) === "firing").length;
  const tags = [firing > 0 ? `FIRING:${firing}` : "", firing < notice.length ? `RESOLVED:${notice.length - firing}` : ""].filter(Boolean);
  return `[${tags.join(", ")}] ${notice[0].ruleName} (${notice[0].severity})`;
}

/** Each alert's lines, those of several alerts each headed by its status and label set. */
export function noticeLines(notice: Notice, link: (text: string, url: string) => string): string[] {
  if (notice.length === 1) return markdownLines(notice[0], link);
  return notice.flatMap((m) => [`${statusOf(m).toUpperCase()}${m.event === "repeat" ? " (still)" : ""} ${labelsText(m.labels)}`.trim(), ...markdownLines(m, link)]);
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
    [
      link("open in dupscope", message.alertsUrl),
      ...(message.groupUrl ? [link(`group ${message.labels.group ?? ""}`.trim(), message.groupUrl)] : []),
      ...(message.runbookUrl ? [link("runbook", message.runbookUrl)] : []),
      ...(message.ackUrl ? [link("acknowledge", message.ackUrl)] : []),
    ].join(" · "),
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
  /** The rule's annotation templates. */
  summary_template: string | null;
  description: string | null;
  runbook_template: string | null;
  /** The rule's condition when it fired; its group names the group page when the alert has no group label. */
  condition: { group?: string } | null;
}

/** The columns of FiringRow, from alert_firings `f` and alert_rules `r`. */
export const FIRING_COLUMNS = `f.rule_id, f.id::text AS firing_id, f.rule_name, f.severity, f.summary, f.value, f.keys, f.fired_at, f.resolved_at,
  r.labels, f.labels AS alert_labels, r.summary AS summary_template, r.description, r.runbook_url AS runbook_template, f.condition`;

/** How a message links back: DUPSCOPE_PUBLIC_URL ('' for paths on the server) and, for acknowledge links, the key and clock. */
export interface LinkContext {
  publicUrl: string;
  ack?: { key: Buffer; now: number };
}

export function messageOf(row: FiringRow, event: AlertMessage["event"], links: LinkContext): AlertMessage {
  const base = links.publicUrl;
  // The rule's own labels and the alert's label set, which tells the alerts of one rule apart.
  const labels = { ...row.labels, ...row.alert_labels };
  const data = { labels, value: row.value, keys: row.keys };
  const group = labels.group ?? row.condition?.group;
  const firing = event !== "resolved";
  return {
    event,
    ruleId: row.rule_id,
    ruleName: row.rule_name,
    severity: row.severity,
    labels,
    description: row.description ? renderTemplate(row.description, data) : null,
    summary: row.summary_template ? renderTemplate(row.summary_template, data) : row.summary,
    runbookUrl: row.runbook_template ? renderTemplate(row.runbook_template, data) : null,
    value: row.value,
    firingId: row.firing_id,
    firedAt: new Date(row.fired_at),
    resolvedAt: event === "resolved" && row.resolved_at ? new Date(row.resolved_at) : null,
    keys: row.keys,
    alertsUrl: `${base}/alerts#rule-${encodeURIComponent(row.rule_id)}`,
    groupUrl: group ? `${base}/groups/${encodeURIComponent(group)}` : null,
    ackUrl:
      firing && links.ack
        ? `${base}/alerts/ack?token=${signAck(links.ack.key, { ruleId: row.rule_id, labels: row.alert_labels ?? {}, firingId: row.firing_id, expiresAt: links.ack.now + ACK_LINK_TTL_MS })}`
        : null,
    keyUrl: (key) => `${base}/keys/${encodeURIComponent(key)}`,
  };
}
