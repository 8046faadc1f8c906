import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { findFormat, formatNames, type CollectorFormat, type TemplateWording } from "../collectors/registry.ts";
import { sniffFormat, UnknownFormatError } from "../collectors/sniff.ts";
import { lineOfEvent, type LineResult, type ParseContext } from "../collectors/types.ts";
import { parseUtcOffset } from "../collectors/codecs/log-time.ts";
import type { NormalizedEvent } from "../lib/events/model.ts";
import { readLines } from "../lib/ingest/line-reader.ts";
import { readPatterns, UsageError } from "./ingest.ts";

/**
 * `dupscope explain <file|->`: what each line of an input became — the format and template that matched and the
 * fields read, the record it continues, why it was rejected, or, for a line nothing matched, the template whose
 * words it shares most. What a user runs when a verdict says "no rebalance data".
 */

export interface ExplainOptions {
  format: string;
  instance?: string;
  utcOffset?: string;
  date?: string;
  json?: boolean;
  maxLines: number;
  patterns?: string;
}

export interface ExplainedEvent {
  kind: string;
  action?: string;
  template?: string;
  ts: string;
  group: string | null;
  topic: string | null;
  queue: string | null;
  instance: string | null;
  msgId: string | null;
  exception?: string;
  /** A dedup decision's (dedup log, docs/dedup-log.md): the business key, the layer, what it decided, its marker. */
  bizKey?: string | null;
  layer?: string;
  decision?: string;
  dedupKey?: string;
}

export type LineStatus = "event" | "continuation" | "skipped" | "rejected" | "blank" | "unreadable";

export interface ExplainedLine {
  line: number;
  text: string;
  status: LineStatus;
  events?: ExplainedEvent[];
  /** For a continuation: the line whose record it belongs to. */
  continues?: number;
  reason?: string;
  closest?: { template: string; wording: string; shared: number; of: number };
}

export interface Explanation {
  format: string;
  lines: ExplainedLine[];
  counts: Record<LineStatus, number>;
}

const WORD = /[A-Za-z][A-Za-z-]{2,}/g;

function words(text: string): Set<string> {
  return new Set([...text.replace(/\{[^}]*\}/g, " ").matchAll(WORD)].map((m) => m[0].toLowerCase()));
}

/** The template whose fixed words the line shares most, when it shares at least half of them (and two or more). */
export function closestTemplate(text: string, templates: readonly TemplateWording[]): ExplainedLine["closest"] {
  const inLine = words(text);
  let best: ExplainedLine["closest"];
  for (const t of templates) {
    const fixed = words(t.wording);
    if (fixed.size === 0) continue;
    const shared = [...fixed].filter((w) => inLine.has(w)).length;
    if (shared >= 2 && shared / fixed.size >= 0.5 && (best === undefined || shared / fixed.size > best.shared / best.of)) {
      best = { template: t.name, wording: t.wording, shared, of: fixed.size };
    }
  }
  return best;
}

function summarise(event: NormalizedEvent): ExplainedEvent {
  const text = (key: string) => (typeof event.detail[key] === "string" ? (event.detail[key] as string) : undefined);
  const decision = text("decision");
  // A dedup line says what one layer decided about one business key: without the key, the layer and the decision
  // the line tells nothing.
  const dedup = decision === undefined ? {} : { bizKey: event.bizKey, layer: text("layer"), decision, dedupKey: text("dedupKey") };
  return {
    kind: event.kind,
    action: text("action") ?? text("traceRecord"),
    template: text("template"),
    ts: new Date(event.ts).toISOString(),
    group: event.group,
    topic: event.topic,
    queue: event.queue,
    instance: event.instance,
    msgId: event.msgId,
    exception: text("exception"),
    ...dedup,
  };
}

/** Explains every line of `lines` as `format` would read them. Pure: no I/O. */
export function explainLines(lines: readonly string[], format: CollectorFormat, ctx: ParseContext): Explanation {
  const parser = format.open(ctx);
  const out: ExplainedLine[] = lines.map((text, i) => ({ line: i + 1, text, status: text.trim() === "" ? "blank" : "skipped" }));
  let recordStart = 0;
  const apply = (result: LineResult, lineNo: number) => {
    result.events.forEach((event, i) => {
      const at = out[lineOfEvent(result, i, lineNo) - 1]!;
      at.status = "event";
      at.events = [...(at.events ?? []), summarise(event)];
    });
    if (result.issue) {
      const at = out[result.issue.line - 1]!;
      if (at.status !== "event") {
        at.status = "rejected";
        at.reason = `${result.issue.code}: ${result.issue.reason}`;
      }
    }
  };
  lines.forEach((text, i) => {
    if (text.trim() === "") return;
    const result = parser.line(text, i + 1);
    const here = out[i]!;
    if (result.continuation) {
      here.status = "continuation";
      here.continues = recordStart;
    } else {
      recordStart = i + 1;
    }
    apply(result, i + 1);
  });
  apply(parser.end(), lines.length);
  for (const line of out) {
    if (line.status !== "skipped") continue;
    const closest = format.templates && closestTemplate(line.text, format.templates);
    if (closest) line.closest = closest;
    line.reason = format.templates ? `no template of ${format.name} matches` : `not a ${format.name} record`;
  }
  const counts: Record<LineStatus, number> = { event: 0, continuation: 0, skipped: 0, rejected: 0, blank: 0, unreadable: 0 };
  for (const line of out) counts[line.status]++;
  return { format: format.name, lines: out, counts };
}

