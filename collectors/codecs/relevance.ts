/**
 * Whether a line that no template or signal read could still matter to a diagnosis, and its shape. A skipped line
 * that names a rebalance, a revocation, a commit, a heartbeat, an ack or an offset is most likely a wording nobody
 * wrote a template for; the ingest counts those per source and keeps a few of their shapes, so a user sees what was
 * missed instead of a silent "no rebalance data".
 */

/**
 * The word stems that make a skipped line worth showing. Stems, not words: `rebalanc` covers rebalance, rebalancing
 * and rebalanced in any client's sentence. Every alternative is a literal or a bounded gap, so the test is a linear scan even of a 1 MiB line.
 */
const ANCHOR =
  /rebalanc|revok|assign|commit|heartbeat|acknowledg|\back(?:ed|s)?\b|redeliver|offset|precondition|messagequeue|fenced|generation|rejoin|member.?id|delivery.?tag|channel\.close|connection.?forced|unacked|reconsume|consume.{0,40}fail|fail.{0,40}consume|dropped|unregister/i;

/** The stem that makes `text` relevant, lower-cased, or undefined. */
export function relevanceAnchor(text: string): string | undefined {
  const m = ANCHOR.exec(text);
  return m ? m[0].toLowerCase() : undefined;
}

/** How much of a line its shape keeps: a sample to recognise, not the line. */
const SHAPE_CHARS = 240;

// Order matters: quoted text first (its contents are values whatever they hold), then the tokens that carry digits.
const QUOTED = /"(?:[^"\\]|\\.){0,400}"|'(?:[^'\\]|\\.){0,400}'/g;
const ADDRESS = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX = /\b(?=[0-9A-Fa-f]*\d)[0-9A-Fa-f]{12,}\b/g;
const NUMBER = /\d+(?:[.,]\d+)*/g;

/**
 * The line with its values masked: quoted text as `"…"`, addresses as `<addr>`, ids as `<id>`, numbers as `N`; so two
 * lines of one wording from different hosts, times and keys have one shape, and no value of the user's is kept.
 */
export function lineShape(text: string): string {
  return text
    .slice(0, SHAPE_CHARS * 2)
    .replace(QUOTED, (q) => `${q[0]}…${q[0]}`)
    .replace(ADDRESS, "<addr>")
    .replace(UUID, "<id>")
    .replace(HEX, "<id>")
    .replace(NUMBER, "N")
    // Control characters and lone surrogates: a store column holds neither, and a shape needs neither.
    .replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, SHAPE_CHARS);
}
