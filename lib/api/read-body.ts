import { ApiError } from "./errors.ts";

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export function maxBodyBytes(env: Record<string, string | undefined> = process.env): number {
  const raw = env.DUPSCOPE_MAX_BODY_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_BODY_BYTES;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`DUPSCOPE_MAX_BODY_BYTES must be a positive whole number of bytes, got "${raw}"`);
  return value;
}

export function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `body exceeds ${limit} bytes (DUPSCOPE_MAX_BODY_BYTES); split it into smaller batches`);
}

/**
 * Reads a request body as UTF-8, refusing it as soon as it passes `limit` bytes so a huge or endless upload
 * costs at most `limit` bytes of memory. A declared Content-Length over the limit is refused before reading.
 */
export async function readBodyLimited(request: Request, limit: number): Promise<string> {
  return new TextDecoder("utf-8").decode(await readBytesLimited(request, limit));
}

/** The same, as bytes: for binary bodies (OTLP protobuf) and compressed ones. */
export async function readBytesLimited(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
