import { authConfig, cookieIsSecure, issueSession, passwordMatches, safeNext, sessionCookie } from "../auth/session.ts";
import { clientAddress, type LoginThrottle } from "../auth/throttle.ts";
import { formatDuration } from "../format/duration.ts";
import { logger } from "../log.ts";
import { ApiError } from "./errors.ts";

/** A wrong password costs this long, so guessing over HTTP is slow. */
const FAILURE_DELAY_MS = 500;

/**
 * POST /api/v1/session: the login form (`password`, `next`; answers with a redirect) or JSON `{password}` for
 * scripts (204 with the cookie, 401 otherwise). `throttle` outlives the request: it counts wrong passwords.
 */
export async function login(request: Request, throttle: LoginThrottle): Promise<Response> {
  const config = authConfig();
  const url = new URL(request.url);
  const isForm = (request.headers.get("content-type") ?? "").includes("application/x-www-form-urlencoded");
  let password = "";
  let next = "/";
  if (isForm) {
    const form = new URLSearchParams(await request.text());
    password = form.get("password") ?? "";
    next = safeNext(form.get("next"));
  } else {
    const body = (await request.json().catch(() => null)) as { password?: unknown } | null;
    if (typeof body?.password !== "string") throw new ApiError("bad_request", 'send {"password": "…"} as JSON, or the login form');
    password = body.password;
  }
  if (!config) return isForm ? redirect(next) : new Response(null, { status: 204 });
  const address = clientAddress(request.headers);
  const admission = throttle.admit(address);
  if (!admission.ok) {
    if (admission.lockedNow) {
      logger.warn({ address: admission.scope === "address" ? address : undefined, scope: admission.scope, retryAfterS: admission.retryAfterS }, "login locked out after too many wrong passwords");
    }
    const retryAfter = { "retry-after": String(admission.retryAfterS) };
    if (!isForm) throw new ApiError("too_many_requests", `too many wrong passwords; try again in ${formatDuration(admission.retryAfterS * 1000)}`, retryAfter);
    return new Response(null, { status: 303, headers: { location: `/login?${new URLSearchParams({ error: "locked", retry: String(admission.retryAfterS), next })}`, ...retryAfter } });
  }
  if (!passwordMatches(config, password)) {
    await new Promise((resolve) => setTimeout(resolve, FAILURE_DELAY_MS));
    if (!isForm) throw new ApiError("unauthorized", "wrong password");
    return redirect(`/login?${new URLSearchParams({ error: "1", next })}`);
  }
  admission.attempt.succeeded();
  const cookie = sessionCookie(issueSession(config, Date.now()), cookieIsSecure(url, request.headers.get("x-forwarded-proto")));
  const response = isForm ? redirect(next) : new Response(null, { status: 204 });
  response.headers.append("set-cookie", cookie);
  return response;
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location } });
}
