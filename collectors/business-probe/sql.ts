/**
 * The probe's query must be one read-only SELECT (docs/probe.md). This is the first of three guards, before the
 * read-only transaction and the database user's own grants: it refuses what a read-only transaction lets through
 * or only notices too late (a second statement, `SELECT … INTO OUTFILE`, row locks) and every plain mistake.
 *
 * A small tokenizer that knows the quoting and comments of both dialects reads the text; nothing is judged inside
 * a string, a quoted identifier or a comment. A text is accepted only when it reads the same whether the server
 * treats a backslash in a string as an escape or not (MySQL's NO_BACKSLASH_ESCAPES, PostgreSQL's
 * standard_conforming_strings), so no setting on the server can make it two statements.
 */

export type SqlDialect = "mysql" | "postgres";

export const PLACEHOLDER = ":bizKey";
/** Longer texts are refused: a probe query is a line or two. */
export const MAX_SQL_CHARS = 16 * 1024;

export type SqlCheck =
  | {
      ok: true;
      /** The text with each `:bizKey` replaced by the driver's placeholder (`?` for mysql2, `$1` for pg). */
      sql: string;
      /** How many placeholders `sql` has: mysql2 binds one value per `?`. */
      params: number;
    }
  | { ok: false; reason: string };

type TokenKind = "word" | "quoted" | "string" | "number" | "punct" | "param" | "comment";

interface Token {
  kind: TokenKind;
  /** Upper-cased for words, the character for punctuation. */
  text: string;
  start: number;
  end: number;
}

class SqlRefused extends Error {}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const SPACE = /\s/;

/** Tokens of `sql`, comments included; throws SqlRefused for text no server would read as we do. */
function tokenize(sql: string, dialect: SqlDialect, backslashEscapes: boolean): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (k: number) => sql[k] ?? "";
  while (i < sql.length) {
    const c = sql[i]!;
    const start = i;
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(c)) throw new SqlRefused(`control character U+${c.charCodeAt(0).toString(16).padStart(4, "0")} at ${i + 1}`);
    // Line comments: `--` (MySQL and MariaDB only when a space or control character follows), MySQL's `#`.
    if ((c === "-" && at(i + 1) === "-" && (dialect === "postgres" || i + 2 >= sql.length || /[\s\u0000-\u001f]/.test(at(i + 2)))) || (c === "#" && dialect === "mysql")) {
      const nl = sql.indexOf("\n", i);
      i = nl === -1 ? sql.length : nl + 1;
      tokens.push({ kind: "comment", text: "", start, end: i });
      continue;
    }
    if (c === "/" && at(i + 1) === "*") {
      // MySQL and MariaDB run the text of /*! … */ and /*M! … */: it is SQL, not a comment.
      if (dialect === "mysql" && (at(i + 2) === "!" || (at(i + 2) === "M" && at(i + 3) === "!"))) throw new SqlRefused(`executable comment /*! … */ at ${i + 1}`);
      i = blockCommentEnd(sql, i, dialect === "postgres");
      tokens.push({ kind: "comment", text: "", start, end: i });
      continue;
    }
    if (c === "'") {
      const escapes = backslashEscapes || (dialect === "postgres" && /^[eE]$/.test(prefixWord(tokens, start)));
      if (dialect === "postgres" && /^[eE]$/.test(prefixWord(tokens, start))) tokens.pop();
      i = quotedEnd(sql, i, "'", escapes);
      tokens.push({ kind: "string", text: "", start, end: i });
      continue;
    }
    if (c === '"') {
      // PostgreSQL: an identifier. MySQL: a string (an identifier with ANSI_QUOTES): both end at an undoubled quote.
      i = quotedEnd(sql, i, '"', dialect === "mysql" && backslashEscapes);
      tokens.push({ kind: dialect === "postgres" ? "quoted" : "string", text: "", start, end: i });
      continue;
    }
    if (c === "`" && dialect === "mysql") {
      i = quotedEnd(sql, i, "`", false);
      tokens.push({ kind: "quoted", text: "", start, end: i });
      continue;
    }
    if (c === "$" && dialect === "postgres") {
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close === -1) throw new SqlRefused(`unterminated dollar-quoted string at ${i + 1}`);
        i = close + tag[0].length;
        tokens.push({ kind: "string", text: "", start, end: i });
        continue;
      }
      if (/^\$\d/.test(sql.slice(i))) throw new SqlRefused(`positional parameter at ${i + 1}: use ${PLACEHOLDER}`);
    }
    if (c === ":") {
      if (at(i + 1) === ":") {
        tokens.push({ kind: "punct", text: "::", start, end: i + 2 });
        i += 2;
        continue;
      }
      const name = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i));
      if (name) {
        if (name[0] !== PLACEHOLDER) throw new SqlRefused(`unknown placeholder ${name[0]} at ${i + 1}: the only one is ${PLACEHOLDER}`);
        i += name[0].length;
        tokens.push({ kind: "param", text: name[0], start, end: i });
        continue;
      }
    }
    if (c === "?" && dialect === "mysql") throw new SqlRefused(`positional parameter ? at ${i + 1}: use ${PLACEHOLDER}`);
    if (WORD_START.test(c)) {
      while (i < sql.length && WORD_PART.test(sql[i]!)) i++;
      tokens.push({ kind: "word", text: sql.slice(start, i).toUpperCase(), start, end: i });
      continue;
    }
    if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i]!)) i++;
      tokens.push({ kind: "number", text: sql.slice(start, i), start, end: i });
      continue;
    }
    tokens.push({ kind: "punct", text: c, start, end: i + 1 });
    i++;
  }
  return tokens;
}

