import { createHash } from "node:crypto";
import { alertAnnotations, alertLabels } from "./alertmanager.ts";
import { noticeLines, noticeStatus, noticeTitle, statusOf, type AlertMessage, type Notice } from "./message.ts";

/** The JSON body each channel type receives for a notice of one or more alerts of one rule (signatures: send.ts). */

const mdLink = (text: string, url: string) => `[${text}](${url})`;

function webhookAlert(m: AlertMessage) {
  return {
    event: m.event,
    status: statusOf(m),
    labels: m.labels,
    summary: m.summary,
    description: m.description,
    value: m.value,
    firingId: m.firingId,
    firedAt: m.firedAt.toISOString(),
    resolvedAt: m.resolvedAt?.toISOString() ?? null,
    keys: m.keys.map((bizKey) => ({ bizKey, url: m.keyUrl(bizKey) })),
    links: { alert: m.alertsUrl, group: m.groupUrl, runbook: m.runbookUrl, acknowledge: m.ackUrl },
  };
}

/**
 * Version 2: one rule and the alerts of it this message carries (one per label set of its group_by, grouped
 * as Alertmanager groups), each with its own event, labels, keys and links.
 */
export function webhookPayload(notice: Notice) {
  const [first] = notice;
  return {
    version: "2",
    status: noticeStatus(notice),
    rule: { id: first.ruleId, name: first.ruleName, severity: first.severity },
    alerts: notice.map(webhookAlert),
    url: first.alertsUrl,
  };
}

/** Alertmanager's zero time: what it sends as endsAt for an alert that has not ended. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/** The pairs every record has alike: Alertmanager's commonLabels and commonAnnotations. */
function common(records: Record<string, string>[]): Record<string, string> {
  const [first, ...rest] = records;
  return Object.fromEntries(Object.entries(first ?? {}).filter(([k, v]) => rest.every((r) => r[k] === v)));
}

/**
 * The payload Alertmanager's webhook receiver sends (version 4), so every tool written for Alertmanager
 * (prometheus-webhook-dingtalk, PagerDuty bridges, custom receivers) can take dupscope's alerts directly.
 */
export function alertmanagerWebhookPayload(notice: Notice) {
  const [first] = notice;
  const alerts = notice.map((m) => {
    const labels = { ...alertLabels(m), dupscope_rule_id: m.ruleId };
    return {
      status: statusOf(m),
      labels,
      annotations: alertAnnotations(m),
      startsAt: m.firedAt.toISOString(),
      endsAt: m.resolvedAt?.toISOString() ?? ZERO_TIME,
      generatorURL: m.alertsUrl,
      fingerprint: createHash("sha256").update(JSON.stringify(Object.entries(labels).sort())).digest("hex").slice(0, 16),
    };
  });
  return {
    version: "4",
    groupKey: `{}:{alertname=${JSON.stringify(first.ruleName)}}`,
    truncatedAlerts: 0,
    status: noticeStatus(notice),
    receiver: "dupscope",
    groupLabels: { alertname: first.ruleName },
    commonLabels: common(alerts.map((a) => a.labels)),
    commonAnnotations: common(alerts.map((a) => a.annotations)),
    externalURL: first.alertsUrl,
    alerts,
  };
}

export function dingtalkPayload(notice: Notice) {
  const heading = noticeTitle(notice);
  return { msgtype: "markdown", markdown: { title: heading, text: [`### ${heading}`, ...noticeLines(notice, mdLink)].join("\n\n") } };
}

export function feishuPayload(notice: Notice) {
  const resolved = noticeStatus(notice) === "resolved";
  return {
    msg_type: "interactive",
    card: {
      header: { title: { tag: "plain_text", content: noticeTitle(notice) }, template: resolved ? "green" : notice[0].severity === "critical" ? "red" : "orange" },
      elements: [{ tag: "markdown", content: noticeLines(notice, mdLink).join("\n") }],
    },
  };
}

export function wecomPayload(notice: Notice) {
  return { msgtype: "markdown", markdown: { content: [`**${noticeTitle(notice)}**`, ...noticeLines(notice, mdLink)].join("\n") } };
}

export function slackPayload(notice: Notice) {
  const text = [`*${noticeTitle(notice)}*`, ...noticeLines(notice, (text, url) => `<${url}|${text}>`)].join("\n");
  return { text: noticeTitle(notice), blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
}

export function emailContent(notice: Notice): { subject: string; text: string } {
  return { subject: noticeTitle(notice), text: noticeLines(notice, (text, url) => (text === url ? url : `${text} <${url}>`)).join("\n") };
}
