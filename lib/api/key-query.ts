import { z } from "zod";
import type { RenderOptions } from "../diagnosis/messages.ts";
import { formatIssues } from "../events/validate.ts";
import { asLocale } from "../i18n/locale.ts";
import { CONTEXT_ROWS_SHOWN } from "../queries/context-rows.ts";
import { ApiError } from "./errors.ts";

/**
 * The query of GET /api/v1/keys/{bizKey}. `context` says how many context events to list: the evidence's and the
 * nearest in time up to N (default as many as the key page lists), or `all` of those diagnosis read. A key inside a
 * rebalance storm reads thousands of context lines, and answering them all by default made the API's slowest
 * answers megabytes long.
 */
const keyQuerySchema = z
  .object({
    lang: z
      .string()
      .refine((v) => asLocale(v) !== undefined, "use en or zh-CN")
      .optional(),
    // Real offsets run from UTC−12 to UTC+14.
    utcOffsetMinutes: z.coerce.number().int().min(-720).max(840).optional(),
    context: z
      .union([z.literal("all"), z.coerce.number().int().min(0)])
      .default(CONTEXT_ROWS_SHOWN),
  })
  .strict();

export interface KeyQuery {
  render: RenderOptions;
  /** Context events to list at most; undefined lists all. */
  contextLimit?: number;
}

export function parseKeyQuery(url: URL): KeyQuery {
  const parsed = keyQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new ApiError("unprocessable", formatIssues(parsed.error));
  const { lang, utcOffsetMinutes, context } = parsed.data;
  return {
    render: { locale: asLocale(lang) ?? "en", ...(utcOffsetMinutes !== undefined ? { utcOffsetMinutes } : {}) },
    ...(context !== "all" ? { contextLimit: context } : {}),
  };
}
