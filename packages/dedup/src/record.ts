/**
 * Dedup log v1 records (docs/dedup-log.md): their fields, the checks the dupscope collector applies to them, and
 * their one-line JSON form. Kept in step with collectors/dedup-log/parse.ts by tests, not by an import: this folder
 * is published on its own (`@dupscope/dedup`) and may depend on nothing but Node.
 */

export const DEDUP_LAYERS = ["bloom", "redis", "db", "state", "none"] as const;
export type DedupLayer = (typeof DEDUP_LAYERS)[number];

export const DEDUP_DECISIONS = ["pass", "hit", "executed", "failed", "released"] as const;
export type DedupDecision = (typeof DEDUP_DECISIONS)[number];

export const BROKERS = ["rocketmq", "rabbitmq", "kafka"] as const;
export type Broker = (typeof BROKERS)[number];

/** One line of the dedup log, as written. `ts` is epoch milliseconds. */
export interface DedupLine {
  ts: number;
  bizKey: string;
  msgId?: string | undefined;
  group: string;
  topic?: string | undefined;
  instance: string;
  broker?: Broker | undefined;
  layer: DedupLayer;
  decision: DedupDecision;
  retryTimes?: number | undefined;
  queueId?: string | number | undefined;
  queueOffset?: number | undefined;
  dedupKey?: string | undefined;
  ttlMs?: number | undefined;
  error?: string | undefined;
}

/** The collector keeps this much of `error`; the emitter cuts there too, so a stack trace cannot make a line huge. */
export const MAX_ERROR_CHARS = 2000;

/** 2000-01-01 and 2100-01-01 UTC: the collector rejects timestamps outside. */
export const MIN_TS = 946_684_800_000;
export const MAX_TS = 4_102_444_800_000;

/** A record that would not be a valid v1 line. Thrown before anything is written or any layer is asked. */
export class DedupLogError extends TypeError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[], what: "record" | "options" = "record") {
    super(`invalid dedup log ${what}: ${problems.join("; ")}`);
    this.name = "DedupLogError";
    this.problems = problems;
  }
}

const LIMITS = { bizKey: 512, msgId: 128, group: 255, topic: 255, instance: 255, dedupKey: 512, queueId: 255 } as const;

type Problems = string[];

function text(problems: Problems, name: keyof typeof LIMITS, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) problems.push(`${name}: is required`);
    return;
  }
  if (typeof value !== "string") return void problems.push(`${name}: must be a string`);
  // The collector trims before it measures.
  const trimmed = value.trim();
  if (trimmed.length === 0) problems.push(`${name}: must not be empty`);
  else if (trimmed.length > LIMITS[name]) problems.push(`${name}: must be at most ${LIMITS[name]} characters`);
}

function wholeNumber(problems: Problems, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) problems.push(`${name}: must be a whole number`);
  else if (value < 0) problems.push(`${name}: must not be negative`);
}

function oneOf(problems: Problems, name: string, value: unknown, allowed: readonly string[], required: boolean): void {
  if (value === undefined || value === null) {
    if (required) problems.push(`${name}: is required`);
    return;
  }
  if (typeof value !== "string" || !allowed.includes(value)) problems.push(`${name}: must be one of ${allowed.join(", ")}`);
}

/** Every reason the dupscope collector would reject this record (empty when it would accept it). */
export function lineProblems(line: DedupLine): string[] {
  const problems: Problems = [];
  if (typeof line.ts !== "number" || !Number.isFinite(line.ts)) problems.push("ts: must be epoch milliseconds");
  else if (line.ts < MIN_TS || line.ts >= MAX_TS) problems.push("ts: is outside 2000-01-01..2100-01-01 (epoch milliseconds expected)");
  text(problems, "bizKey", line.bizKey, true);
  text(problems, "msgId", line.msgId, false);
  text(problems, "group", line.group, true);
  text(problems, "topic", line.topic, false);
  text(problems, "instance", line.instance, true);
  oneOf(problems, "broker", line.broker, BROKERS, false);
  oneOf(problems, "layer", line.layer, DEDUP_LAYERS, true);
  oneOf(problems, "decision", line.decision, DEDUP_DECISIONS, true);
  wholeNumber(problems, "retryTimes", line.retryTimes);
  if (typeof line.queueId === "number") wholeNumber(problems, "queueId", line.queueId);
  else text(problems, "queueId", line.queueId, false);
  wholeNumber(problems, "queueOffset", line.queueOffset);
  text(problems, "dedupKey", line.dedupKey, false);
  wholeNumber(problems, "ttlMs", line.ttlMs);
  if (line.error !== undefined && line.error !== null && typeof line.error !== "string") problems.push("error: must be a string");
  if (line.layer === "none" && (line.decision === "hit" || line.decision === "released")) {
    problems.push(`layer: must name the layer that holds the marker when decision is ${line.decision}`);
  }
  return problems;
}

export function cutError(error: string): string {
  return error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
}

/**
 * The record as one line of JSON (no trailing newline), fields in the order of docs/dedup-log.md, absent ones left
 * out. Throws DedupLogError for a record the collector would reject.
 */
export function formatDedupLine(line: DedupLine): string {
  const problems = lineProblems(line);
  if (problems.length > 0) throw new DedupLogError(problems);
  const out: Record<string, string | number> = { ts: Math.floor(line.ts), bizKey: line.bizKey };
  const put = (key: keyof DedupLine, value: string | number | undefined | null) => {
    if (value !== undefined && value !== null) out[key] = value;
  };
  put("msgId", line.msgId);
  out.group = line.group;
  put("topic", line.topic);
  out.instance = line.instance;
  put("broker", line.broker);
  out.layer = line.layer;
  out.decision = line.decision;
  put("retryTimes", line.retryTimes);
  put("queueId", line.queueId);
  put("queueOffset", line.queueOffset);
  put("dedupKey", line.dedupKey);
  put("ttlMs", line.ttlMs);
  put("error", line.error === undefined || line.error === null ? undefined : cutError(line.error));
  return JSON.stringify(out);
}
