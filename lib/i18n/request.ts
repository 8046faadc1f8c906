import { cookies, headers } from "next/headers";
import { dictionary, type Dictionary } from "./dictionary.ts";
import { LANG_HEADER, LOCALE_COOKIE, pickLocale, type Locale } from "./locale.ts";

/** The locale of the request being rendered (server components and route handlers only). */
export async function requestLocale(query?: string | string[]): Promise<Locale> {
  const [jar, head] = await Promise.all([cookies(), headers()]);
  return pickLocale({ query: (Array.isArray(query) ? query[0] : query) ?? head.get(LANG_HEADER), cookie: jar.get(LOCALE_COOKIE)?.value, acceptLanguage: head.get("accept-language") });
}

export async function requestText(query?: string | string[]): Promise<{ locale: Locale; t: Dictionary }> {
  const locale = await requestLocale(query);
  return { locale, t: dictionary(locale) };
}
