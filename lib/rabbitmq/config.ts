import { z } from "zod";
import { DEFAULT_KEY, keySpecSchema } from "../../collectors/rabbitmq-firehose/config.ts";

/** What `dupscope rabbitmq collect` runs with; every field has a default that suits one local broker. */
export const collectorConfigSchema = z.object({
  /** Broker URL without a vhost (the vhosts are listed apart); `amqps://` works too. */
  url: z
    .string()
    .default("amqp://guest:guest@127.0.0.1:5672")
    .refine((u) => /^amqps?:\/\/[^/?]+\/?(\?.*)?$/.test(u), "must be amqp://user:pass@host:port[?options] (the vhosts are given with --vhost)"),
  vhosts: z.array(z.string().min(1)).min(1).default(["/"]),
  key: keySpecSchema.default(DEFAULT_KEY),
  /** The collector's own queue, declared in every vhost. Durable, so a collector restart loses nothing queued. */
  queue: z.string().min(1).max(200).default("dupscope.collector"),
  /** Beyond this many waiting messages the oldest are dropped (and counted), so a stalled collector cannot fill the broker. */
  maxLength: z.number().int().positive().default(100_000),
  batchSize: z.number().int().positive().max(10_000).default(500),
  flushAfterMs: z.number().int().positive().default(200),
  reconnectInitialDelayMs: z.number().int().positive().default(500),
  reconnectMaxDelayMs: z.number().int().positive().default(15_000),
});

export type CollectorConfig = z.output<typeof collectorConfigSchema>;
export type CollectorConfigInput = z.input<typeof collectorConfigSchema>;

/** The vhost goes into the path, URL-encoded: `/` is `%2F`. */
export function vhostUrl(url: string, vhost: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(vhost)}`;
  return u.toString();
}

/** For logs and event sources: the URL without its password. */
export function maskedUrl(url: string): string {
  return url.replace(/:[^:@/]*@/, ":***@");
}
