import { ZodError } from "zod";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { formatIssues } from "../events/validate.ts";
import { logger } from "../log.ts";
import { MalformedBodyError, UnsupportedMediaTypeError } from "./ingest-body.ts";

/**
 * The one error contract of the HTTP API: `{error: {code, message}}` with a status from this map. Domain errors
 * (lib/errors.ts) and failed validations become an ApiError in `asApiError`, the only place that decides a status;
 * anything else is a bug or an outage: the client gets a generic 500 and the detail goes to the log.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  too_many_requests: 429,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The status a failure maps to, or undefined for one that is not the client's doing. */
export function asApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  // A query string or JSON body that fails its schema: every problem, by field, in one message.
  if (error instanceof ZodError) return new ApiError("unprocessable", formatIssues(error));
  if (error instanceof InvalidInputError) return new ApiError("unprocessable", error.message);
  if (error instanceof NotFoundError) return new ApiError("not_found", error.message);
  if (error instanceof ConflictError) return new ApiError("conflict", error.message);
  if (error instanceof UnsupportedMediaTypeError) return new ApiError("unsupported_media_type", error.message);
  if (error instanceof MalformedBodyError) return new ApiError("bad_request", error.message);
  if (transientStoreError(error)) return new ApiError("unavailable", "the store could not take this now; retry", { "retry-after": "1" });
  return undefined;
}

/**
 * A store failure that a retry can fix: the connection (refused, reset, timed out, or none free in the pool),
 * PostgreSQL's connection (08), resource (53: a full disk, too many connections) and shutdown (57P) classes, and a transaction it rolled back to break a deadlock or a serialization
 * conflict (40001, 40P01). Everything an ingest writes is idempotent, so the client resending is safe.
 */
export function transientStoreError(error: unknown): boolean {
  // pg-pool's words when every connection stayed busy for connectionTimeoutMillis (lib/store/open.ts).
  if (error instanceof Error && error.message === "timeout exceeded when trying to connect") return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN)$/.test(code) || /^(08|53|57P|40001$|40P01$)/.test(code);
}

export function errorResponse(error: unknown): Response {
  const known = asApiError(error);
  if (known) {
    return Response.json({ error: { code: known.code, message: known.message } }, { status: ERROR_STATUS[known.code], headers: known.headers });
  }
  logger.error({ err: error }, "unhandled API error");
  return Response.json({ error: { code: "internal", message: "internal error; see the server log" } }, { status: 500 });
}

/** Wraps a route handler so every failure leaves through errorResponse. */
export function withApi<Args extends unknown[]>(handler: (...args: Args) => Promise<Response>): (...args: Args) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
