import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Login for the UI and read APIs when DUPSCOPE_PASSWORD is set (issue: business keys are order and user ids).
 * The session is a signed token, not server state: `<expiresAt>.<nonce>.<HMAC-SHA256>`, so any number of server
 * processes accept it without a shared store, and changing the password (or DUPSCOPE_SESSION_SECRET) ends every
 * session at once.
 */

export const SESSION_COOKIE = "dupscope_session";
export const SESSION_TTL_MS = 12 * 3_600_000;

export interface AuthConfig {
  password: string;
  /** HMAC key of the session tokens. */
  secret: Buffer;
}

/** Undefined when no password is set: the UI is open, as on a laptop demo. */
export function authConfig(env: Record<string, string | undefined> = process.env): AuthConfig | undefined {
  const password = env.DUPSCOPE_PASSWORD;
  if (!password) return undefined;
  const secret = env.DUPSCOPE_SESSION_SECRET
    ? createHash("sha256").update(env.DUPSCOPE_SESSION_SECRET).digest()
    : createHash("sha256").update(`dupscope-session\0${password}`).digest();
  return { password, secret };
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Constant-time whatever the lengths: both sides are hashed first. */
export function passwordMatches(config: AuthConfig, given: string): boolean {
  return timingSafeEqual(digest(given), digest(config.password));
}

function signature(config: AuthConfig, payload: string): string {
  return createHmac("sha256", config.secret).update(payload).digest("base64url");
}

export function issueSession(config: AuthConfig, now: number, ttlMs = SESSION_TTL_MS): string {
  const payload = `${now + ttlMs}.${randomBytes(12).toString("base64url")}`;
  return `${payload}.${signature(config, payload)}`;
}

export function sessionValid(config: AuthConfig, token: string | undefined, now: number): boolean {
  if (!token) return false;
  const parts = token.split(".");
  if (parts.length !== 3) return false;
  const [expires, nonce, sig] = parts as [string, string, string];
  if (!/^\d+$/.test(expires) || Number(expires) <= now) return false;
  const expected = Buffer.from(signature(config, `${expires}.${nonce}`));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `Secure` keeps the cookie off plain HTTP, where anyone on the path could copy it. Browsers treat loopback as
 * secure, so a laptop on http://localhost works; anything else needs HTTPS (directly or behind a TLS proxy that
 * sets X-Forwarded-Proto).
 */
export function cookieIsSecure(url: URL, forwardedProto: string | null): boolean {
  const https = url.protocol === "https:" || forwardedProto?.split(",")[0]?.trim() === "https";
  return https || !isLoopback(url.hostname);
}

export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export function sessionCookie(token: string, secure: boolean, maxAgeMs = SESSION_TTL_MS): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** Where to go after login: a path on this site only, never `//evil.example` or `https://…`. */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}
