import { createHmac } from "node:crypto";

/**
 * DingTalk custom robot "加签": HMAC-SHA256 keyed with the secret over `timestamp + "\n" + secret` (timestamp in
 * ms), Base64, sent URL-encoded as the `timestamp` and `sign` query parameters. The robot refuses a timestamp more
 * than an hour off.
 */
export function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac("sha256", secret).update(`${timestampMs}\n${secret}`).digest("base64");
}

export function dingtalkSignedUrl(url: string, secret: string, timestampMs: number): string {
  const signed = new URL(url);
  signed.searchParams.set("timestamp", String(timestampMs));
  signed.searchParams.set("sign", dingtalkSign(secret, timestampMs));
  return signed.toString();
}

/**
 * Feishu/Lark custom bot signature check: HMAC-SHA256 keyed with `timestamp + "\n" + secret` (timestamp in
 * seconds) over an empty message, Base64; `timestamp` and `sign` go in the JSON body.
 */
export function feishuSign(secret: string, timestampSeconds: number): string {
  return createHmac("sha256", `${timestampSeconds}\n${secret}`).update("").digest("base64");
}

/** The generic webhook's optional signature: `sha256=<hex HMAC of the raw body>`, as GitHub-style receivers expect. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
