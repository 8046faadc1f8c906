import { z } from "zod";
import { canonicalInstance } from "../../lib/events/instance.ts";
import { BROKERS, MAX_TS, MIN_TS, type DetailValue, type NormalizedEvent } from "../../lib/events/model.ts";
import { formatIssues } from "../../lib/events/validate.ts";
import { parseLogTime, parseUtcOffset } from "../codecs/log-time.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import { parseLines, type LineResult, type ParseContext, type ParseResult } from "../types.ts";

/**
 * The consumer dedup log, v1 (docs/dedup-log.md): one JSON object per line, written by the consuming application
 * about each decision its dedup layers took. It is the only source that sees inside the consumer, so it is what
 * tells a duplicate that was caught from one that leaked.
 */

export const FORMAT = "dedup-log";

export const DEDUP_LAYERS = ["bloom", "redis", "db", "state", "none"] as const;
export const DEDUP_DECISIONS = ["pass", "hit", "executed", "failed", "released"] as const;
export type DedupDecision = (typeof DEDUP_DECISIONS)[number];

/** Errors are often whole stack traces; the head says what failed, the rest would only bloat every stored event. */
export const MAX_ERROR_CHARS = 2000;

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`);

const text = (max: number) =>
  z
    .string({ error: required("a string") })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

/** Absent and null mean the same: serializers such as Jackson write null for a value the application left unset. */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

/** MDC and ThreadContext values are strings, so counts logged through them arrive as "3"; both spellings are accepted. */
const wholeNumber = z
  .union([z.number(), z.string().regex(/^\d+$/, "must be a whole number")], { error: "must be a whole number" })
  .transform(Number)
  .pipe(z.number().int("must be a whole number").nonnegative("must not be negative").max(Number.MAX_SAFE_INTEGER, "is too large"));

/** RocketMQ apps write `brokerName:queueId`, Kafka apps `topic-partition`, some just the number: kept as written. */
const queueId = z
  .union([z.number().int("must be a whole number").nonnegative("must not be negative"), text(255)], {
    error: "must be a string or a whole number",
  })
  .transform(String);

const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?)(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function rangeProblem(ms: number): string | undefined {
  if (ms >= MIN_TS && ms < MAX_TS) return undefined;
  const hint =
    ms >= MIN_TS / 1000 && ms < MAX_TS / 1000
      ? " (looks like epoch seconds; write milliseconds)"
      : ms >= MIN_TS * 1000 && ms < MAX_TS * 1000
        ? " (looks like epoch microseconds; write milliseconds)"
        : "";
  return `is outside 2000-01-01..2100-01-01${hint}`;
}

function isoToEpochMs(raw: string, utcOffset: string): number | string {
  const m = ISO_DATE_TIME.exec(raw.trim());
  if (!m) return "must be an ISO-8601 date-time such as 2026-11-30T12:00:01.204+08:00, or epoch milliseconds";
  const zone = m[2] === undefined ? utcOffset : /^[+-]\d{2}$/.test(m[2]) ? `${m[2]}:00` : m[2];
  const parsed = parseLogTime(m[1]!, zone);
  return parsed === undefined ? "is not a real date-time" : parsed.ts;
}

/** Epoch ms arrive as numbers, sometimes fractional (Python's time.time() * 1000): the fraction is dropped. */
function epochMs(raw: number | string, utcOffset: string): number | string {
  const ms = typeof raw === "string" ? isoToEpochMs(raw, utcOffset) : Math.floor(raw);
  if (typeof ms === "string") return ms;
  return rangeProblem(ms) ?? ms;
}

const timestamp = (utcOffset: string) =>
  z
    .union([z.number(), z.string()], { error: required("an ISO-8601 date-time string or epoch milliseconds") })
    .transform((raw, ctx): number => {
      const ms = epochMs(raw, utcOffset);
      if (typeof ms === "number") return ms;
      ctx.addIssue({ code: "custom", message: ms });
      return z.NEVER;
    });

const LAYERLESS_DECISIONS: readonly DedupDecision[] = ["hit", "released"];

/**
 * The v1 record. `utcOffset` applies to ISO timestamps written without a zone. Unknown fields are allowed (the
 * logging framework adds its own, such as pino's `level`); the parser keeps them in detail.extra.
 */
export function dedupLogV1SchemaFor(utcOffset: string) {
  // A bad offset is a configuration error: fail now rather than on the first zone-less line.
  parseUtcOffset(utcOffset);
  return z
    .looseObject({
      ts: timestamp(utcOffset),
      bizKey: text(512),
      msgId: optional(text(128)),
      group: text(255),
      topic: optional(text(255)),
      instance: text(255),
      broker: z
        .enum(BROKERS, { error: `must be one of ${BROKERS.join(", ")}` })
        .nullish()
        .transform((v) => v ?? "rocketmq"),
      layer: z.enum(DEDUP_LAYERS, { error: required(`one of ${DEDUP_LAYERS.join(", ")}`) }),
      decision: z.enum(DEDUP_DECISIONS, { error: required(`one of ${DEDUP_DECISIONS.join(", ")}`) }),
      retryTimes: optional(wholeNumber),
      queueId: optional(queueId),
      queueOffset: optional(wholeNumber),
      dedupKey: optional(text(512)),
      ttlMs: optional(wholeNumber),
      error: optional(z.string({ error: "must be a string" })),
    })
    .refine((r) => !(r.layer === "none" && LAYERLESS_DECISIONS.includes(r.decision)), {
      path: ["layer"],
      message: `must name the layer that holds the marker when decision is ${LAYERLESS_DECISIONS.join(" or ")}`,
      // Runs even when other fields failed, so a line's reason lists every problem at once.
      when: (payload) => payload.issues.every((issue) => issue.path?.[0] !== "layer" && issue.path?.[0] !== "decision"),
    });
}

/** The v1 schema with zone-less timestamps read as UTC; the parser builds one per ParseContext.utcOffset. */
export const dedupLogV1Schema = dedupLogV1SchemaFor("Z");

export type DedupRecord = z.output<typeof dedupLogV1Schema>;

const KNOWN_FIELDS = new Set(Object.keys(dedupLogV1Schema.shape));

const schemas = new Map<string, typeof dedupLogV1Schema>([["Z", dedupLogV1Schema]]);

function schemaFor(utcOffset: string): typeof dedupLogV1Schema {
  let schema = schemas.get(utcOffset);
  if (!schema) {
    schema = dedupLogV1SchemaFor(utcOffset);
    schemas.set(utcOffset, schema);
  }
  return schema;
}

type JsonObject = { [key: string]: DetailValue };

function parseJsonObject(line: string): JsonObject | string {
  let value: DetailValue;
  try {
    // JSON.parse yields only strings, numbers, booleans, null, arrays and plain objects: exactly DetailValue.
    value = JSON.parse(line) as DetailValue;
  } catch {
    return "line is not valid JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "line is JSON but not an object";
  return value;
}

function extraFields(raw: JsonObject): JsonObject | undefined {
  // Object.fromEntries defines own properties, so a "__proto__" key stays data instead of replacing the prototype.
  const extra = Object.fromEntries(Object.entries(raw).filter(([key]) => !KNOWN_FIELDS.has(key)));
  return Object.keys(extra).length > 0 ? extra : undefined;
}

function truncate(error: string): string {
  if (error.length <= MAX_ERROR_CHARS) return error;
  // Never between the two halves of a surrogate pair (an emoji): a lone half is not storable text.
  const cut = /[\ud800-\udbff]/.test(error[MAX_ERROR_CHARS - 1]!) ? MAX_ERROR_CHARS - 1 : MAX_ERROR_CHARS;
  return `${error.slice(0, cut)}…`;
}

function detailOf(record: DedupRecord, raw: JsonObject): NormalizedEvent["detail"] {
  const detail: NormalizedEvent["detail"] = { layer: record.layer, decision: record.decision, instanceRaw: record.instance };
  if (record.dedupKey !== undefined) detail.dedupKey = record.dedupKey;
  if (record.ttlMs !== undefined) detail.ttlMs = record.ttlMs;
  if (record.error !== undefined) detail.error = truncate(record.error);
  const extra = extraFields(raw);
  if (extra) detail.extra = extra;
  return detail;
}

/** pass/hit/released are the dedup layer's own verdicts; executed/failed say whether the side effect happened. */
function kindOf(decision: DedupDecision): Pick<NormalizedEvent, "kind" | "success"> {
  if (decision === "executed") return { kind: "business_effect", success: true };
  if (decision === "failed") return { kind: "business_effect", success: false };
  return { kind: "dedup", success: null };
}

function toEvent(record: DedupRecord, raw: JsonObject, line: string, ctx: ParseContext): NormalizedEvent {
  const { kind, success } = kindOf(record.decision);
  return {
    id: recordFingerprint(FORMAT, line),
    kind,
    ts: record.ts,
    // Epoch ms and ISO strings both carry milliseconds; a writer that prints `.000` as nothing (Java's
    // ISO_OFFSET_DATE_TIME) must not make that one record look coarser than its neighbours.
    tsPrecision: "ms",
    bizKey: record.bizKey,
    msgId: record.msgId ?? null,
    offsetMsgId: null,
    broker: record.broker,
    topic: record.topic ?? null,
    group: record.group,
    queue: record.queueId ?? null,
    queueOffset: record.queueOffset ?? null,
    instance: canonicalInstance(record.instance).canonical,
    retryTimes: record.retryTimes ?? null,
    redelivered: null,
    success,
    detail: detailOf(record, raw),
    source: ctx.source,
  };
}

export function parseDedupLine(line: string, lineNo: number, ctx: ParseContext): LineResult {
  const raw = parseJsonObject(line);
  if (typeof raw === "string") return { events: [], issue: { line: lineNo, code: "malformed", reason: raw } };
  const parsed = schemaFor(ctx.utcOffset ?? "Z").safeParse(raw);
  if (!parsed.success) return { events: [], issue: { line: lineNo, code: "invalid_field", reason: formatIssues(parsed.error) } };
  return { events: [toEvent(parsed.data, raw, line, ctx)] };
}

/** Never throws for any input text; throws for a ParseContext.utcOffset that is not an offset (configuration). */
export function parse(text: string, ctx: ParseContext): ParseResult {
  return parseLines(text, (line, lineNo) => parseDedupLine(line, lineNo, ctx));
}
