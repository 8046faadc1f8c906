/**
 * Names close to one that matched nothing: what someone meant when a group name in a URL or a search box was
 * mistyped, shortened or differently cased. Pure: a name and the known names in, the closest few out.
 */

/** Edits (insert, delete, substitute) between two strings, by code point, in two rows of the usual table. */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/**
 * How far `name` is from what was asked, lower is closer; null when it is not worth offering. Case and the
 * separators people swap (`-`, `_`, `.`, space) are ignored; a name that contains the query, or is contained in it,
 * is close however long the rest is ("pay" for "cg_pay_consumer"); otherwise at most a third of the query's
 * length in edits, and at least two, so a typo in a short name still finds it.
 */
function distance(query: string, name: string): number | null {
  const q = fold(query);
  const n = fold(name);
  if (q === "" || n === "") return null;
  if (q === n) return 0;
  if (n.startsWith(q) || q.startsWith(n)) return 1;
  if (n.includes(q) || q.includes(n)) return 2;
  const edits = editDistance(q, n);
  return edits <= Math.max(2, Math.floor([...q].length / 3)) ? 2 + edits : null;
}

const fold = (s: string) => s.toLowerCase().replace(/[-_.\s]+/g, "");

/** The known names closest to `query`, closest first (ties by name), at most `limit`; never `query` itself. */
export function similarNames(query: string, names: Iterable<string>, limit = 8): string[] {
  const scored: { name: string; d: number }[] = [];
  for (const name of new Set(names)) {
    if (name === query) continue;
    const d = distance(query, name);
    if (d !== null) scored.push({ name, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.name);
}
