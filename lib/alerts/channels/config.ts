import { z } from "zod";

/** Each channel type's settings. Robot URLs are the full webhook URLs the chat tools hand out (token included). */

const url = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);
const secret = z.string().trim().min(1).max(512);

export const channelConfigSchemas = {
  webhook: z.object({ url, secret: secret.optional(), headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/), z.string().max(1024)).optional() }).strict(),
  /** Alertmanager itself: its URL (http://alertmanager:9093); alerts go to /api/v2/alerts under it. */
  alertmanager: z.object({ url }).strict(),
  /** Any receiver that takes Alertmanager's webhook payload (prometheus-webhook-dingtalk, bridges). */
  alertmanager_webhook: z.object({ url }).strict(),
  dingtalk: z.object({ url, secret: secret.optional() }).strict(),
  feishu: z.object({ url, secret: secret.optional() }).strict(),
  wecom: z.object({ url }).strict(),
  slack: z.object({ url }).strict(),
  email: z
    .object({
      host: z.string().trim().min(1).max(255),
      port: z.number().int().min(1).max(65535),
      secure: z.boolean().default(false),
      user: z.string().max(255).optional(),
      password: secret.optional(),
      from: z.string().trim().min(3).max(255),
      to: z.array(z.email()).min(1).max(50),
    })
    .strict(),
} as const;

export type ChannelType = keyof typeof channelConfigSchemas;

export type ChannelConfig<T extends ChannelType = ChannelType> = z.infer<(typeof channelConfigSchemas)[T]>;

const typed = <T extends ChannelType>(type: T) => z.object({ type: z.literal(type), config: channelConfigSchemas[type] });

export const channelSchema = z.discriminatedUnion("type", [
  typed("webhook"),
  typed("alertmanager"),
  typed("alertmanager_webhook"),
  typed("dingtalk"),
  typed("feishu"),
  typed("wecom"),
  typed("slack"),
  typed("email"),
]);

/** Config keys that hold credentials: never sent back by the API. */
export const SECRET_FIELDS = ["secret", "password"] as const;
export const MASK = "********";
