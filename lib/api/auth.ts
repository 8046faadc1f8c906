import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "./errors.ts";

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Ingest is guarded by a bearer token only when DUPSCOPE_INGEST_TOKEN is set, so a laptop demo needs no setup
 * while a shared deployment can refuse writes from strangers. Hashing first makes the comparison constant-time
 * whatever the lengths.
 */
export function requireIngestToken(request: Request, expected: string | undefined = process.env.DUPSCOPE_INGEST_TOKEN): void {
  if (!expected) return;
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const challenge = { "www-authenticate": 'Bearer realm="dupscope-ingest"' };
  if (!match) throw new ApiError("unauthorized", "ingest requires Authorization: Bearer <DUPSCOPE_INGEST_TOKEN>", challenge);
  if (!timingSafeEqual(digest(match[1]!), digest(expected))) throw new ApiError("unauthorized", "ingest token is not valid", challenge);
}
