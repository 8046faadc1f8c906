import type { Matcher } from "./silences.ts";

/**
 * Silence matchers as people write them, in Alertmanager's and amtool's syntax, one per line:
 * `group=cg_push`, `group=~"cg_.*"`, `severity!=info`, `topic!~"TEST_.*"`. Values may be double-quoted (JSON
 * string escapes) and must be when they hold spaces, quotes or a leading operator character.
 */

const LINE = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*$/;

/** Splits at line ends and at commas outside double quotes. */
function split(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === "\\") {
      current += c + (text[i + 1] ?? "");
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (!quoted && (c === "\n" || c === ",")) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

export function parseMatchers(text: string): { matchers: Matcher[] } | { problem: string } {
  const matchers: Matcher[] = [];
  const lines = split(text);
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) return { problem: `"${line}" is not name=value, name!=value, name=~regex or name!~regex` };
    const [, name, op, raw] = m as unknown as [string, string, string, string];
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        return { problem: `"${line}": the quoted value is not closed or has a bad escape` };
      }
      if (typeof value !== "string") return { problem: `"${line}": the value is not a string` };
    }
    matchers.push({ name, value, isRegex: op.endsWith("~"), isEqual: op.startsWith("=") });
  }
  if (matchers.length === 0) return { problem: "no matcher: a silence needs at least one" };
  return { matchers };
}

/** One line per matcher, quoting any value a plain one would not read back as. */
export function formatMatchers(matchers: readonly Matcher[]): string {
  return matchers
    .map((m) => {
      const op = `${m.isEqual ? "=" : "!"}${m.isRegex ? "~" : m.isEqual ? "" : "="}`;
      const plain = /^[^\s","=~!][^\s",]*$/.test(m.value);
      return `${m.name}${op}${plain ? m.value : JSON.stringify(m.value)}`;
    })
    .join("\n");
}
