/**
 * The languages dupscope speaks, and which one a request gets: `?lang=` (a shared link), then the switch's cookie,
 * then the browser's Accept-Language, then English. Pure and import-free, so the proxy, pages, route handlers and
 * lib/format decide alike.
 */

/** English and Simplified Chinese (many RocketMQ users read Chinese first). */
export type Locale = "en" | "zh-CN";

export const LOCALE_COOKIE = "dupscope_lang";
/** A year: the choice is a reader's, not a session's. */
export const LOCALE_COOKIE_MAX_AGE_S = 31_536_000;
/** Set by proxy.ts from `?lang=`, for the layout, which cannot read the query. */
export const LANG_HEADER = "x-dupscope-lang";

export function asLocale(value: string | null | undefined): Locale | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  if (v === "en" || v.startsWith("en-")) return "en";
  if (v === "zh" || v === "zh-cn" || v.startsWith("zh-hans") || v === "zh-sg") return "zh-CN";
  return undefined;
}

export function pickLocale(o: { query?: string | null; cookie?: string | null; acceptLanguage?: string | null }): Locale {
  const fromHeader = (o.acceptLanguage ?? "")
    .split(",")
    .map((part) => part.split(";")[0]!.trim())
    .map(asLocale)
    .find((l) => l !== undefined);
  return asLocale(o.query) ?? asLocale(o.cookie) ?? fromHeader ?? "en";
}
