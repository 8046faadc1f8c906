import type { Locale } from "../diagnosis/messages.ts";

/**
 * Which language a request gets: `?lang=` (a shared link), then the switch's cookie, then the browser's
 * Accept-Language, then English. Pure, so the proxy, pages and route handlers decide alike.
 */

export const LOCALE_COOKIE = "dupscope_lang";
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
