import { createHash } from "node:crypto";
import type { NormalizedEvent } from "./model.ts";

/** Serializes with sorted object keys so that two equal events always hash alike, whatever the key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * The id of an event posted without one: a hash of everything it says, so re-posting the same event is a no-op
 * while two events that differ in any field stay apart. Collectors fingerprint the source record instead
 * (file, offset, raw line), which is stabler than the parsed content across parser versions.
 */
export function contentFingerprint(event: Omit<NormalizedEvent, "id">): string {
  return `sha256:${createHash("sha256").update(canonicalJson(event)).digest("hex").slice(0, 40)}`;
}