/** The word right before a quote with nothing in between (PostgreSQL's E'…' prefix), or "". */
function prefixWord(tokens: readonly Token[], quoteAt: number): string {
  const last = tokens[tokens.length - 1];
  return last !== undefined && last.kind === "word" && last.end === quoteAt ? last.text : "";
}

function quotedEnd(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashEscapes && c === "\\") {
      i += 2;
      continue;
    }
    if (c === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  throw new SqlRefused(`unterminated ${quote === "'" ? "string" : quote === '"' ? "quoted name or string" : "quoted name"} at ${open + 1}`);
}

/** PostgreSQL nests block comments; MySQL and MariaDB end one at the first `*\/`. */
function blockCommentEnd(sql: string, open: number, nested: boolean): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    if (sql[i] === "/" && sql[i + 1] === "*" && (depth === 0 || nested)) {
      depth++;
      i += 2;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  throw new SqlRefused(`unterminated comment at ${open + 1}`);
}

/** Words that write or lock from inside a single SELECT: a data-modifying CTE, SELECT … INTO, FOR UPDATE. */
const WRITES = new Set(["INSERT", "UPDATE", "DELETE", "MERGE", "INTO"]);

function judge(tokens: Token[]): void {
  const code = tokens.filter((t) => t.kind !== "comment");
  const semicolon = code.find((t) => t.kind === "punct" && t.text === ";");
  if (semicolon !== undefined) throw new SqlRefused(`";" at ${semicolon.start + 1}: the query must be a single statement, without a trailing ";"`);
  const lead = code.find((t) => !(t.kind === "punct" && t.text === "("));
  if (lead === undefined) throw new SqlRefused("the query is empty");
  if (lead.kind !== "word" || (lead.text !== "SELECT" && lead.text !== "WITH")) {
    throw new SqlRefused(`the query must be a SELECT (or WITH … SELECT), not ${lead.kind === "word" ? lead.text : `"${lead.kind}"`}`);
  }
  if (!code.some((t) => t.kind === "word" && t.text === "SELECT")) throw new SqlRefused("the query must be a SELECT (or WITH … SELECT)");
  code.forEach((t, k) => {
    if (t.kind !== "word") return;
    if (WRITES.has(t.text)) throw new SqlRefused(`${t.text} at ${t.start + 1}: the query may only read (no INTO, no data-modifying WITH, no FOR UPDATE)`);
    const next = code[k + 1];
    if (t.text === "FOR" && next?.kind === "word" && ["SHARE", "KEY", "NO"].includes(next.text)) throw new SqlRefused(`FOR ${next.text} at ${t.start + 1}: the query may not lock rows`);
    if (t.text === "LOCK" && next?.kind === "word" && next.text === "IN") throw new SqlRefused(`LOCK IN SHARE MODE at ${t.start + 1}: the query may not lock rows`);
  });
  if (!code.some((t) => t.kind === "param")) throw new SqlRefused(`the query must use ${PLACEHOLDER} (the business key it looks up)`);
}

/**
 * Checks that `sql` is a single SELECT of `dialect` that uses `:bizKey`, and rewrites the placeholder for the driver.
 * Refused: a `;` outside strings and comments, any leading keyword but SELECT or WITH, INTO, INSERT, UPDATE,
 * DELETE or MERGE anywhere (data-modifying WITH, SELECT … INTO, FOR UPDATE), FOR SHARE / FOR KEY SHARE / FOR NO
 * KEY UPDATE / LOCK IN SHARE MODE, MySQL's executable comments, other placeholders, unterminated quotes and comments.
 */
export function checkProbeSql(sql: string, dialect: SqlDialect): SqlCheck {
  if (sql.length > MAX_SQL_CHARS) return { ok: false, reason: `the query is longer than ${MAX_SQL_CHARS} characters` };
  try {
    // Both readings of a backslash in a string must give the same statement (see the top of this file).
    const readings = [false, true].map((escapes) => tokenize(sql, dialect, escapes));
    const params = readings.map((tokens) => tokens.filter((t) => t.kind === "param").map((t) => t.start).join(","));
    for (const tokens of readings) judge(tokens);
    if (params[0] !== params[1]) throw new SqlRefused("a backslash in a string makes the query read differently depending on the server's settings: double the quote instead of escaping it");
    const places = readings[0]!.filter((t) => t.kind === "param");
    let out = "";
    let from = 0;
    for (const p of places) {
      out += sql.slice(from, p.start) + (dialect === "mysql" ? "?" : "$1");
      from = p.end;
    }
    out += sql.slice(from);
    return { ok: true, sql: out, params: places.length };
  } catch (error) {
    if (error instanceof SqlRefused) return { ok: false, reason: error.message };
    throw error;
  }
}
