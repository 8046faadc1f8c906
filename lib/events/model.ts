import { z } from "zod";

/**
 * The normalized event: the one shape every collector produces and the store keeps (docs/event-model.md).
 * Timestamps are epoch milliseconds; `tsPrecision` records how fine the source clock was, because a broker log
 * line stamped to the second cannot order two events 300 ms apart.
 */

export const EVENT_KINDS = [
  "publish",
  "send_attempt",
  "consume_start",
  "consume_end",
  "ack",
  "dedup",
  "business_effect",
  "rebalance",
  "instance_lifecycle",
  "transaction",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const BROKERS = ["rocketmq", "rabbitmq", "kafka"] as const;
export type Broker = (typeof BROKERS)[number];

export const TS_PRECISIONS = ["ms", "s"] as const;
export type TsPrecision = (typeof TS_PRECISIONS)[number];

/** Timestamps outside this range are almost always a unit mistake (seconds sent as ms, or µs/ns). */
export const MIN_TS = Date.UTC(2000, 0, 1);
export const MAX_TS = Date.UTC(2100, 0, 1);

export type DetailValue = string | number | boolean | null | DetailValue[] | { [key: string]: DetailValue };

export interface NormalizedEvent {
  id: string;
  kind: EventKind;
  ts: number;
  tsPrecision: TsPrecision;
  bizKey: string | null;
  msgId: string | null;
  offsetMsgId: string | null;
  broker: Broker;
  topic: string | null;
  group: string | null;
  queue: string | null;
  queueOffset: number | null;
  instance: string | null;
  retryTimes: number | null;
  redelivered: boolean | null;
  success: boolean | null;
  detail: { [key: string]: DetailValue };
  source: string;
}

const shortText = (max: number) => z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => shortText(max).nullish().transform((v) => v ?? null);

const epochMs = z.union([z.number(), z.string()]).transform((raw, ctx): number => {
  let value: number;
  if (typeof raw === "number") {
    value = raw;
  } else if (/^\d+$/.test(raw.trim())) {
    value = Number(raw.trim());
  } else {
    value = Date.parse(raw);
    if (Number.isNaN(value)) {
      ctx.addIssue({ code: "custom", message: "must be epoch milliseconds or an ISO-8601 date-time" });
      return z.NEVER;
    }
  }
  if (!Number.isSafeInteger(value)) {
    ctx.addIssue({ code: "custom", message: "must be a whole number of epoch milliseconds" });
    return z.NEVER;
  }
  if (value < MIN_TS || value >= MAX_TS) {
    const hint =
      value >= MIN_TS / 1000 && value < MAX_TS / 1000
        ? " (looks like epoch seconds; send milliseconds)"
        : value >= MIN_TS * 1000 && value < MAX_TS * 1000
          ? " (looks like epoch microseconds; send milliseconds)"
          : "";
    ctx.addIssue({ code: "custom", message: `is outside 2000-01-01..2100-01-01${hint}` });
    return z.NEVER;
  }
  return value;
});

const nonNegativeInt = z.union([z.number(), z.string().regex(/^\d+$/, "must be a whole number")]).transform(Number).pipe(
  z.number().int("must be a whole number").nonnegative("must not be negative").max(Number.MAX_SAFE_INTEGER, "is too large"),
);

const detailValue: z.ZodType<DetailValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(detailValue), z.record(z.string(), detailValue)]),
);

/** A caller-supplied fingerprint: printable, URL-safe, bounded so it indexes well. */
export const EVENT_ID_PATTERN = /^[A-Za-z0-9._:@\-]{1,128}$/;

/**
 * What the ingest API accepts. `id` is optional: without it the store fingerprints the event's content, so a
 * re-posted file is still idempotent. `null` and absent mean the same thing for optional fields.
 */
export const eventInputSchema = z
  .object({
    id: z.string().regex(EVENT_ID_PATTERN, "must be 1-128 characters of A-Z a-z 0-9 . _ : @ -").optional(),
    kind: z.enum(EVENT_KINDS),
    ts: epochMs,
    tsPrecision: z.enum(TS_PRECISIONS).default("ms"),
    bizKey: optionalText(512),
    msgId: optionalText(128),
    offsetMsgId: optionalText(128),
    broker: z.enum(BROKERS),
    topic: optionalText(255),
    group: optionalText(255),
    queue: optionalText(255),
    queueOffset: nonNegativeInt.nullish().transform((v) => v ?? null),
    instance: optionalText(255),
    retryTimes: nonNegativeInt.nullish().transform((v) => v ?? null),
    redelivered: z.boolean().nullish().transform((v) => v ?? null),
    success: z.boolean().nullish().transform((v) => v ?? null),
    detail: z.record(z.string(), detailValue).default({}),
    source: shortText(512),
  })
  .strict()
  .superRefine((event, ctx) => {
    const keyless = event.kind === "rebalance" || event.kind === "instance_lifecycle";
    if (!keyless && event.bizKey === null && event.msgId === null) {
      ctx.addIssue({ code: "custom", path: ["bizKey"], message: `a ${event.kind} event needs a bizKey or a msgId` });
    }
  });

export type EventInput = z.input<typeof eventInputSchema>;
