import { receiveRecords, type LinesReceived } from "../ingest/receive.ts";
import type { Store } from "../store/open.ts";
import { requireIngestToken } from "./auth.ts";
import { bodyFormatFor, splitBody } from "./ingest-body.ts";
import { maxBodyBytes, readBodyLimited } from "./read-body.ts";

export type IngestResponse = LinesReceived;

/**
 * POST /api/v1/events: authenticate, bound the body, split it into records; each is validated on its own and the
 * good ones stored (lib/ingest/receive.ts). A bad line is reported with its number and never fails the rest.
 */
export async function ingestEvents(request: Request, store: () => Promise<Store>): Promise<IngestResponse> {
  requireIngestToken(request);
  const format = bodyFormatFor(request.headers.get("content-type"));
  const split = splitBody(await readBodyLimited(request, maxBodyBytes()), format);
  return receiveRecords((await store()).driver, split.records, split.rejected);
}
