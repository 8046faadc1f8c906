import type { z } from "zod";
import { contentFingerprint } from "./content-fingerprint.ts";
import { valueProblem } from "./limits.ts";
import { eventInputSchema, type NormalizedEvent } from "./model.ts";

export type ValidationResult = { ok: true; event: NormalizedEvent } | { ok: false; reason: string };

/** Every problem of one event in one sentence, e.g. `ts: is outside …; broker: Invalid option …`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

export function validateEvent(input: unknown): ValidationResult {
  // Before zod, whose recursion a value nested thousands deep would overflow.
  const problem = valueProblem(input);
  if (problem) return { ok: false, reason: problem };
  const parsed = eventInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error) };
  const { id, ...rest } = parsed.data;
  return { ok: true, event: { id: id ?? contentFingerprint(rest), ...rest } };
}
