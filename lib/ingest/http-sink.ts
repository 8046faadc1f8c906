import type { NormalizedEvent } from "../events/model.ts";
import { DEFAULT_RETRY, FatalSinkError, withRetry, type EventSink, type RetryPolicy } from "./sink.ts";

interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: { line: number; reason: string }[];
}

class TransientHttpError extends Error {}

/**
 * Sends batches to POST /api/v1/events as NDJSON. Connection failures, 429 and 5xx (a restarting server, a
 * database that went away) are retried with backoff; 401/413/415 are final because retrying cannot fix them.
 */
export function httpSink(server: string, options: { token?: string; retry?: RetryPolicy } = {}): EventSink {
  const url = new URL("/api/v1/events", server).toString();
  const retry = options.retry ?? DEFAULT_RETRY;
  return {
    description: url,
    async write(events: NormalizedEvent[]) {
      const body = events.map((e) => JSON.stringify(e)).join("\n");
      const answer = await withRetry(retry, async () => {
        let response: Response;
        try {
          response = await fetch(url, {
            method: "POST",
            body,
            headers: { "content-type": "application/x-ndjson", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
          });
        } catch (error) {
          throw new TransientHttpError(`cannot reach ${url}: ${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)}`);
        }
        if (response.ok) return (await response.json()) as IngestAnswer;
        const text = await response.text();
        let message = text;
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
        } catch {
          // Not our JSON error: keep the raw text.
        }
        if (response.status === 429 || response.status >= 500) throw new TransientHttpError(`${url} answered ${response.status}: ${message}`);
        const hint = response.status === 401 ? " (pass --token or set DUPSCOPE_INGEST_TOKEN)" : "";
        throw new FatalSinkError(`${url} answered ${response.status}: ${message}${hint}`);
      });
      return {
        accepted: answer.accepted,
        duplicates: answer.duplicates,
        rejected: answer.rejected.map((r) => ({ index: r.line - 1, reason: r.reason })),
      };
    },
    async close() {},
  };
}
