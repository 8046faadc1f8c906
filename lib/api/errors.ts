import { logger } from "../log.ts";

/**
 * The one error contract of the HTTP API: `{error: {code, message}}` with a status from this map. Anything not
 * an ApiError is a bug or an outage: the client gets a generic 500 and the detail goes to the log.
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

export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) {
    return Response.json({ error: { code: error.code, message: error.message } }, { status: ERROR_STATUS[error.code], headers: error.headers });
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
