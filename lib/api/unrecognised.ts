import { z } from "zod";
import { receiveUnrecognised } from "../ingest/receive.ts";
import { MAX_SHAPES } from "../ingest/unrecognised.ts";
import type { Store } from "../store/open.ts";
import { requireIngestToken } from "./auth.ts";
import { parseJsonBody } from "./json-body.ts";

const text = (max: number) => z.string().min(1).max(max);
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** What `dupscope ingest --server` sends after each batch (lib/ingest/unrecognised.ts UnrecognisedReport). */
const ReportSchema = z.object({
  source: text(1024),
  format: text(64),
  instance: text(255).nullable(),
  count,
  shapes: z
    .array(z.object({ shape: text(512), anchor: text(64), count, lastLine: z.number().int().nonnegative(), lastSeen: count }))
    .max(MAX_SHAPES),
  groups: z.array(text(255)).max(100),
});

/** POST /api/v1/ingest/unrecognised: the ingest token, a JSON report, 204. */
export async function postUnrecognised(request: Request, store: () => Promise<Store>): Promise<Response> {
  requireIngestToken(request);
  const report = await parseJsonBody(request, ReportSchema);
  await receiveUnrecognised((await store()).driver, report);
  return new Response(null, { status: 204 });
}
