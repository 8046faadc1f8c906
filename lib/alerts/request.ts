import type { z } from "zod";
import { ApiError } from "../api/errors.ts";
import { readBodyLimited } from "../api/read-body.ts";
import { formatIssues } from "../events/validate.ts";

/** Rules and channels are small; a larger body is a mistake, not data. */
const MAX_CONFIG_BYTES = 64 * 1024;

/** Reads a JSON body and validates it, failing with the API's error contract (400 for bad JSON, 422 for bad fields). */
export async function parseJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  const text = await readBodyLimited(request, MAX_CONFIG_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError("bad_request", `body is not valid JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError("unprocessable", formatIssues(parsed.error));
  return parsed.data;
}

/** `?limit=` for the history lists: 1–500, 50 by default. */
export function limitParam(url: URL): number {
  const raw = url.searchParams.get("limit");
  if (raw === null) return 50;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 500) throw new ApiError("unprocessable", "limit: must be a whole number from 1 to 500");
  return value;
}
