import { lineOfEvent, type LineParser, type LineResult, type ParseIssue } from "../../collectors/types.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { eventLoopTurns } from "../periodic.ts";
import type { RawLine } from "./line-reader.ts";
import { openBatch, type EventSink, type SinkBatch } from "./sink.ts";
import { mergeReports, type UnrecognisedReport, type UnrecognisedTally } from "./unrecognised.ts";

export interface IngestProgress {
  lines: number;
  bytes: number;
  events: number;
  accepted: number;
  duplicates: number;
  /** Lines or events refused, by the parser or by the destination. */
  rejected: number;
  /** Lines that matched no template of the format (not errors). */
  skipped: number;
  /** Byte offset up to which every line's events are stored: a safe place to resume. */
  committedOffset: number;
  committedLine: number;
}

export interface IngestSummary extends IngestProgress {
  /** The first rejections with their line numbers (all of them are counted in `rejected`). */
  rejections: ParseIssue[];
  /** Skipped lines that look relevant (a rebalance, a commit, an ack…), with their shapes; absent when there were none. */
  unrecognised?: UnrecognisedReport;
  elapsedMs: number;
}

export interface PipelineOptions {
  lines: AsyncIterable<RawLine>;
  /** The input's parser; `end()` is called when the input ends and when a followed file goes quiet. */
  parser: LineParser;
  sink: EventSink;
  /** Events per batch sent to the sink. */
  batchSize?: number;
  /** Input bytes per batch: with large records this, not the event count, is what bounds memory. */
  batchBytes?: number;
  /** Batches in flight while the next one is parsed. */
  inFlight?: number;
  onProgress?: (progress: IngestProgress) => void;
  /** Called after each batch is stored, in input order: where a checkpoint can be written. */
  onCommit?: (offset: number, lineNo: number) => void | Promise<void>;
  maxRejections?: number;
  /**
   * Send a partial batch once no line has arrived for this long, so a followed file that grows slowly is stored
   * within about this delay instead of waiting for a full batch.
   */
  flushAfterMs?: number;
  /**
   * Counts the skipped lines that carry a relevance anchor; what it holds goes to the sink's `unrecognised` after
   * each stored batch, so a followed file's misses reach the store as they happen.
   */
  unrecognised?: UnrecognisedTally;
}

interface Batch {
  /** Events not yet handed to the sink's batch. */
  pending: NormalizedEvent[];
  /** Events in the batch, handed over or pending. */
  count: number;
  sink: SinkBatch;
  lineOf: number[];
  bytes: number;
  endOffset: number;
  endLine: number;
}

/** Events handed to the sink's batch at a time: few enough that they are encoded before a young collection moves them. */
const HAND_OVER = 256;

/**
 * While a batch is being written, the parser gives the event loop a turn at least this often. A write is several
 * round trips (BEGIN, COPY, the journal row, COMMIT), and each reply waits for a turn: parsing a 1 MB read chunk
 * without one took ~30 ms, so a write's connection sat idle in its transaction for much of its time and the
 * runs were bimodal (docs/performance-log.md#ingest-batches-in-one-transaction).
 */
const TURN_EVERY_MS = 0.5;

/**
 * Parse → batch → store, streaming: memory holds at most `inFlight + 1` batches whatever the input size. Parsing
 * the next batch overlaps with storing the previous one. Batches end on line boundaries and are committed in
 * order, so `committedOffset` never passes a line whose events are not all stored.
 */
