import { clearedSessionCookie, cookieIsSecure } from "@/lib/auth/session.ts";

export const dynamic = "force-dynamic";

/** The header's sign-out button posts here: the cookie is cleared and the login page shown. */
export async function POST(request: Request) {
  const response = new Response(null, { status: 303, headers: { location: "/login" } });
  response.headers.append("set-cookie", clearedSessionCookie(cookieIsSecure(new URL(request.url), request.headers.get("x-forwarded-proto"))));
  return response;
}
