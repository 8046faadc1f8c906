import { keysStartingWith, resolveSearch, type SearchHit } from "../queries/search.ts";
import type { SqlDriver } from "../store/driver.ts";

/**
 * Where the search box goes for `q`: the key page of the key `q` names, or of the key a msgId or offsetMsgId
 * belongs to (with how it was found, for the page to say). Unknown text goes to the key page's "no events".
 */
export async function searchTarget(driver: SqlDriver, q: string): Promise<string> {
  const hit: SearchHit | null = await resolveSearch(driver, q);
  if (!hit || hit.via === "bizKey") return `/keys/${encodeURIComponent(q)}`;
  return `/keys/${encodeURIComponent(hit.bizKey)}?${new URLSearchParams({ via: hit.via, q })}`;
}

/** Keys offered for a partial key, at most; `more` says the list was cut. */
export const PREFIX_KEYS = 20;

/** Keys that start with what was typed, for a key page that found no events under it. */
export async function keysWithPrefix(driver: SqlDriver, prefix: string): Promise<{ keys: string[]; more: boolean }> {
  const keys = await keysStartingWith(driver, prefix, PREFIX_KEYS + 1);
  return { keys: keys.slice(0, PREFIX_KEYS), more: keys.length > PREFIX_KEYS };
}
