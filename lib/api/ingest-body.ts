import { LIMITS } from "../events/limits.ts";

/**
 * Splits an ingest body into records without failing the batch: each bad line becomes a rejection with its
 * 1-based line number (for a JSON array: the element's 1-based position), and good lines carry on.
 */

export type BodyFormat = "ndjson" | "json-array";

export interface BodyRecord {
  line: number;
  value: unknown;
}

export interface Rejection {
  line: number;
  reason: string;
}

export interface SplitBody {
  records: BodyRecord[];
  rejected: Rejection[];
}

export class UnsupportedMediaTypeError extends Error {}
export class MalformedBodyError extends Error {}

const NDJSON_TYPES = new Set(["application/x-ndjson", "application/ndjson", "application/jsonl", "application/jsonlines", "application/x-jsonlines"]);

export function bodyFormatFor(contentType: string | null): BodyFormat {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (NDJSON_TYPES.has(mediaType)) return "ndjson";
  if (mediaType === "application/json") return "json-array";
  throw new UnsupportedMediaTypeError(
    `content-type ${mediaType === "" ? "is missing" : `"${mediaType}" is not accepted`}: send application/x-ndjson (one event per line) or application/json (an array of events)`,
  );
}

function describeJsonError(error: unknown): string {
  return `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
}

export function splitNdjson(text: string): SplitBody {
  const records: BodyRecord[] = [];
  const rejected: Rejection[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, "");
    if (raw.trim() === "") continue;
    const bytes = Buffer.byteLength(raw);
    if (bytes > LIMITS.lineBytes) {
      rejected.push({ line: i + 1, reason: `line is ${bytes} bytes; the limit is ${LIMITS.lineBytes}` });
      continue;
    }
    try {
      records.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (error) {
      rejected.push({ line: i + 1, reason: describeJsonError(error) });
    }
  }
  return { records, rejected };
}

export function splitJsonArray(text: string): SplitBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MalformedBodyError(`body is ${describeJsonError(error)}; send a JSON array of events, or NDJSON as application/x-ndjson so that one bad line does not spoil the rest`);
  }
  if (!Array.isArray(parsed)) throw new MalformedBodyError("body must be a JSON array of events");
  return { records: parsed.map((value, i) => ({ line: i + 1, value })), rejected: [] };
}

export function splitBody(text: string, format: BodyFormat): SplitBody {
  return format === "ndjson" ? splitNdjson(text) : splitJsonArray(text);
}