export async function runIngest(options: PipelineOptions): Promise<IngestSummary> {
  const started = Date.now();
  const batchSize = options.batchSize ?? 5000;
  const batchBytes = options.batchBytes ?? 8 * 1024 * 1024;
  const maxInFlight = options.inFlight ?? 2;
  const maxRejections = options.maxRejections ?? 1000;
  const progress: IngestProgress = { lines: 0, bytes: 0, events: 0, accepted: 0, duplicates: 0, rejected: 0, skipped: 0, committedOffset: 0, committedLine: 0 };
  const rejections: ParseIssue[] = [];
  let unrecognised: UnrecognisedReport | undefined;
  const tally = options.unrecognised;
  const reject = (issue: ParseIssue) => {
    progress.rejected++;
    if (rejections.length < maxRejections) rejections.push(issue);
  };

  let chain: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  const newBatch = (endOffset: number, endLine: number): Batch => ({ pending: [], count: 0, sink: openBatch(options.sink), lineOf: [], bytes: 0, endOffset, endLine });

  const send = (batch: Batch) => {
    batch.sink.add(batch.pending);
    batch.pending = [];
    const written = batch.sink.write();
    // Results are applied in input order even though the writes overlap.
    const step = chain.then(async () => {
      const result = await written;
      progress.accepted += result.accepted;
      progress.duplicates += result.duplicates;
      for (const r of result.rejected) reject({ line: batch.lineOf[r.index] ?? 0, code: "invalid_field", reason: r.reason });
      progress.committedOffset = batch.endOffset;
      progress.committedLine = batch.endLine;
      const missed = tally?.drain();
      if (missed) {
        unrecognised = mergeReports(unrecognised, missed);
        await options.sink.unrecognised?.(missed);
      }
      await options.onCommit?.(batch.endOffset, batch.endLine);
      options.onProgress?.(progress);
    });
    chain = step.catch((error) => {
      failure ??= error;
    });
    const tracked = chain;
    inFlight.add(tracked);
    void tracked.then(() => inFlight.delete(tracked));
  };

  /** Sends the batch, starts the next where it ended, and waits while too many are in flight. */
  const cut = async () => {
    send(batch);
    batch = newBatch(batch.endOffset, batch.endLine);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  };

  let batch = newBatch(0, 0);
  const turn = eventLoopTurns(TURN_EVERY_MS);
  let lastLineAt = Date.now();
  /** Whether the open record, if any, has been completed by `end()` since the last line. */
  let ended = false;
  // The loop is suspended waiting for the next line while this runs, so swapping the batch here is safe.
  const idleFlush = options.flushAfterMs
    ? setInterval(() => {
        if (Date.now() - lastLineAt < options.flushAfterMs!) return;
        // A record that a quiet file left open (a line whose stack trace may still follow) is complete by now.
        if (!ended) {
          ended = true;
          take(options.parser.end(), batch.endLine);
        }
        if (batch.count === 0) return;
        send(batch);
        batch = newBatch(batch.endOffset, batch.endLine);
      }, Math.max(10, Math.floor(options.flushAfterMs / 2)))
    : undefined;
  try {
    for await (const raw of options.lines) {
      if (failure) break;
      lastLineAt = Date.now();
      ended = false;
      const result = parseLine(raw);
      // A line whose events would take the batch past its size starts the next one: a batch one or two events
      // over the size made the store write a second chunk of those few rows, in a transaction of their own.
      if (result !== undefined && batch.count > 0 && batch.count + result.events.length > batchSize) await cut();
      ingestLine(raw, result);
      if (batch.count >= batchSize || batch.bytes >= batchBytes) {
        await cut();
      } else if (progress.lines % 10_000 === 0) {
        options.onProgress?.(progress);
      }
      // Awaited only when due: an await on every line made the 1M-event trace file ~0.3 s slower of ~9.5 (three pairs).
      const due = inFlight.size > 0 ? turn() : undefined;
      if (due) await due;
    }
  } finally {
    clearInterval(idleFlush);
  }
  if (!failure && !ended) take(options.parser.end(), batch.endLine);
  if (!failure && (batch.count > 0 || batch.endOffset > progress.committedOffset)) send(batch);
  await chain;
  if (failure) throw failure;
  const last = tally?.drain();
  if (last) {
    unrecognised = mergeReports(unrecognised, last);
    await options.sink.unrecognised?.(last);
  }
  options.onProgress?.(progress);
  return {
    ...progress,
    rejections: rejections.sort((a, b) => a.line - b.line),
    ...(unrecognised ? { unrecognised } : {}),
    elapsedMs: Date.now() - started,
  };

  /** A parser's result: its events go into the batch under the line they came from. */
  function take(result: LineResult, lineNo: number, text?: string): void {
    if (result.issue) reject(result.issue);
    if (result.skipped) {
      progress.skipped++;
      if (text !== undefined) tally?.skipped(text, lineNo);
    }
    result.events.forEach((event, i) => {
      tally?.sawGroup(event.group);
      batch.pending.push(event);
      batch.lineOf.push(lineOfEvent(result, i, lineNo));
    });
    batch.count += result.events.length;
    progress.events += result.events.length;
    if (batch.pending.length >= HAND_OVER) {
      batch.sink.add(batch.pending);
      batch.pending = [];
    }
  }

  /** The parser's result for a line; none for a line that could not be read or is blank. */
  function parseLine(raw: RawLine): LineResult | undefined {
    if ("problem" in raw || raw.text.trim() === "") return undefined;
    return options.parser.line(raw.text, raw.lineNo);
  }

  function ingestLine(raw: RawLine, result: LineResult | undefined): void {
    progress.lines++;
    progress.bytes += raw.bytes;
    batch.bytes += raw.bytes;
    if ("problem" in raw) {
      reject({ line: raw.lineNo, code: raw.problem, reason: raw.problem === "too_long" ? "line is longer than the limit" : "line is not valid UTF-8" });
    } else if (result !== undefined) {
      take(result, raw.lineNo, raw.text);
    }
    batch.endOffset = raw.endOffset;
    batch.endLine = raw.lineNo;
  }
}
