/**
 * The browser-facing protections every response carries. Scripts run only with the request's nonce (Next.js puts
 * it on its own scripts when the request carries the policy), so an injected `<script>` does nothing; style
 * attributes stay allowed because React and the charts position elements with them, not with script. The headers
 * that need no nonce (nosniff, Referrer-Policy, X-Frame-Options) are set for every path in next.config.js.
 */

/** A fresh nonce per request: 128 random bits, base64. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

export function contentSecurityPolicy(nonce: string, development = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    // React's development build evaluates code for its error overlays; production needs no eval.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
