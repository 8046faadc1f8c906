import { duplicateRows, type DuplicateFilter, type DuplicateRow } from "../queries/duplicates.ts";
import type { SqlDriver } from "../store/driver.ts";

export type { DuplicateRow };

export interface DuplicatesPage {
  items: DuplicateRow[];
  /** Pass back as `cursor` for the next page; null on the last. Stable while new rows arrive. */
  nextCursor: string | null;
}

/** `<second_ts>:<verdict id>` of the last row shown. */
export function parseCursor(cursor: string): { secondTs: number; id: string } {
  const at = cursor.indexOf(":");
  return { secondTs: Number(cursor.slice(0, at)), id: cursor.slice(at + 1) };
}

/** One page of stored duplicates, newest first, what /duplicates, its CSV and GET /api/v1/duplicates list. */
export async function duplicatesPage(driver: SqlDriver, q: Omit<DuplicateFilter, "after"> & { limit: number; cursor?: string }): Promise<DuplicatesPage> {
  const { limit, cursor, ...filter } = q;
  const rows = await duplicateRows(driver, { ...filter, ...(cursor ? { after: parseCursor(cursor) } : {}) }, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(({ id: _id, ...row }) => row),
    nextCursor: rows.length > limit && last ? `${last.secondTs}:${last.id}` : null,
  };
}
