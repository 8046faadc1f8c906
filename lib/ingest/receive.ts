import { FORMAT as OTLP_FORMAT, mapSpans, type KeyRule } from "../../collectors/otlp-traces/map.ts";
import type { DecodedRequest } from "../../collectors/otlp-traces/spans.ts";
import type { CollectorFormat } from "../../collectors/registry.ts";
import { lineOfEvent, parseLines, type LineResult, type ParseContext } from "../../collectors/types.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { validateEvent } from "../events/validate.ts";
import { logger } from "../log.ts";
import { recordIngestResults } from "../metrics/ingest-results.ts";
import type { SqlDriver } from "../store/driver.ts";
import { insertEvents } from "../store/events-repo.ts";
import { recordUnrecognised } from "../store/unrecognised.ts";
import { MAX_SHAPES, UnrecognisedTally, type UnrecognisedReport } from "./unrecognised.ts";

/**
 * What the server makes of a batch one of its ingest routes received, once the route has read the request: every
 * event held to the ingest schema, the valid ones stored, each refusal traced back to the line or span it came
 * from, and the duplicates and refusals counted for /metrics. The routes (lib/api) keep only HTTP: the token, the
 * body, the query string and the answer's encoding.
 */

/** A refused line, numbered from 1 in the body it came in. */
export interface LineRejection {
  line: number;
  reason: string;
}

export interface LinesReceived {
  accepted: number;
  duplicates: number;
  rejected: LineRejection[];
}

interface Candidate<At> {
  value: unknown;
  at: At;
}

interface Stored<At> {
  /** Candidates that passed validation, stored or not. */
  valid: number;
  accepted: number;
  duplicates: number;
  outOfWindow: number;
  refused: { at: At; reason: string }[];
}

/** Validates each candidate on its own, stores the valid ones, and names where each refused one came from. */
async function storeCandidates<At>(driver: SqlDriver, candidates: readonly Candidate<At>[]): Promise<Stored<At>> {
  const refused: Stored<At>["refused"] = [];
  const events: NormalizedEvent[] = [];
  const from: At[] = [];
  for (const candidate of candidates) {
    const checked = validateEvent(candidate.value);
    if (checked.ok) {
      events.push(checked.event);
      from.push(candidate.at);
    } else {
      refused.push({ at: candidate.at, reason: checked.reason });
    }
  }
  if (events.length === 0) return { valid: 0, accepted: 0, duplicates: 0, outOfWindow: 0, refused };
  const stored = await insertEvents(driver, events);
  for (const r of stored.rejected) refused.push({ at: from[r.index]!, reason: r.reason });
  return { valid: events.length, accepted: stored.accepted, duplicates: stored.duplicates, outOfWindow: stored.outOfWindow, refused };
}

async function count(driver: SqlDriver, format: string, duplicates: number, rejected: number, outOfWindow: number): Promise<void> {
  if (duplicates > 0 || rejected > 0) await recordIngestResults(driver, format, { duplicates, rejected, outOfWindow });
}

/** POST /api/v1/events: normalized events, one per record of the body; `unreadable` are the records it could not split out. */
export async function receiveRecords(driver: SqlDriver, records: readonly { value: unknown; line: number }[], unreadable: readonly LineRejection[]): Promise<LinesReceived> {
  const stored = await storeCandidates(driver, records.map((r) => ({ value: r.value, at: r.line })));
  const rejected = [...unreadable, ...stored.refused.map((r) => ({ line: r.at, reason: r.reason }))].sort((a, b) => a.line - b.line);
  await count(driver, "events", stored.duplicates, rejected.length, stored.outOfWindow);
  return { accepted: stored.accepted, duplicates: stored.duplicates, rejected };
}

export interface TextReceived extends LinesReceived {
  /** Lines that matched no template of the format (stack traces, unrelated log lines): not errors. */
  skipped: number;
  /** Of those, the lines that look relevant (GET /api/v1/ingest/unrecognised shows their shapes). */
  unrecognised: number;
}

/** POST /api/v1/ingest/unrecognised: what a CLI ingest (`--server`) skipped but found relevant, kept like the server's own. */
export async function receiveUnrecognised(driver: SqlDriver, report: UnrecognisedReport): Promise<void> {
  await recordUnrecognised(driver, report, MAX_SHAPES);
}

/** POST /api/v1/ingest/{format}: the raw text of a log or an export, parsed by the collector the CLI uses. */
export async function receiveText(driver: SqlDriver, text: string, format: CollectorFormat, ctx: ParseContext): Promise<TextReceived> {
  const candidates: Candidate<number>[] = [];
  const parser = format.open(ctx);
  const tally = new UnrecognisedTally(ctx.source, format.name, ctx.instance ?? null);
  const keep = (result: LineResult, lineNo: number, line?: string): LineResult => {
    if (result.skipped && line !== undefined) tally.skipped(line, lineNo);
    result.events.forEach((event, i) => {
      tally.sawGroup(event.group);
      candidates.push({ value: event, at: lineOfEvent(result, i, lineNo) });
    });
    return { ...result, events: [] };
  };
  let lastLine = 0;
  const parsed = parseLines(text, { line: (line, lineNo) => keep(parser.line(line, (lastLine = lineNo)), lineNo, line), end: () => keep(parser.end(), lastLine) });
  const stored = await storeCandidates(driver, candidates);
  const rejected = [
    ...parsed.issues.map((issue) => ({ line: issue.line, reason: `${issue.code}: ${issue.reason}` })),
    ...stored.refused.map((r) => ({ line: r.at, reason: r.reason })),
  ].sort((a, b) => a.line - b.line);
  await count(driver, format.name, stored.duplicates, rejected.length, stored.outOfWindow);
  const missed = tally.drain();
  if (missed) await recordUnrecognised(driver, missed, MAX_SHAPES);
  return { accepted: stored.accepted, duplicates: stored.duplicates, rejected, skipped: parsed.skipped, unrecognised: missed?.count ?? 0 };
}

export interface SpansReceived {
  spans: number;
  /** Spans refused (unreadable, or an event they map to failed validation or storage). */
  rejected: number;
  /** Messaging spans that name no key and no message id (DUPSCOPE_OTLP_KEYS can say where the key is): kept out, not refused. */
  unusable: number;
  events: number;
  stored: number;
}

/** POST /v1/traces: decoded spans mapped to events; a span is refused when any of its events is. */
export async function receiveSpans(driver: SqlDriver, decoded: DecodedRequest, keys: readonly KeyRule[]): Promise<SpansReceived> {
  const mapped = mapSpans(decoded.spans, keys);
  const stored = await storeCandidates(driver, mapped.events.map((event, i) => ({ value: event, at: mapped.spanOf[i]! })));
  const refused = new Set(stored.refused.map((r) => r.at));
  const reasons = [
    ...stored.refused.map((r) => `span ${decoded.spans[r.at]?.spanId ?? "?"}: ${r.reason}`),
    ...decoded.rejected.map((r) => `span ${r.index + 1} of the request: ${r.reason}`),
  ];
  // What partialSuccess points the exporter's operator at.
  if (reasons.length > 0) logger.warn({ refused: reasons.length, reasons: reasons.slice(0, 10) }, "OTLP trace request: spans refused");
  const rejected = decoded.rejected.length + refused.size;
  await count(driver, OTLP_FORMAT, stored.duplicates, rejected, stored.outOfWindow);
  return { spans: decoded.spans.length + decoded.rejected.length, rejected, unusable: mapped.refused.length, events: stored.valid, stored: stored.accepted };
}
