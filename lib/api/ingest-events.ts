import { validateEvent } from "../events/validate.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { recordIngestResults } from "../metrics/ingest-results.ts";
import { insertEvents } from "../store/events-repo.ts";
import type { Store } from "../store/open.ts";
import { requireIngestToken } from "./auth.ts";
import { bodyFormatFor, splitBody, type Rejection } from "./ingest-body.ts";
import { maxBodyBytes, readBodyLimited } from "./read-body.ts";

export interface IngestResponse {
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
}

/**
 * POST /api/v1/events: authenticate, bound the body, split it into records, validate each on its own and store
 * the good ones. A bad line is reported with its number and never fails the rest of the batch.
 */
export async function ingestEvents(request: Request, store: () => Promise<Store>): Promise<IngestResponse> {
  requireIngestToken(request);
  const format = bodyFormatFor(request.headers.get("content-type"));
  const split = splitBody(await readBodyLimited(request, maxBodyBytes()), format);
  const rejected = [...split.rejected];
  const events: NormalizedEvent[] = [];
  const lines: number[] = [];
  for (const record of split.records) {
    const result = validateEvent(record.value);
    if (result.ok) {
      events.push(result.event);
      lines.push(record.line);
    } else {
      rejected.push({ line: record.line, reason: result.reason });
    }
  }
  const stored = events.length > 0 ? await insertEvents((await store()).driver, events) : { accepted: 0, duplicates: 0, rejected: [], outOfWindow: 0 };
  for (const r of stored.rejected) rejected.push({ line: lines[r.index]!, reason: r.reason });
  rejected.sort((a, b) => a.line - b.line);
  const { accepted, duplicates } = stored;
  if (duplicates > 0 || rejected.length > 0) await recordIngestResults((await store()).driver, "events", { duplicates, rejected: rejected.length, outOfWindow: stored.outOfWindow });
  return { accepted, duplicates, rejected };
}
