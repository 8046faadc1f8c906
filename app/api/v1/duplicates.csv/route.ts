import { csvRow } from "@/lib/api/csv.ts";
import { withApi } from "@/lib/api/errors.ts";
import { parseDuplicatesQuery } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";
import { duplicatesPage, type DuplicateRow } from "@/lib/views/duplicates.ts";

export const dynamic = "force-dynamic";

/** Rows per export at most: a spreadsheet is for a period's duplicates, not the whole store. */
const MAX_ROWS = 100_000;
const PAGE = 500;

const COLUMNS: (keyof DuplicateRow)[] = ["secondTs", "firstTs", "bizKey", "group", "topic", "cause", "confidence", "outcome", "layer", "defect", "gapMs", "gapClass", "firstInstance", "secondInstance", "sameInstance", "msgId", "clockSkewMs"];

/**
 * New columns go last, so a spreadsheet that reads the columns by position keeps reading the same ones.
 *
 * GET /api/v1/duplicates.csv: the same filters as /api/v1/duplicates (limit and cursor aside), every matching
 * duplicate newest first, streamed page by page. Times are epoch ms plus an ISO column for people.
 */
export const GET = withApi(async (request: Request) => {
  const url = new URL(request.url);
  url.searchParams.delete("limit");
  url.searchParams.delete("cursor");
  const query = parseDuplicatesQuery(url);
  const { driver } = await getStore();
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let sent = 0;
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvRow(["second_iso", ...COLUMNS])));
      }
      const page = await duplicatesPage(driver, { ...query, limit: Math.min(PAGE, MAX_ROWS - sent), ...(cursor ? { cursor } : {}) });
      controller.enqueue(encoder.encode(page.items.map((row) => csvRow([new Date(row.secondTs).toISOString(), ...COLUMNS.map((c) => row[c])])).join("")));
      sent += page.items.length;
      cursor = page.nextCursor ?? undefined;
      if (!cursor || sent >= MAX_ROWS) controller.close();
    },
  });
  const stamp = new Date().toISOString().slice(0, 16).replace(/[-:T]/g, "");
  return new Response(stream, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="dupscope-duplicates-${stamp}.csv"` } });
});
