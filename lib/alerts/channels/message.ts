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
