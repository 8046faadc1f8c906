import { RE2JS } from "re2js";
import { FIELDS, LOG_FORMATS, type Field, type LogFormat, type UserPattern } from "./user-pattern.ts";
import { z } from "zod";
import { canonicalInstance } from "../../lib/events/instance.ts";
import { FACTS, type Fact } from "../../lib/events/facts.ts";
import { BROKERS, type Broker, type DetailValue, type EventKind, type NormalizedEvent } from "../../lib/events/model.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import type { LineParser, LineResult, ParseContext } from "../types.ts";
import { decodeLine, inputOptions, type DecodedLine, type MessageTemplate, type TemplateFinder, type TemplateMatch } from "./log-record.ts";

/**
 * Your own patterns (docs/ingest.md#your-own-patterns): a user maps a regular expression with named groups to an
 * event kind and fields, for the wording of an in-house wrapper or a client nobody supports. A pattern reads only
 * the lines its format skipped, so the built-in templates and signals keep what they read. Expressions are RE2
 * (re2js): matching is linear in the line whatever the pattern, so a pattern written to backtrack cannot stall a
 * batch, and backreferences and lookarounds, which would need backtracking, are refused when the file loads.
 */

const ALL_FACTS = Object.entries(FACTS).flatMap(([kind, actions]) => actions.map((a) => `${kind}/${a}`));

const PatternSchema = z
  .object({
    name: z.string().regex(/^[\w.-]{1,64}$/, "must be 1-64 letters, digits, '.', '_' or '-'"),
    formats: z.array(z.enum(LOG_FORMATS)).min(1).optional(),
    match: z.string().min(1).max(2000),
    event: z
      .object({
        kind: z.enum(Object.keys(FACTS) as [keyof typeof FACTS, ...(keyof typeof FACTS)[]]),
        action: z.string(),
        broker: z.enum(BROKERS).optional(),
      })
      .strict(),
    fields: z.record(z.enum(FIELDS), z.union([z.string().min(1).max(255), z.number()])).optional(),
  })
  .strict();

const FileSchema = z.object({ patterns: z.array(z.unknown()).max(500) }).strict();

export class PatternsError extends Error {}

/** Checks a parsed patterns file; every problem names its pattern, and nothing is returned half-checked. */
export function compilePatterns(value: unknown, where: string): UserPattern[] {
  const file = FileSchema.safeParse(value);
  if (!file.success) throw new PatternsError(`${where}: must be a mapping with a "patterns" list (${file.error.issues[0]?.message ?? "invalid"})`);
  const seen = new Set<string>();
  return file.data.patterns.map((raw, i) => {
    const label = typeof raw === "object" && raw !== null && typeof (raw as { name?: unknown }).name === "string" ? `pattern "${(raw as { name: string }).name}"` : `pattern ${i + 1}`;
    const parsed = PatternSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new PatternsError(`${where}: ${label}: ${issue.path.join(".") || "the entry"}: ${issue.message}`);
    }
    const p = parsed.data;
    if (seen.has(p.name)) throw new PatternsError(`${where}: ${label}: the name is used twice`);
    seen.add(p.name);
    const fact = `${p.event.kind}/${p.event.action}`;
    if (!ALL_FACTS.includes(fact)) {
      throw new PatternsError(`${where}: ${label}: event ${fact} is not a fact dupscope reads; one of: ${ALL_FACTS.join(", ")}`);
    }
    let regex: RE2JS;
    try {
      regex = RE2JS.compile(p.match);
    } catch (error) {
      throw new PatternsError(`${where}: ${label}: match is not an RE2 expression: ${(error as Error).message}`);
    }
    const groups = Object.keys(regex.namedGroups());
    const unknown = groups.filter((g) => !(FIELDS as readonly string[]).includes(g));
    if (unknown.length > 0) throw new PatternsError(`${where}: ${label}: unknown field ${unknown.map((g) => `"${g}"`).join(", ")} in match; fields: ${FIELDS.join(", ")}`);
    return { name: p.name, formats: p.formats ?? null, fact: fact as Fact, broker: p.event.broker ?? null, regex, groups: groups as Field[], constants: p.fields ?? {} };
  });
}

interface Draft {
  pattern: UserPattern;
  values: Partial<Record<Field, string>>;
}

/** The format's broker, when a pattern names none. */
const BROKER_OF: Record<LogFormat, Broker> = {
  "rocketmq-client-log": "rocketmq",
  "rocketmq-broker-log": "rocketmq",
  "kafka-client-log": "kafka",
  "rabbitmq-server-log": "rabbitmq",
  "rabbitmq-client-log": "rabbitmq",
};

