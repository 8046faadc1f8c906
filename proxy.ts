import { NextResponse, type NextRequest } from "next/server";
import { authConfig, SESSION_COOKIE, sessionValid } from "./lib/auth/session.ts";
import { asLocale, LANG_HEADER, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from "./lib/i18n/locale.ts";
import { pathParam } from "./lib/format/path-param.ts";
import { contentSecurityPolicy, newNonce } from "./lib/security/headers.ts";
import { getStore } from "./lib/store/index.ts";
import { groupExists, UNKNOWN_GROUP_HEADER } from "./lib/views/group-names.ts";

/**
 * The login gate: with DUPSCOPE_PASSWORD set, every page and read API needs a valid session cookie. Ingest (the
 * OTLP receiver included) stays on its own bearer token (collectors cannot log in), health stays open for load
 * balancers, the metrics endpoint is left to its scraper's network rules, and an acknowledge link from a chat
 * notification carries its own signed credential.
 */

const OPEN: readonly { path: RegExp; methods?: readonly string[] }[] = [
  { path: /^\/login$/ },
  { path: /^\/api\/v1\/session$/, methods: ["POST"] },
  { path: /^\/lang\/[^/]+$/ },
  { path: /^\/api\/health$/ },
  { path: /^\/api\/metrics$/ },
  { path: /^\/api\/v1\/events$/, methods: ["POST"] },
  { path: /^\/api\/v1\/ingest\/[^/]+$/, methods: ["POST"] },
  { path: /^\/v1\/traces$/, methods: ["POST"] },
  // A notification's acknowledge link: its signed token is the credential (lib/alerts/acks.ts).
  { path: /^\/alerts\/ack$/, methods: ["GET"] },
  { path: /^\/api\/v1\/alerts\/acks\/signed$/, methods: ["POST"] },
];

/**
 * A shared link's `?lang=` must reach the root layout too (header, `<html lang>`), and layouts get no query: the
 * language travels on as a request header. It is also remembered as the language switch remembers a choice, so the
 * next click, whose link has no `?lang=`, stays in the language the link opened.
 */
async function pass(request: NextRequest, policy: string): Promise<NextResponse> {
  const headers = new Headers(request.headers);
  // Only the rewrite below names an unknown group; Next.js runs the proxy again for the path it rewrote to.
  if (request.nextUrl.pathname !== NO_ROUTE) headers.delete(UNKNOWN_GROUP_HEADER);
  const lang = asLocale(request.nextUrl.searchParams.get("lang"));
  if (lang) headers.set(LANG_HEADER, lang);
  // Next.js reads the nonce for its own scripts from the request's policy.
  headers.set("content-security-policy", policy);
  const group = await unknownGroup(request);
  if (group !== null) headers.set(UNKNOWN_GROUP_HEADER, encodeURIComponent(group));
  const response = group === null ? NextResponse.next({ request: { headers } }) : NextResponse.rewrite(new URL(NO_ROUTE, request.url), { request: { headers } });
  if (lang && request.cookies.get(LOCALE_COOKIE)?.value !== lang) {
    response.cookies.set(LOCALE_COOKIE, lang, { path: "/", maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: "lax" });
  }
  return response;
}

/**
 * A group page for a name the store knows nothing of is a 404. The page itself cannot answer one: the root
 * loading.tsx starts streaming it with a 200 before it has read anything, so the check runs here, before rendering
 * starts (three index probes), and the request goes on to a path no route matches, whose page (app/not-found.tsx)
 * is a 404 and reads the name from UNKNOWN_GROUP_HEADER to offer similar ones.
 */
const GROUP_PAGE = /^\/groups\/([^/]+)$/;
const NO_ROUTE = "/_unknown-group";

async function unknownGroup(request: NextRequest): Promise<string | null> {
  const match = GROUP_PAGE.exec(request.nextUrl.pathname);
  if (!match || (request.method !== "GET" && request.method !== "HEAD")) return null;
  const group = pathParam(match[1]!);
  return (await groupExists((await getStore()).driver, group)) ? null : group;
}

export async function proxy(request: NextRequest) {
  const policy = contentSecurityPolicy(newNonce());
  const response = await gate(request, policy);
  response.headers.set("content-security-policy", policy);
  return response;
}

async function gate(request: NextRequest, policy: string): Promise<Response> {
  const config = authConfig();
  if (!config) return pass(request, policy);
  const { pathname, search } = request.nextUrl;
  if (OPEN.some((o) => o.path.test(pathname) && (!o.methods || o.methods.includes(request.method)))) return pass(request, policy);
  if (sessionValid(config, request.cookies.get(SESSION_COOKIE)?.value, Date.now())) return pass(request, policy);
  if (pathname.startsWith("/api/")) {
    return Response.json({ error: { code: "unauthorized", message: "sign in first: POST /api/v1/session with the password, or open /login" } }, { status: 401 });
  }
  const login = request.nextUrl.clone();
  login.pathname = "/login";
  login.search = `?${new URLSearchParams({ next: `${pathname}${search}` })}`;
  return NextResponse.redirect(login, 303);
}

export const config = {
  // Static assets carry nothing sensitive, and the login page needs them.
  matcher: ["/((?!_next/static|_next/image|icon.svg|favicon.ico).*)"],
};
