import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AlertMessage } from "../../../lib/alerts/channels/message.ts";
import { alertsEndpoint, postableAlert, RESEND_MS } from "../../../lib/alerts/channels/alertmanager.ts";
import { alertmanagerWebhookPayload, dingtalkPayload, emailContent, feishuPayload, slackPayload, webhookPayload, wecomPayload } from "../../../lib/alerts/channels/payloads.ts";

const firedAt = new Date("2026-11-30T04:00:00.000Z");
const resolvedAt = new Date("2026-11-30T05:00:00.000Z");

function message(event: AlertMessage["event"] = "firing"): AlertMessage {
  return {
    event,
    ruleId: "r1",
    ruleName: "payment leak",
    severity: "critical",
    labels: { team: "payments", group: "pay-consumer" },
    description: "A payment was processed twice.",
    summary: "leaked duplicates > 0 in 1h: now 2",
    runbookUrl: "https://wiki.example/runbooks/payment-leak",
    value: 2,
    firingId: "7",
    firedAt,
    resolvedAt: event === "resolved" ? resolvedAt : null,
    keys: ["PAY-1", "PAY 2"],
    alertsUrl: "https://d.example/alerts",
    groupUrl: "https://d.example/groups/pay-consumer",
    ackUrl: event === "resolved" ? null : "https://d.example/alerts/ack?token=t.s",
    keyUrl: (k) => `https://d.example/keys/${encodeURIComponent(k)}`,
  };
}

