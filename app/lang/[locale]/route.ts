import { asLocale, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from "@/lib/i18n/locale.ts";

export const dynamic = "force-dynamic";

/**
 * The language switch: remembers the choice in a cookie and goes back to the page it was clicked on. A plain link,
 * so it works without JavaScript; only a same-origin path is followed back.
 */
export async function GET(request: Request, { params }: { params: Promise<{ locale: string }> }) {
  const locale = asLocale((await params).locale) ?? "en";
  let back = "/";
  const referer = request.headers.get("referer");
  // The Host the browser used: request.url may name the address the server listens on instead.
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  if (referer && host) {
    try {
      const from = new URL(referer);
      if (from.host === host) {
        from.searchParams.delete("lang");
        back = `${from.pathname}${from.search}`;
      }
    } catch {
      // Not a URL: go home.
    }
  }
  const response = new Response(null, { status: 303, headers: { location: back } });
  response.headers.append("set-cookie", `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=${LOCALE_COOKIE_MAX_AGE_S}; SameSite=Lax`);
  return response;
}
