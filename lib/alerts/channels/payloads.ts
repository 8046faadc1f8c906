import { createHash } from "node:crypto";
import { alertAnnotations, alertLabels } from "./alertmanager.ts";
import { markdownLines, statusOf, title, type AlertMessage } from "./message.ts";

/** The JSON body each channel type receives (signatures are added by send.ts, which knows the clock). */

const mdLink = (text: string, url: string) => `[${text}](${url})`;

export function webhookPayload(m: AlertMessage) {
  return {
    version: "1",
    event: m.event,
    status: statusOf(m),
    rule: { id: m.ruleId, name: m.ruleName, severity: m.severity, labels: m.labels, description: m.description },
    summary: m.summary,
    value: m.value,
    firingId: m.firingId,
    firedAt: m.firedAt.toISOString(),
    resolvedAt: m.resolvedAt?.toISOString() ?? null,
    keys: m.keys.map((bizKey) => ({ bizKey, url: m.keyUrl(bizKey) })),
    url: m.alertsUrl,
    links: { alert: m.alertsUrl, group: m.groupUrl, runbook: m.runbookUrl, acknowledge: m.ackUrl },
  };
}

/** Alertmanager's zero time: what it sends as endsAt for an alert that has not ended. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * The payload Alertmanager's webhook receiver sends (version 4), so every tool written for Alertmanager
 * (prometheus-webhook-dingtalk, PagerDuty bridges, custom receivers) can take dupscope's alerts directly.
 */
export function alertmanagerWebhookPayload(m: AlertMessage) {
  const status = statusOf(m);
  const labels = { ...alertLabels(m), dupscope_rule_id: m.ruleId };
  const annotations = alertAnnotations(m);
  const fingerprint = createHash("sha256").update(JSON.stringify(Object.entries(labels).sort())).digest("hex").slice(0, 16);
  return {
    version: "4",
    groupKey: `{}:{alertname=${JSON.stringify(m.ruleName)}}`,
    truncatedAlerts: 0,
    status,
    receiver: "dupscope",
    groupLabels: { alertname: m.ruleName },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: m.alertsUrl,
    alerts: [
      {
        status,
        labels,
        annotations,
        startsAt: m.firedAt.toISOString(),
        endsAt: m.resolvedAt?.toISOString() ?? ZERO_TIME,
        generatorURL: m.alertsUrl,
        fingerprint,
      },
    ],
  };
}

export function dingtalkPayload(m: AlertMessage) {
  const heading = title(m);
  return { msgtype: "markdown", markdown: { title: heading, text: [`### ${heading}`, ...markdownLines(m, mdLink)].join("\n\n") } };
}

export function feishuPayload(m: AlertMessage) {
  return {
    msg_type: "interactive",
    card: {
      header: { title: { tag: "plain_text", content: title(m) }, template: statusOf(m) === "resolved" ? "green" : m.severity === "critical" ? "red" : "orange" },
      elements: [{ tag: "markdown", content: markdownLines(m, mdLink).join("\n") }],
    },
  };
}

export function wecomPayload(m: AlertMessage) {
  return { msgtype: "markdown", markdown: { content: [`**${title(m)}**`, ...markdownLines(m, mdLink)].join("\n") } };
}

export function slackPayload(m: AlertMessage) {
  const text = [`*${title(m)}*`, ...markdownLines(m, (text, url) => `<${url}|${text}>`)].join("\n");
  return { text: title(m), blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
}

export function emailContent(m: AlertMessage): { subject: string; text: string } {
  return { subject: title(m), text: markdownLines(m, (text, url) => (text === url ? url : `${text} <${url}>`)).join("\n") };
}
