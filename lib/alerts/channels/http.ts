import { OutboundRefused, outboundPost, type OutboundResponse } from "../../net/outbound.ts";

/** A delivery that failed, with a reason a person can act on (shown in the UI and the API). */
export class DeliveryError extends Error {}

const TIMEOUT_MS = 10_000;
/** Robots answer a few hundred bytes; more is read no further. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs JSON and accepts the answer only when `accept` does: chat robots answer HTTP 200 with an error code in
 * the body when a token is wrong or a signature is stale, so a 200 alone does not mean delivered.
 */
export async function postJson(url: string, body: string, headers: Record<string, string> = {}, accept: (text: string) => string | null = () => null): Promise<void> {
  let response: OutboundResponse;
  try {
    // Redirects are not followed: a robot that redirects is misconfigured, and a redirect could lead anywhere.
    response = await outboundPost(url, body, {
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  } catch (error) {
    if (error instanceof OutboundRefused) throw new DeliveryError(`POST ${redact(url)} refused: ${error.message}`);
    throw new DeliveryError(`POST ${redact(url)} failed: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
  const text = response.text;
  if (response.status < 200 || response.status > 299) throw new DeliveryError(`POST ${redact(url)} answered ${response.status}: ${text.slice(0, 300)}`);
  const problem = accept(text);
  if (problem) throw new DeliveryError(`POST ${redact(url)} refused: ${problem}`);
}

/** Robot URLs carry their token in the query; errors are shown in the UI, so the query is dropped. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? "?…" : ""}`;
  } catch {
    return "(invalid URL)";
  }
}

/** DingTalk and WeCom answer `{"errcode":0,"errmsg":"ok"}`; Feishu `{"code":0,"msg":"success"}` (older: StatusCode). */
export function jsonCodeIsZero(text: string): string | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const code = parsed.errcode ?? parsed.code ?? parsed.StatusCode;
  if (code === undefined || code === 0) return null;
  return `code ${String(code)}: ${String(parsed.errmsg ?? parsed.msg ?? parsed.StatusMessage ?? "")}`;
}
