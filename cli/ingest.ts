import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { findFormat, formatNames } from "../collectors/registry.ts";
import type { ParseContext } from "../collectors/types.ts";
import { parseUtcOffset } from "../collectors/codecs/log-time.ts";
import { formatDuration } from "../lib/format/duration.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { followFile } from "../lib/ingest/follow.ts";
import { readLines } from "../lib/ingest/line-reader.ts";
import { sniffLines } from "../lib/ingest/sniff-lines.ts";
import { UnknownFormatError } from "../collectors/sniff.ts";
import { runIngest, type IngestSummary } from "../lib/ingest/pipeline.ts";
import { DEFAULT_RETRY, type EventSink, type RetryPolicy } from "../lib/ingest/sink.ts";
import { storeSink } from "../lib/ingest/store-sink.ts";
import { UnrecognisedTally } from "../lib/ingest/unrecognised.ts";
import { loadPatternsFile, PatternsError } from "../lib/ingest/patterns-file.ts";
import type { UserPattern } from "../collectors/codecs/user-pattern.ts";
import { formatSummary, progressReporter } from "./progress.ts";

export interface IngestOptions {
  /** A format name, or `auto` to tell each file's format from its first lines. */
  format: string;
  /** `yyyy-MM-dd` for lines whose layout prints no date; default: each file's modification date. */
  date?: string;
  instance?: string;
  utcOffset?: string;
  source?: string;
  /** A patterns file (docs/ingest.md#your-own-patterns). */
  patterns?: string;
  follow?: boolean;
  server: string;
  token?: string;
  database?: string;
  batchSize: number;
  progress: boolean;
  json?: boolean;
}

export class UsageError extends Error {}

function makeSink(options: IngestOptions, retry: RetryPolicy): Promise<EventSink> {
  if (options.database) return storeSink(options.database, { retry });
  return Promise.resolve(httpSink(options.server, { token: options.token, retry }));
}

interface Input {
  stream: Readable;
  size?: number;
  name: string;
  /** When the input was last written: the file's modification time, or now for standard input. */
  modifiedAt: number;
}

function inputOf(file: string, follow: boolean, signal: AbortSignal): Input {
  if (file === "-") {
    if (follow) throw new UsageError("--follow needs a file, not standard input");
    return { stream: process.stdin, name: "stdin", modifiedAt: Date.now() };
  }
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    if (follow) return { stream: followFile(file, { signal }), name: path.resolve(file), modifiedAt: Date.now() };
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (follow) return { stream: followFile(file, { signal }), name: path.resolve(file), modifiedAt: stat.mtimeMs };
  return { stream: createReadStream(file, { highWaterMark: 1024 * 1024 }), size: stat.size, name: path.resolve(file), modifiedAt: stat.mtimeMs };
}

/** The patterns file's patterns; a file that does not load is a usage error naming the pattern (exit 2). */
export function readPatterns(file: string | undefined): UserPattern[] {
  if (file === undefined || file.trim() === "") return [];
  try {
    return loadPatternsFile(file);
  } catch (error) {
    throw error instanceof PatternsError ? new UsageError(error.message) : error;
  }
}

/** A file no format recognises is the caller's to name: a usage error (exit 2), like an unknown format name. */
function asUsageError(error: unknown): never {
  throw error instanceof UnknownFormatError ? new UsageError(error.message) : error;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The calendar date of an instant at a UTC offset (`+08:00`), as `yyyy-MM-dd`. */
function dateAt(ms: number, utcOffset: string): string {
  return new Date(ms + parseUtcOffset(utcOffset)).toISOString().slice(0, 10);
}

/** `dupscope ingest`: each file in turn through parse → batch → sink, with progress and a summary per file. */
export type FileSummary = IngestSummary & { file: string; format: string; maxRssKb: number };

export async function ingestFiles(files: string[], options: IngestOptions, log: (line: string) => void): Promise<FileSummary[]> {
  const auto = options.format === "auto";
  const named = auto ? undefined : findFormat(options.format);
  if (!auto && !named) throw new UsageError(`unknown format "${options.format}"; one of: auto, ${formatNames()}`);
  if (options.date !== undefined && (!DATE.test(options.date) || Number.isNaN(Date.parse(options.date)))) {
    throw new UsageError(`--date must be a calendar date like 2026-11-30, got "${options.date}"`);
  }
  if (options.utcOffset) {
    try {
      parseUtcOffset(options.utcOffset);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (files.length === 0) throw new UsageError("name at least one file, or - for standard input");
  const patterns = readPatterns(options.patterns);
  if (options.follow && files.length !== 1) throw new UsageError("--follow takes exactly one file");

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const retry: RetryPolicy = {
    ...DEFAULT_RETRY,
    giveUpAfterMs: options.follow ? Infinity : DEFAULT_RETRY.giveUpAfterMs,
    onRetry: (attempt, delay, error) => log(`retry ${attempt} in ${formatDuration(delay)}: ${error instanceof Error ? error.message : String(error)}`),
  };
  const sink = await makeSink(options, retry);
  const summaries: FileSummary[] = [];
  try {
    for (const file of files) {
      const input = inputOf(file, Boolean(options.follow), abort.signal);
      const read = readLines(input.stream);
      const { format, lines } = named ? { format: named, lines: read } : await sniffLines(read, path.basename(input.name)).catch(asUsageError);
      if (auto && !options.json) log(`${path.basename(input.name)}: format ${format.name}`);
      const ctx: ParseContext = {
        source: options.source ?? `${format.name}:${input.name}`,
        ...(options.instance ? { instance: options.instance } : {}),
        ...(options.utcOffset ? { utcOffset: options.utcOffset } : {}),
        date: options.date ?? dateAt(input.modifiedAt, options.utcOffset ?? "Z"),
        inputTime: input.modifiedAt,
        patterns,
      };
      const label = path.basename(input.name);
      const bar = progressReporter(label, input.size, options.progress);
      try {
        const summary = await runIngest({
          lines,
          parser: format.open(ctx),
          sink,
          batchSize: options.batchSize,
          flushAfterMs: 500,
          unrecognised: new UnrecognisedTally(ctx.source, format.name, ctx.instance ?? null),
          onProgress: (p) => bar.update(p),
        });
        bar.stop();
        summaries.push({ file: input.name, format: format.name, ...summary, maxRssKb: process.resourceUsage().maxRSS });
        if (!options.json) log(formatSummary(label, summary));
      } finally {
        bar.stop();
        input.stream.destroy();
      }
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await sink.close();
  }
  return summaries;
}
