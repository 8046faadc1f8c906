import type { NormalizedEvent } from "../events/model.ts";
import type { UnrecognisedReport } from "./unrecognised.ts";
import { DEFAULT_RETRY, FatalSinkError, withRetry, type EventSink, type RetryPolicy } from "./sink.ts";

interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: { line: number; reason: string }[];
}

class TransientHttpError extends Error {}

/** Well under the server's default 10 MiB body limit, so a batch of large events never earns a 413. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** Splits a batch into NDJSON bodies of at most MAX_REQUEST_BYTES as its events come, remembering where each starts. */
class RequestBodies {
  private readonly bodies: { first: number; body: string }[] = [];
  private first = 0;
  private count = 0;
  private lines: string[] = [];
  private size = 0;

  add(events: readonly NormalizedEvent[]): void {
    for (const event of events) {
      const line = JSON.stringify(event);
      const bytes = Buffer.byteLength(line) + 1;
      if (this.lines.length > 0 && this.size + bytes > MAX_REQUEST_BYTES) {
        this.bodies.push({ first: this.first, body: this.lines.join("\n") });
        this.first = this.count;
        this.lines = [];
        this.size = 0;
      }
      this.lines.push(line);
      this.size += bytes;
      this.count += 1;
    }
  }

  finish(): { first: number; body: string }[] {
    return this.lines.length > 0 ? [...this.bodies, { first: this.first, body: this.lines.join("\n") }] : [...this.bodies];
  }
}

/**
 * Sends batches to POST /api/v1/events as NDJSON. Connection failures, 429 and 5xx (a restarting server, a
 * database that went away) are retried with backoff; 401/413/415 are final because retrying cannot fix them.
 */
export function httpSink(server: string, options: { token?: string; retry?: RetryPolicy } = {}): EventSink {
  const url = new URL("/api/v1/events", server).toString();
  const unrecognisedUrl = new URL("/api/v1/ingest/unrecognised", server).toString();
  const retry = options.retry ?? DEFAULT_RETRY;
  const post = async (body: string, to = url, type = "application/x-ndjson"): Promise<IngestAnswer> => {
    let response: Response;
    try {
      response = await fetch(to, {
        method: "POST",
        body,
        headers: { "content-type": type, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
      });
    } catch (error) {
      throw new TransientHttpError(`cannot reach ${to}: ${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)}`);
    }
    if (response.ok) return (await response.json()) as IngestAnswer;
    const text = await response.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {
      // Not our JSON error: keep the raw text.
    }
    if (response.status === 429 || response.status >= 500) throw new TransientHttpError(`${to} answered ${response.status}: ${message}`);
    const hint = response.status === 401 ? " (pass --token or set DUPSCOPE_INGEST_TOKEN)" : "";
    throw new FatalSinkError(`${to} answered ${response.status}: ${message}${hint}`, response.status);
  };
  return {
    description: url,
    // Not async: the events become request bodies here and nothing keeps the objects alive while they are sent.
    write(events: NormalizedEvent[]) {
      const bodies = new RequestBodies();
      bodies.add(events);
      return sendAll(bodies.finish());
    },
    batch() {
      const bodies = new RequestBodies();
      return { add: (events) => bodies.add(events), write: () => sendAll(bodies.finish()) };
    },
    async unrecognised(report: UnrecognisedReport) {
      try {
        await withRetry(retry, () => post(JSON.stringify(report), unrecognisedUrl, "application/json"));
      } catch (error) {
        // A server older than the route keeps the events it took; only the sample of what it skipped is lost.
        if (error instanceof FatalSinkError && (error.status === 404 || error.status === 405)) return;
        throw error;
      }
    },
    async close() {},
  };

  async function sendAll(bodies: { first: number; body: string }[]) {
    const total = { accepted: 0, duplicates: 0, rejected: [] as { index: number; reason: string }[] };
    for (const { first, body } of bodies) {
      const answer = await withRetry(retry, () => post(body));
      total.accepted += answer.accepted;
      total.duplicates += answer.duplicates;
      for (const r of answer.rejected) total.rejected.push({ index: first + r.line - 1, reason: r.reason });
    }
    return total;
  }
}
