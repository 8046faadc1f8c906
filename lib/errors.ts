/**
 * Failures the domain names without knowing about HTTP. The API's `withApi` (lib/api/errors.ts) maps each to a
 * status in one place, so stores, alerts and read models throw these and never a status code.
 */

/** The thing asked for does not exist (a rule, a channel, a key with no events). */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** The request is well formed but asks for something the current state forbids (demo data into a full store). */
export class ConflictError extends Error {
  override name = "ConflictError";
}

/** A field's value is invalid for a reason a schema cannot see (a name taken, a channel id that does not exist). */
export class InvalidInputError extends Error {
  override name = "InvalidInputError";
}
