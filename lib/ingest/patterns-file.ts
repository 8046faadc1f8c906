import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { UserPattern } from "../../collectors/codecs/user-pattern.ts";
import { compilePatterns, PatternsError } from "../../collectors/codecs/user-patterns.ts";

export { PatternsError };

/**
 * Reads and checks a patterns file (docs/ingest.md#your-own-patterns): YAML (or JSON), `patterns:` a list. Any
 * problem is a PatternsError naming the file and the pattern, so the CLI stops with it (exit 2) and the server does
 * not start: nothing runs half-configured.
 */
export function loadPatternsFile(file: string): UserPattern[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new PatternsError(`${file}: cannot read the patterns file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new PatternsError(`${file}: not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  return compilePatterns(value, file);
}

const KEY = Symbol.for("dupscope.patterns");
type Holder = { [KEY]?: UserPattern[] };

/**
 * The server's patterns, from DUPSCOPE_PATTERNS (a file), read once: the server reads them at start-up
 * (instrumentation-node.ts), so a bad file stops it there rather than failing each ingest.
 */
export function serverPatterns(env: NodeJS.ProcessEnv = process.env): UserPattern[] {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const file = env.DUPSCOPE_PATTERNS?.trim();
    holder[KEY] = file ? loadPatternsFile(file) : [];
  }
  return holder[KEY];
}
