import type { NormalizedEvent } from "./model.ts";

/**
 * What an event may hold, checked before anything parses it recursively or writes it: a value past one of these
 * is refused with the limit named, on every write path, never a crash or a failed batch.
 *
 * Text: PostgreSQL's `text` and `jsonb` cannot hold U+0000, and `jsonb` refuses unpaired UTF-16 surrogates (`text`
 * would store them as U+FFFD). Such an event is **rejected**, not cleaned: stripping would file its evidence under
 * another business key or instance than the one its source wrote, silently.
 */
export const LIMITS = {
  /** Nesting of objects and arrays in an event, counting the event itself. */
  depth: 32,
  /** Keys of any one object (the event, `detail`, or an object inside it). */
  keysPerObject: 256,
  /** Elements of any one array. */
  arrayLength: 10_000,
  /** `detail` serialized as JSON. */
  detailBytes: 64 * 1024,
  /** Characters of any one string. */
  stringChars: 64 * 1024,
  /** Business keys of one trace record (its KEYS): each becomes an event of its own. */
  keysPerRecord: 100,
  /** Fields of one trace record; the longest layout has 15. */
  fieldsPerRecord: 64,
  /** Bytes of one NDJSON line or log line. */
  lineBytes: 1024 * 1024,
} as const;

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored as it is, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.length > LIMITS.stringChars) return `is ${text.length} characters long; the limit is ${LIMITS.stringChars}`;
  if (text.includes("\u0000")) return "holds a NUL character (U+0000), which PostgreSQL cannot store";
  if (UNPAIRED_SURROGATE.test(text)) return "holds an unpaired UTF-16 surrogate, which is not Unicode text";
  return undefined;
}

const at = (path: string) => (path === "" ? "" : `${path}: `);

/** The characters textProblem has to look at more closely: NUL and any surrogate (a paired one is fine). */
const SUSPECT = /[\u0000\ud800-\udfff]/;

const storableText = (text: string) => text.length <= LIMITS.stringChars && (!SUSPECT.test(text) || textProblem(text) === undefined);

/**
 * Whether a value is within every limit, answered without building the paths valueProblem reports: every stored
 * event passes through here, and the paths cost more than the check. It recurses, but never deeper than one level
 * past LIMITS.depth, where it answers false and valueProblem's iterative walk finds the problem.
 */
function withinLimits(value: unknown, depth: number): boolean {
  if (typeof value === "string") return storableText(value);
  if (value === null || typeof value !== "object") return true;
  if (depth > LIMITS.depth) return false;
  if (Array.isArray(value)) {
    if (value.length > LIMITS.arrayLength) return false;
    for (const element of value) if (!withinLimits(element, depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(value);
  if (keys.length > LIMITS.keysPerObject) return false;
  for (const key of keys) {
    if (!storableText(key) || !withinLimits((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * The first problem of a JSON-like value, walked without recursion (a value nested 100,000 deep must not take the
 * stack with it): too deep, too many keys or elements, a string or key that cannot be stored.
 */
export function valueProblem(value: unknown, rootPath = ""): string | undefined {
  if (withinLimits(value, 1)) return undefined;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: rootPath, depth: 1 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return `${at(item.path)}${problem}`;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (item.depth > LIMITS.depth) return `${at(item.path)}nested deeper than ${LIMITS.depth} levels (the limit)`;
    if (Array.isArray(v)) {
      if (v.length > LIMITS.arrayLength) return `${at(item.path)}has ${v.length} elements; the limit is ${LIMITS.arrayLength}`;
      v.forEach((element, i) => stack.push({ value: element, path: `${item.path}[${i}]`, depth: item.depth + 1 }));
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length > LIMITS.keysPerObject) return `${at(item.path)}has ${keys.length} keys; the limit is ${LIMITS.keysPerObject}`;
    for (const key of keys) {
      const path = item.path === "" ? key : `${item.path}.${key}`;
      const keyProblem = textProblem(key);
      if (keyProblem) return `${at(item.path)}a key ${keyProblem}`;
      stack.push({ value: (v as Record<string, unknown>)[key], path, depth: item.depth + 1 });
    }
  }
  return undefined;
}

/**
 * Detail JSON up to this long cannot hold an object with more keys than the limit: each key takes at least `"k":0,`.
 */
const SHORT_DETAIL_CHARS = 1024;

/** A normalized event's own field names: storable text, so a key among them needs no look at its characters. */
const FIELD_NAMES: ReadonlySet<string> = new Set([
  "id", "kind", "ts", "tsPrecision", "bizKey", "msgId", "offsetMsgId", "broker", "topic", "group",
  "queue", "queueOffset", "instance", "retryTimes", "redelivered", "success", "detail", "source",
] satisfies (keyof NormalizedEvent)[]);

/**
 * Whether an event is surely within every limit, judged from its own values and its detail's JSON instead of a walk
 * of every value: every stored event passes here, and a parser's detail is flat and short. A well-formed
 * JSON.stringify writes NUL and unpaired surrogates as `\u` escapes, so JSON without one holds neither (paired
 * surrogates stay as they are, and are fine); JSON without a nested `{` or `[` is one level deep. Anything else,
 * including those characters inside a value, goes to the full walk, which decides.
 */
function surelyStorable(event: NormalizedEvent, detailJson: string): boolean {
  if (detailJson.length > SHORT_DETAIL_CHARS || detailJson.includes("\\u") || detailJson.indexOf("{", 1) !== -1 || detailJson.includes("[")) return false;
  let keys = 0;
  for (const key in event) {
    if (++keys > LIMITS.keysPerObject || (!FIELD_NAMES.has(key) && !storableText(key))) return false;
    const value = (event as unknown as Record<string, unknown>)[key];
    if (typeof value === "string" ? !storableText(value) : typeof value === "object" && value !== null && key !== "detail") return false;
  }
  return true;
}

/**
 * Why a normalized event cannot be stored as it is, or undefined: the same rules, plus the size of `detail` (its
 * JSON, when the caller has it already).
 */
export function storableProblem(event: NormalizedEvent, detailJson = JSON.stringify(event.detail)): string | undefined {
  if (surelyStorable(event, detailJson)) return undefined;
  const problem = valueProblem(event);
  if (problem) return problem;
  const bytes = Buffer.byteLength(detailJson);
  if (bytes > LIMITS.detailBytes) return `detail: is ${bytes} bytes as JSON; the limit is ${LIMITS.detailBytes}`;
  return undefined;
}
