import type { Filters } from "../queries/filters.ts";
import { lostKeys, type LostKeyRow } from "../queries/lost.ts";
import type { SqlDriver } from "../store/driver.ts";

export type { LostKeyRow };

export interface LostPage {
  items: LostKeyRow[];
  /** Pass back as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/** `<last_ts>:<bizKey>` of the last row shown; null for anything else. */
export function parseLostCursor(cursor: string | undefined): { lastTs: number; bizKey: string } | null {
  const m = cursor === undefined ? null : /^(\d+):(.+)$/s.exec(cursor);
  return m ? { lastTs: Number(m[1]), bizKey: m[2]! } : null;
}

/** One page of the keys that lost a message, newest last event first: what /lost lists. */
export async function lostPage(driver: SqlDriver, f: Filters, limit: number, cursor?: string): Promise<LostPage> {
  const after = parseLostCursor(cursor);
  const rows = await lostKeys(driver, f, limit + 1, after ?? undefined);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page, nextCursor: rows.length > limit && last ? `${last.lastTs}:${last.bizKey}` : null };
}
