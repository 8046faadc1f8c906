/**
 * Reads which metrics and labels a PromQL expression names, for checking a dashboard's queries against the metrics
 * the server exports. It knows the part of PromQL dashboards are written in (selectors, range vectors, functions,
 * aggregations with `by` before their argument, arithmetic); anything else throws, so an expression it cannot
 * read fails the check instead of passing it unread. Syntax proper is promtool's job.
 */

export interface Selector {
  metric: string;
  /** Label names of its matchers. */
  matchers: string[];
}

export interface Grouping {
  /** The labels of `by (…)`. */
  labels: string[];
  /** The metrics of the aggregation's argument. */
  metrics: string[];
}

export interface PromqlNames {
  selectors: Selector[];
  /** In the order they open: the outermost aggregation of the expression's first operand is first. */
  groupings: Grouping[];
}

type Token = { kind: "ident" | "string" | "number" | "punct"; text: string };

const KEYWORDS = new Set(["and", "or", "unless", "bool", "offset"]);
const UNSUPPORTED = new Set(["without", "on", "ignoring", "group_left", "group_right"]);

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|([a-zA-Z_:][a-zA-Z0-9_:]*)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)|(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|(=~|!~|!=|==|>=|<=|[(){}[\],=<>+\-*/%^:@])/y;
  let at = 0;
  while (at < expr.length) {
    pattern.lastIndex = at;
    const m = pattern.exec(expr);
    if (!m) throw new Error(`cannot read "${expr.slice(at, at + 20)}" in ${expr}`);
    at = pattern.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: "ident", text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: "string", text: m[2] });
    else if (m[3] !== undefined) tokens.push({ kind: "number", text: m[3] });
    else if (m[4] !== undefined) tokens.push({ kind: "punct", text: m[4] });
  }
  return tokens;
}

/** Index of the token that closes the bracket opened at `open`. */
function closing(tokens: Token[], open: number): number {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const close = pairs[tokens[open]!.text]!;
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i]!.text === tokens[open]!.text) depth++;
    else if (tokens[i]!.text === close && --depth === 0) return i;
  }
  throw new Error(`unclosed "${tokens[open]!.text}"`);
}

function labelList(tokens: Token[], open: number, close: number): string[] {
  return tokens.slice(open + 1, close).filter((t) => t.text !== ",").map((t) => {
    if (t.kind !== "ident") throw new Error(`"${t.text}" is not a label name`);
    return t.text;
  });
}

export function readPromql(expr: string): PromqlNames {
  const tokens = tokenize(expr);
  const selectors: (Selector & { at: number })[] = [];
  const groupings: { labels: string[]; from: number; to: number }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1]?.text;
    if (token.text === "[") {
      i = closing(tokens, i);
      continue;
    }
    if (token.text === "{") throw new Error(`a selector without a metric name in ${expr}`);
    if (token.kind !== "ident") continue;
    if (UNSUPPORTED.has(token.text)) throw new Error(`"${token.text}" is not read here; write the query with "by" in ${expr}`);
    if (token.text === "by") {
      const before = tokens[i - 1];
      const close = next === "(" ? closing(tokens, i + 1) : -1;
      if (before?.kind !== "ident" || close < 0 || tokens[close + 1]?.text !== "(") throw new Error(`"by (…)" must come between the aggregation and its argument in ${expr}`);
      groupings.push({ labels: labelList(tokens, i + 1, close), from: close + 1, to: closing(tokens, close + 1) });
      i = close;
      continue;
    }
    if (next === "(" || next === "by" || KEYWORDS.has(token.text)) continue;
    if (next === "{") {
      const close = closing(tokens, i + 1);
      const inside = tokens.slice(i + 2, close);
      const matchers: string[] = [];
      for (let m = 0; m < inside.length; m += 4) {
        const [name, op, value, comma] = inside.slice(m, m + 4);
        if (name?.kind !== "ident" || !["=", "!=", "=~", "!~"].includes(op?.text ?? "") || value?.kind !== "string" || (comma && comma.text !== ",")) {
          throw new Error(`cannot read the matchers of ${token.text} in ${expr}`);
        }
        matchers.push(name.text);
      }
      selectors.push({ metric: token.text, matchers, at: i });
      i = close;
      continue;
    }
    selectors.push({ metric: token.text, matchers: [], at: i });
  }
  return {
    selectors: selectors.map(({ metric, matchers }) => ({ metric, matchers })),
    groupings: groupings.map((g) => ({ labels: g.labels, metrics: selectors.filter((s) => s.at > g.from && s.at < g.to).map((s) => s.metric) })),
  };
}
