import { z } from "zod";
import { CAUSES, OUTCOMES } from "../diagnosis/vocabulary.ts";
import type { RenderOptions } from "../i18n/diagnosis-text.ts";
import { asLocale } from "../i18n/locale.ts";
import { CONTEXT_ROWS_SHOWN } from "../views/context-rows.ts";
import { ApiError } from "./errors.ts";

/**
 * The query strings of the read API. Each is a strict schema: an unknown or malformed parameter fails the request
 * with 422 and every problem named (withApi maps the ZodError), rather than being ignored.
 */

function fromSearch<S extends z.ZodType>(url: URL, schema: S): z.output<S> {
  return schema.parse(Object.fromEntries(url.searchParams));
}

/** Epoch milliseconds or an ISO-8601 time with its offset. */
const time = z.union([z.string().regex(/^\d+$/).transform(Number), z.iso.datetime({ offset: true }).transform((v) => Date.parse(v))]);
const name = z.string().min(1).max(255);

/**
 * GET /api/v1/keys/{bizKey}. `context` says how many context events to list: the evidence's and the nearest in
 * time up to N (default as many as the key page lists), or `all` of those diagnosis read. A key inside a rebalance
 * storm reads thousands of context lines, and answering them all by default made the API's slowest answers
 * megabytes long.
 */
const keyQuerySchema = z
  .object({
    lang: z
      .string()
      .refine((v) => asLocale(v) !== undefined, "use en or zh-CN")
      .optional(),
    // Real offsets run from UTC−12 to UTC+14.
    utcOffsetMinutes: z.coerce.number().int().min(-720).max(840).optional(),
    context: z.union([z.literal("all"), z.coerce.number().int().min(0)]).default(CONTEXT_ROWS_SHOWN),
  })
  .strict();

export interface KeyQuery {
  render: RenderOptions;
  /** Context events to list at most; undefined lists all. */
  contextLimit?: number;
}

export function parseKeyQuery(url: URL): KeyQuery {
  const { lang, utcOffsetMinutes, context } = fromSearch(url, keyQuerySchema);
  return {
    render: { locale: asLocale(lang) ?? "en", ...(utcOffsetMinutes !== undefined ? { utcOffsetMinutes } : {}) },
    ...(context !== "all" ? { contextLimit: context } : {}),
  };
}

/** GET /api/v1/duplicates and /api/v1/duplicates.csv. */
const duplicatesQuerySchema = z
  .object({
    from: time.optional(),
    to: time.optional(),
    group: name.optional(),
    topic: name.optional(),
    cause: z.enum(CAUSES).optional(),
    outcome: z.enum(OUTCOMES).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().regex(/^\d+:.+$/, "is not a cursor from a previous page").optional(),
  })
  .strict();

export type DuplicatesQuery = z.output<typeof duplicatesQuerySchema>;

export function parseDuplicatesQuery(url: URL): DuplicatesQuery {
  return fromSearch(url, duplicatesQuerySchema);
}

/** GET /api/v1/keys: the keys that start with `prefix` (a partial key). */
const keyPrefixQuerySchema = z.object({ prefix: name }).strict();

export function parseKeyPrefixQuery(url: URL): string {
  return fromSearch(url, keyPrefixQuerySchema).prefix;
}

/** GET /api/v1/findings. */
const findingsQuerySchema = z.object({ from: time.optional(), to: time.optional(), group: name.optional(), lang: z.enum(["en", "zh-CN"]).optional() }).strict();

export function parseFindingsQuery(url: URL): z.output<typeof findingsQuerySchema> {
  return fromSearch(url, findingsQuerySchema);
}

/** `?limit=` for the alert history lists: 1–500, 50 by default. */
export function limitParam(url: URL): number {
  const raw = url.searchParams.get("limit");
  if (raw === null) return 50;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 500) throw new ApiError("unprocessable", "limit: must be a whole number from 1 to 500");
  return value;
}
