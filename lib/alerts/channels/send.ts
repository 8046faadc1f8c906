import nodemailer from "nodemailer";
import type { ChannelConfig, ChannelType } from "./config.ts";
import { checkHost } from "../../net/outbound.ts";
import { DeliveryError, jsonCodeIsZero, postJson } from "./http.ts";
import type { Notice } from "./message.ts";
import { alertsEndpoint, postableAlert } from "./alertmanager.ts";
import { alertmanagerWebhookPayload, dingtalkPayload, emailContent, feishuPayload, slackPayload, webhookPayload, wecomPayload } from "./payloads.ts";
import { dingtalkSignedUrl, feishuSign, webhookSignature } from "./signing.ts";

export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  config: ChannelConfig;
}

/** Delivers one notice to one channel; throws DeliveryError (or any error) when it did not arrive. */
export async function sendToChannel(channel: Channel, notice: Notice, now: number = Date.now()): Promise<void> {
  switch (channel.type) {
    case "webhook": {
      const config = channel.config as ChannelConfig<"webhook">;
      const body = JSON.stringify(webhookPayload(notice));
      const signature: Record<string, string> = config.secret ? { "x-dupscope-signature": webhookSignature(config.secret, body) } : {};
      return postJson(config.url, body, { ...config.headers, ...signature });
    }
    case "alertmanager": {
      const config = channel.config as ChannelConfig<"alertmanager">;
      return postJson(alertsEndpoint(config.url), JSON.stringify(notice.map((m) => postableAlert(m, now))));
    }
    case "alertmanager_webhook": {
      const config = channel.config as ChannelConfig<"alertmanager_webhook">;
      return postJson(config.url, JSON.stringify(alertmanagerWebhookPayload(notice)));
    }
    case "dingtalk": {
      const config = channel.config as ChannelConfig<"dingtalk">;
      const url = config.secret ? dingtalkSignedUrl(config.url, config.secret, now) : config.url;
      return postJson(url, JSON.stringify(dingtalkPayload(notice)), {}, jsonCodeIsZero);
    }
    case "feishu": {
      const config = channel.config as ChannelConfig<"feishu">;
      const seconds = Math.floor(now / 1000);
      const signed = config.secret ? { timestamp: String(seconds), sign: feishuSign(config.secret, seconds) } : {};
      return postJson(config.url, JSON.stringify({ ...signed, ...feishuPayload(notice) }), {}, jsonCodeIsZero);
    }
    case "wecom": {
      const config = channel.config as ChannelConfig<"wecom">;
      return postJson(config.url, JSON.stringify(wecomPayload(notice)), {}, jsonCodeIsZero);
    }
    case "slack": {
      const config = channel.config as ChannelConfig<"slack">;
      return postJson(config.url, JSON.stringify(slackPayload(notice)), {}, (text) => (text.trim() === "ok" ? null : `answered "${text.slice(0, 200)}"`));
    }
    case "email":
      return sendEmail(channel.config as ChannelConfig<"email">, notice);
  }
}

async function sendEmail(config: ChannelConfig<"email">, notice: Notice): Promise<void> {
  try {
    await checkHost(config.host);
  } catch (error) {
    throw new DeliveryError(`SMTP ${config.host}:${config.port} refused: ${(error as Error).message}`);
  }
  const transport = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    ...(config.user ? { auth: { user: config.user, pass: config.password ?? "" } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  const { subject, text } = emailContent(notice);
  try {
    await transport.sendMail({ from: config.from, to: config.to, subject, text });
  } catch (error) {
    throw new DeliveryError(`SMTP ${config.host}:${config.port} failed: ${(error as Error).message}`);
  } finally {
    transport.close();
  }
}