describe("notification payloads", () => {
  it("generic webhook: the rule and its alerts as JSON, each with links to its keys, group, runbook and acknowledgement", () => {
    assert.deepEqual(webhookPayload([message()]), {
      version: "2",
      status: "firing",
      rule: { id: "r1", name: "payment leak", severity: "critical" },
      alerts: [
        {
          event: "firing",
          status: "firing",
          labels: { team: "payments", group: "pay-consumer" },
          summary: "leaked duplicates > 0 in 1h: now 2",
          description: "A payment was processed twice.",
          value: 2,
          firingId: "7",
          firedAt: "2026-11-30T04:00:00.000Z",
          resolvedAt: null,
          keys: [
            { bizKey: "PAY-1", url: "https://d.example/keys/PAY-1" },
            { bizKey: "PAY 2", url: "https://d.example/keys/PAY%202" },
          ],
          links: {
            alert: "https://d.example/alerts",
            group: "https://d.example/groups/pay-consumer",
            runbook: "https://wiki.example/runbooks/payment-leak",
            acknowledge: "https://d.example/alerts/ack?token=t.s",
          },
        },
      ],
      url: "https://d.example/alerts",
    });
    assert.equal(webhookPayload([message("repeat")]).status, "firing");
    assert.equal(webhookPayload([message("resolved")]).alerts[0]!.links.acknowledge, null, "nothing to acknowledge once resolved");
  });

  it("a notice of several alerts of one rule: firing while any fires, counted in the title, each alert headed by its labels", () => {
    const coupon = { ...message("resolved"), labels: { team: "payments", group: "coupon-consumer" }, firingId: "8" };
    const notice = [message(), coupon] as const;
    assert.equal(webhookPayload(notice).status, "firing");
    assert.deepEqual(webhookPayload(notice).alerts.map((a) => [a.labels.group, a.status]), [
      ["pay-consumer", "firing"],
      ["coupon-consumer", "resolved"],
    ]);
    const ding = dingtalkPayload(notice);
    assert.equal(ding.markdown.title, "[FIRING:1, RESOLVED:1] payment leak (critical)");
    assert.match(ding.markdown.text, /FIRING group="pay-consumer", team="payments"[\s\S]*RESOLVED group="coupon-consumer", team="payments"/);
    const am = alertmanagerWebhookPayload(notice);
    assert.equal(am.alerts.length, 2);
    assert.deepEqual(am.commonLabels, { team: "payments", alertname: "payment leak", severity: "critical", dupscope_rule_id: "r1" }, "the labels both alerts share");
    assert.equal(emailContent([coupon, coupon]).subject, "[RESOLVED:2] payment leak (critical)");
  });

  it("Alertmanager: webhook payload version 4 with one alert, endsAt the zero time until resolved", () => {
    const firing = alertmanagerWebhookPayload([message()]);
    assert.equal(firing.version, "4");
    assert.equal(firing.status, "firing");
    assert.deepEqual(firing.groupLabels, { alertname: "payment leak" });
    const [alert] = firing.alerts;
    assert.deepEqual(alert!.labels, { team: "payments", group: "pay-consumer", alertname: "payment leak", severity: "critical", dupscope_rule_id: "r1" });
    assert.equal(alert!.startsAt, "2026-11-30T04:00:00.000Z");
    assert.equal(alert!.endsAt, "0001-01-01T00:00:00Z");
    assert.equal(alert!.annotations.keys, "PAY-1 PAY 2");
    assert.match(alert!.fingerprint, /^[0-9a-f]{16}$/);
    const resolved = alertmanagerWebhookPayload([message("resolved")]);
    assert.equal(resolved.status, "resolved");
    assert.equal(resolved.alerts[0]!.endsAt, "2026-11-30T05:00:00.000Z");
    assert.equal(resolved.alerts[0]!.fingerprint, alert!.fingerprint, "the same alert, so receivers can pair them");
  });

  it("Alertmanager API: a postable alert known by its labels, endsAt four resends ahead while firing and its resolution after", () => {
    const now = Date.parse("2026-11-30T04:10:00Z");
    const firing = postableAlert({ ...message(), labels: { team: "payments", group: "pay-consumer" } }, now);
    assert.deepEqual(firing.labels, { team: "payments", group: "pay-consumer", alertname: "payment leak", severity: "critical" });
    assert.equal(firing.annotations.runbook_url, "https://wiki.example/runbooks/payment-leak");
    assert.equal(firing.annotations.acknowledge_url, "https://d.example/alerts/ack?token=t.s");
    assert.equal(firing.startsAt, "2026-11-30T04:00:00.000Z");
    assert.equal(firing.endsAt, new Date(now + 4 * RESEND_MS).toISOString());
    assert.equal(firing.generatorURL, "https://d.example/alerts");
    assert.equal(firing.annotations.keys, "PAY-1 PAY 2");
    assert.equal(postableAlert(message("resolved"), now).endsAt, "2026-11-30T05:00:00.000Z");
    assert.equal("generatorURL" in postableAlert({ ...message(), alertsUrl: "/alerts" }, now), false, "Alertmanager refuses a relative generatorURL");
    assert.equal(alertsEndpoint("http://am:9093"), "http://am:9093/api/v2/alerts");
    assert.equal(alertsEndpoint("http://am:9093/prefix/"), "http://am:9093/prefix/api/v2/alerts");
    assert.equal(alertsEndpoint("http://am:9093/api/v2/alerts"), "http://am:9093/api/v2/alerts");
  });

  it("DingTalk and WeCom: markdown messages", () => {
    const ding = dingtalkPayload([message()]);
    assert.equal(ding.msgtype, "markdown");
    assert.equal(ding.markdown.title, "[FIRING] payment leak (critical)");
    assert.match(ding.markdown.text, /^### \[FIRING\] payment leak \(critical\)\n\nleaked duplicates > 0 in 1h: now 2\n\n/);
    assert.match(ding.markdown.text, /\[PAY 2\]\(https:\/\/d\.example\/keys\/PAY%202\)/);
    assert.match(
      ding.markdown.text,
      /\[open in dupscope\]\(https:\/\/d\.example\/alerts\) · \[group pay-consumer\]\(https:\/\/d\.example\/groups\/pay-consumer\) · \[runbook\]\(https:\/\/wiki\.example\/runbooks\/payment-leak\) · \[acknowledge\]\(https:\/\/d\.example\/alerts\/ack\?token=t\.s\)$/,
      "the alert, its group, its runbook and the acknowledge link",
    );
    const wecom = wecomPayload([message("resolved")]);
    assert.equal(wecom.msgtype, "markdown");
    assert.match(wecom.markdown.content, /^\*\*\[RESOLVED\] payment leak \(critical\)\*\*\n/);
    assert.match(wecom.markdown.content, /resolved at 2026-11-30 05:00:00 UTC/);
  });

  it("Feishu: an interactive card, green when resolved", () => {
    const card = feishuPayload([message()]);
    assert.equal(card.msg_type, "interactive");
    assert.equal(card.card.header.template, "red");
    assert.equal(card.card.header.title.content, "[FIRING] payment leak (critical)");
    assert.equal(card.card.elements[0]!.tag, "markdown");
    assert.equal(feishuPayload([message("resolved")]).card.header.template, "green");
  });

  it("Slack: text fallback plus a mrkdwn block with Slack's link syntax", () => {
    const slack = slackPayload([message("repeat")]);
    assert.equal(slack.text, "[FIRING, still] payment leak (critical)");
    assert.match(slack.blocks[0]!.text.text, /<https:\/\/d\.example\/keys\/PAY-1\|PAY-1>/);
  });

  it("e-mail: the title as subject, plain text with URLs", () => {
    const mail = emailContent([message()]);
    assert.equal(mail.subject, "[FIRING] payment leak (critical)");
    assert.match(mail.text, /keys: PAY-1 <https:\/\/d\.example\/keys\/PAY-1>, PAY 2 <https:\/\/d\.example\/keys\/PAY%202>/);
  });
});