/** The patterns as a template finder: the first pattern (in file order) that occurs in the line. */
function finder(patterns: readonly UserPattern[]): TemplateFinder<Draft> {
  const templates: MessageTemplate<Draft>[] = patterns.map((pattern) => ({
    name: `pattern:${pattern.name}`,
    head: /$^/,
    wording: pattern.regex.toString(),
    read: () => undefined,
  }));
  return {
    find(text: string): TemplateMatch<Draft> | undefined {
      for (let i = 0; i < patterns.length; i++) {
        const pattern = patterns[i]!;
        const m = pattern.regex.matcher(text);
        if (!m.find()) continue;
        const values: Partial<Record<Field, string>> = {};
        for (const g of pattern.groups) {
          const v = m.group(g);
          if (v !== null && v !== "") values[g] = v;
        }
        const draft: Draft = { pattern, values };
        return { template: { ...templates[i]!, read: () => [draft] }, index: m.start(), message: text.slice(m.start()) };
      }
      return undefined;
    },
  };
}

function eventOf(draft: Draft, line: DecodedLine, format: LogFormat, ctx: ParseContext): NormalizedEvent {
  const { pattern } = draft;
  const value = (f: Field): string | number | undefined => draft.values[f] ?? pattern.constants[f];
  const text = (f: Field) => {
    const v = value(f);
    return v === undefined ? null : String(v).slice(0, 255);
  };
  const num = (f: Field) => {
    const v = Number(value(f));
    return value(f) !== undefined && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  };
  const [kind, action] = pattern.fact.split("/") as [EventKind, string];
  const broker = pattern.broker ?? BROKER_OF[format];
  const partition = num("partition");
  const topic = text("topic");
  // Kafka names a partition `topic-N`; a RocketMQ queue (`broker:id`) or a RabbitMQ one comes whole, as `queue`.
  const queue = text("queue") ?? (broker === "kafka" && topic !== null && partition !== undefined ? `${topic}-${partition}` : null);
  const who = text("instance") ?? ctx.instance ?? line.envelope.host ?? null;
  const detail: Record<string, DetailValue> = { action, template: `pattern:${pattern.name}`, pattern: pattern.name };
  for (const f of ["clientId", "memberId", "reason", "exception", "connection", "consumerTag", "vhost"] as const) {
    const v = text(f);
    if (v !== null) detail[f] = v;
  }
  for (const f of ["generation", "channel", "timeoutMs"] as const) {
    const v = num(f);
    if (v !== undefined) detail[f === "generation" ? "generationId" : f] = v;
  }
  if (partition !== undefined) detail.partition = partition;
  if (line.level) detail.level = line.level;
  if (line.time.dateFrom) detail.dateFrom = line.time.dateFrom;
  if (line.time.timeFrom) detail.timeFrom = line.time.timeFrom;
  return {
    id: recordFingerprint(format, line.raw, `pattern:${pattern.name}`),
    kind,
    ts: line.time.ts,
    tsPrecision: line.time.precision,
    bizKey: text("bizKey"),
    msgId: text("msgId"),
    offsetMsgId: null,
    broker,
    topic,
    group: text("group"),
    queue,
    queueOffset: null,
    instance: who === null ? null : canonicalInstance(who).canonical,
    retryTimes: null,
    redelivered: null,
    success: null,
    detail,
    source: ctx.source,
  };
}

/**
 * A format's parser with the user's patterns over the lines it skipped: a skipped line that a pattern matches gives
 * the pattern's event instead. Without patterns for the format, the parser itself.
 */
export function withUserPatterns(format: LogFormat, defaultOffset: string, open: (ctx: ParseContext) => LineParser): (ctx: ParseContext) => LineParser {
  return (ctx) => {
    const parser = open(ctx);
    const mine = (ctx.patterns ?? []).filter((p) => p.formats === null || p.formats.includes(format));
    if (mine.length === 0) return parser;
    const find = finder(mine);
    const options = inputOptions(ctx, defaultOffset);
    const tryPatterns = (text: string, lineNo: number, result: LineResult): LineResult => {
      if (!result.skipped) return result;
      const decoded = decodeLine(text, find, options);
      if (decoded.kind === "none") return result;
      if (decoded.kind === "bad_time") return { events: [], issue: { line: lineNo, code: "invalid_field", reason: `${decoded.match.template.name}: ${decoded.reason}` } };
      const [draft] = decoded.match.template.read(decoded.match.message, decoded.line) as Draft[];
      // The result may carry the events of the record before this line (released now): they stay, with their lines.
      const lines = [...result.events.map((_, i) => result.lines?.[i] ?? lineNo), lineNo];
      const merged: LineResult = { events: [...result.events, eventOf(draft!, decoded.line, format, ctx)], lines };
      if (result.issue) merged.issue = result.issue;
      return merged;
    };
    return { line: (text, lineNo) => tryPatterns(text, lineNo, parser.line(text, lineNo)), end: () => parser.end() };
  };
}
