import { hash } from "node:crypto";

/**
 * The id of an event parsed from a source record: a hash of the format, the record's own text and whatever
 * identifies it inside the record (record index in a trace body, event role). Hashing the raw record rather than
 * the parsed event keeps ids stable when a parser learns to extract more fields, and re-reading a rotated or
 * re-shipped file gives the same ids, so ingest stays idempotent.
 */
export function recordFingerprint(format: string, ...parts: (string | number | undefined)[]): string {
  let input = format;
  for (const part of parts) input += `\u0000${part ?? ""}`;
  // The one-shot hash avoids a Hash object per record: it is on the ingest hot path.
  return `${format}:${hash("sha256", input, "hex").slice(0, 32)}`;
}
