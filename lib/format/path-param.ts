/**
 * A dynamic route segment as the user meant it. Next.js hands page params over still percent-encoded, so a key
 * like `订单 7/42%` arrives as `%E8%AE%A2…`; a malformed escape is kept as written rather than failing the page.
 */
export function pathParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
