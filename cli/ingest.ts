import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { findFormat, formatNames } from "../collectors/registry.ts";
import type { ParseContext } from "../collectors/types.ts";
import { parseUtcOffset } from "../collectors/codecs/log-time.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { followFile } from "../lib/ingest/follow.ts";
import { readLines } from "../lib/ingest/line-reader.ts";
import { runIngest, type IngestSummary } from "../lib/ingest/pipeline.ts";
import { DEFAULT_RETRY, type EventSink, type RetryPolicy } from "../lib/ingest/sink.ts";
import { storeSink } from "../lib/ingest/store-sink.ts";
import { formatSummary, progressReporter } from "./progress.ts";

export interface IngestOptions {
  format: string;
  instance?: string;
  utcOffset?: string;
  source?: string;
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

function inputOf(file: string, follow: boolean, signal: AbortSignal): { stream: Readable; size?: number; name: string } {
  if (file === "-") {
    if (follow) throw new UsageError("--follow needs a file, not standard input");
    return { stream: process.stdin, name: "stdin" };
  }
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    if (follow) return { stream: followFile(file, { signal }), name: path.resolve(file) };
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (follow) return { stream: followFile(file, { signal }), name: path.resolve(file) };
  return { stream: createReadStream(file, { highWaterMark: 1024 * 1024 }), size, name: path.resolve(file) };
}

/** `dupscope ingest`: each file in turn through parse → batch → sink, with progress and a summary per file. */
export type FileSummary = IngestSummary & { file: string; maxRssKb: number };

export async function ingestFiles(files: string[], options: IngestOptions, log: (line: string) => void): Promise<FileSummary[]> {
  const format = findFormat(options.format);
  if (!format) throw new UsageError(`unknown format "${options.format}"; one of: ${formatNames()}`);
  if (options.utcOffset) {
    try {
      parseUtcOffset(options.utcOffset);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (files.length === 0) throw new UsageError("name at least one file, or - for standard input");
  if (options.follow && files.length !== 1) throw new UsageError("--follow takes exactly one file");

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const retry: RetryPolicy = {
    ...DEFAULT_RETRY,
    giveUpAfterMs: options.follow ? Infinity : DEFAULT_RETRY.giveUpAfterMs,
    onRetry: (attempt, delay, error) => log(`retry ${attempt} in ${Math.round(delay)} ms: ${error instanceof Error ? error.message : String(error)}`),
  };
  const sink = await makeSink(options, retry);
  const summaries: FileSummary[] = [];
  try {
    for (const file of files) {
      const input = inputOf(file, Boolean(options.follow), abort.signal);
      const ctx: ParseContext = {
        source: options.source ?? `${format.name}:${input.name}`,
        ...(options.instance ? { instance: options.instance } : {}),
        ...(options.utcOffset ? { utcOffset: options.utcOffset } : {}),
      };
      const label = path.basename(input.name);
      const bar = progressReporter(label, input.size, options.progress);
      try {
        const summary = await runIngest({
          lines: readLines(input.stream),
          parser: format.open(ctx),
          sink,
          batchSize: options.batchSize,
          flushAfterMs: 500,
          onProgress: (p) => bar.update(p),
        });
        bar.stop();
        summaries.push({ file: input.name, ...summary, maxRssKb: process.resourceUsage().maxRSS });
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