function fields(e: ExplainedEvent): string {
  const parts = [`ts=${e.ts}`];
  const named = [
    ["key", e.bizKey],
    ["group", e.group],
    ["topic", e.topic],
    ["queue", e.queue],
    ["instance", e.instance],
    ["msgId", e.msgId],
    ["layer", e.layer],
    ["dedupKey", e.dedupKey],
    ["exception", e.exception],
  ] as const;
  for (const [name, value] of named) {
    if (value !== null && value !== undefined) parts.push(`${name}=${value}`);
  }
  return parts.join(" ");
}

export function formatExplanation(explanation: Explanation): string[] {
  const width = String(explanation.lines.length).length;
  const rows: string[] = [`format: ${explanation.format}`];
  for (const line of explanation.lines) {
    const no = String(line.line).padStart(width);
    switch (line.status) {
      case "blank":
        break;
      case "event":
        // A dedup line has no action or template of its own: its decision stands where the action would.
        for (const e of line.events!) rows.push(`${no}  ${e.kind}/${e.action ?? e.decision ?? "-"}  ${e.template ?? ""}  ${fields(e)}`);
        break;
      case "continuation":
        rows.push(`${no}  continues line ${line.continues}`);
        break;
      case "rejected":
      case "unreadable":
        rows.push(`${no}  rejected: ${line.reason}`);
        break;
      case "skipped":
        rows.push(
          `${no}  skipped: ${line.reason}${line.closest ? `; closest: ${line.closest.template} "${line.closest.wording}" (shares ${line.closest.shared} of its ${line.closest.of} words)` : ""}`,
        );
        break;
    }
  }
  const c = explanation.counts;
  rows.push(`${explanation.lines.length} lines: ${c.event} gave events, ${c.continuation} continued a record, ${c.skipped} skipped, ${c.rejected + c.unreadable} rejected`);
  return rows;
}

async function readAll(stream: Readable, maxLines: number): Promise<{ lines: string[]; unreadable: Map<number, string> }> {
  const lines: string[] = [];
  const unreadable = new Map<number, string>();
  for await (const raw of readLines(stream)) {
    if (lines.length >= maxLines) throw new UsageError(`explain reads at most ${maxLines} lines (--max-lines); cut the input, e.g. with sed -n '1000,2000p'`);
    if ("problem" in raw) {
      unreadable.set(raw.lineNo, raw.problem === "too_long" ? "too_long: line is longer than the limit" : "encoding: line is not valid UTF-8");
      lines.push("");
    } else {
      lines.push(raw.text);
    }
  }
  return { lines, unreadable };
}

export async function runExplain(file: string, options: ExplainOptions): Promise<Explanation> {
  if (options.utcOffset) {
    try {
      parseUtcOffset(options.utcOffset);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const named = options.format === "auto" ? undefined : findFormat(options.format);
  if (options.format !== "auto" && !named) throw new UsageError(`unknown format "${options.format}"; one of: auto, ${formatNames()}`);
  let stream: Readable;
  if (file === "-") {
    stream = process.stdin;
  } else {
    stream = createReadStream(file);
    await new Promise<void>((resolve, reject) => {
      stream.once("open", () => resolve());
      stream.once("error", (error: NodeJS.ErrnoException) => reject(new UsageError(`cannot read ${file}: ${error.code ?? error.message}`)));
    });
  }
  const { lines, unreadable } = await readAll(stream, options.maxLines);
  const format = named ?? sniffFormat(lines)?.format;
  if (!format) throw new UsageError(new UnknownFormatError(file === "-" ? "standard input" : file, lines.length).message);
  const ctx: ParseContext = {
    source: `${format.name}:explain`,
    ...(options.instance ? { instance: options.instance } : {}),
    ...(options.utcOffset ? { utcOffset: options.utcOffset } : {}),
    ...(options.date ? { date: options.date } : {}),
    inputTime: Date.now(),
    patterns: readPatterns(options.patterns),
  };
  const explanation = explainLines(lines, format, ctx);
  for (const [lineNo, reason] of unreadable) {
    const line = explanation.lines[lineNo - 1]!;
    explanation.counts[line.status]--;
    line.status = "unreadable";
    line.reason = reason;
    explanation.counts.unreadable++;
  }
  return explanation;
}
