import type { z } from "zod";
import { ApiError } from "./errors.ts";
import { readBodyLimited } from "./read-body.ts";

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
  return schema.parse(value);
}

