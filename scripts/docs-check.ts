// `npm run docs:check`: every example in the docs is checked against the code it describes. The same checks run
// in `npm test` (tests/unit/project/docs-snippets.test.ts).
//
// Docs: README.md, docs/*.md, and the README.md files under collectors/, lib/, emitters/, packages/ and tests/fixtures/.
// In each:
//   Commands, in sh/bash/shell/zsh blocks (every line), console and untagged blocks (the lines after a `$ ` prompt)
//   and inline `code` that starts with npm/npx/dupscope/curl:
//     npm run X, npm test/start  → X is a script in package.json; options after `--` are read by its source file
//     dupscope <sub…> --opt      → the subcommand and every option exist in the commander program that
//                                  cli/main.ts builds; a --format value is auto or a format of collectors/registry.ts;
//                                  options named in the line's comment (and indented comment lines below) exist too
//     npx <bin>                  → node_modules/.bin/<bin> exists (npx would otherwise download it)
//     npx tsx FILE, node FILE    → FILE exists, and reads the options given
//     curl … /api/…, /v1/…       → app/**/route.ts for that path exports the method ([param] matches a segment)
//     DUPSCOPE_X=… in front      → DUPSCOPE_X is read by the code (lib/, app/, cli/, scripts/, …)
//   `METHOD /api/…` and `METHOD /v1/…` (OTLP/HTTP) in prose and tables → as for curl
//   json blocks parse (whole, or line by line as NDJSON; jsonc/json5 are not checked); yaml/yml blocks parse
//   ts/typescript/js blocks: imports of repo paths (./…, @/…) resolve, and the names they import are exported
//   java/kotlin/xml blocks that write the dedup log: every field they name is a dedup log v1 field, every layer and
//   decision one the collector reads, and xml tags close in order (emitters/java/README.md's java blocks are also
//   compiled against the emitter, by tests/unit/collectors/dedup-log-java-emitter.test.ts)
//   env/dotenv blocks and the prose: every DUPSCOPE_* variable is read by the code; in a table headed
//   "variable", every variable is read by some code (tests and benchmarks included)
//   relative links [x](path) point to files that exist, and #anchors to headings they have; inline `lib/…` paths
//   exist; no doc cites a path outside the repository (a sibling checkout's reference folder, this machine's
//   work-tree root: OUTSIDE below)
//   tables whose first column is headed "(`--format`)" list exactly the registered formats
// Cheap examples run for real, through bin/dupscope.mjs: `dupscope formats`, `dupscope rabbitmq setup` without
// --apply (the commands it prints must be the ones its block shows), `dupscope explain FILE` for a FILE in the repo.
//
// Prints a summary per file and each problem as file:line; exits 1 on any problem. Arguments: doc files to check
// (default: all).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, Option } from "commander";
import { parse as parseYaml } from "yaml";
import { DEDUP_DECISIONS, DEDUP_LAYERS, dedupLogV1Schema } from "../collectors/dedup-log/parse.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface Problem {
  file: string;
  line: number;
  message: string;
}

export interface FileReport {
  file: string;
  blocks: number;
  checks: number;
  ran: number;
  problems: Problem[];
}

export interface Context {
  root: string;
  scripts: Record<string, string>;
  program: Command;
  formats: string[];
  /** "GET /api/v1/keys/[bizKey]" style: method and route segments. */
  routes: { segments: string[]; methods: Set<string>; file: string }[];
  /** Variables read by the product's code (lib/, app/, cli/, scripts/, …): where DUPSCOPE_* must be read. */
  envRead: Set<string>;
  /** Variables read anywhere, tests and benchmarks included: for the configuration table. */
  envReadAnywhere: Set<string>;
  /** Run cheap examples through bin/dupscope.mjs. */
  run: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// What the repository offers

function walk(dir: string, keep: (file: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

export function docFiles(root = ROOT): string[] {
  const md = (f: string) => f.endsWith(".md");
  const files = [
    ...(existsSync(path.join(root, "README.md")) ? [path.join(root, "README.md")] : []),
    ...walk(path.join(root, "docs"), md).filter((f) => path.dirname(f) === path.join(root, "docs")),
    ...walk(path.join(root, "collectors"), (f) => path.basename(f) === "README.md"),
    ...walk(path.join(root, "lib"), (f) => path.basename(f) === "README.md"),
    ...walk(path.join(root, "emitters"), (f) => path.basename(f) === "README.md"),
    ...walk(path.join(root, "packages"), (f) => path.basename(f) === "README.md"),
    ...walk(path.join(root, "tests", "fixtures"), (f) => path.basename(f) === "README.md"),
  ];
  return files.map((f) => path.relative(root, f).split(path.sep).join("/")).sort();
}

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function loadRoutes(root: string): Context["routes"] {
  // every route handler under app/: the API under app/api, and the OTLP/HTTP path app/v1/traces
  return walk(path.join(root, "app"), (f) => /^route\.(ts|tsx|js|mjs)$/.test(path.basename(f))).map((file) => {
    const source = readFileSync(file, "utf8");
    const methods = new Set<string>();
    for (const m of HTTP_METHODS) {
      const direct = new RegExp(`export\\s+(?:async\\s+)?(?:function\\s*\\*?|const|let|var)\\s+${m}\\b`);
      const listed = new RegExp(`export\\s*\\{[^}]*\\b(?:as\\s+)?${m}\\b[^}]*\\}`);
      if (direct.test(source) || listed.test(source)) methods.add(m);
    }
    // Next.js answers HEAD for a GET handler, and OPTIONS for every route.
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
    return { segments: rel.filter((s) => !/^\(.*\)$/.test(s)), methods, file: path.relative(root, file) };
  });
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Variables the code reads: env.NAME, env["NAME"], or NAME as a whole string passed to a helper. */
function loadEnvRead(root: string, dirNames: string[]): Set<string> {
  const dirs = dirNames.map((d) => path.join(root, d));
  const rootFiles = readdirSync(root)
    .filter((f) => /\.(ts|tsx|mjs|js|cjs)$/.test(f))
    .map((f) => path.join(root, f));
  const tests = dirNames.includes("tests");
  const files = [...rootFiles, ...dirs.flatMap((d) => walk(d, (f) => /\.(ts|tsx|mjs|js|cjs)$/.test(f) && (tests || !/\.test\.tsx?$/.test(f))))];
  const names = new Set<string>();
  const pattern = /\benv\s*(?:\.\s*([A-Z][A-Z0-9_]+)|\[\s*["'`]([A-Z][A-Z0-9_]+)["'`]\s*\])|["'`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)["'`]/g;
  for (const file of files) {
    if (file === fileURLToPath(import.meta.url)) continue;
    for (const m of stripComments(readFileSync(file, "utf8")).matchAll(pattern)) names.add((m[1] ?? m[2] ?? m[3])!);
  }
  return names;
}

const PRODUCT_DIRS = ["lib", "app", "cli", "scripts", "bin", "collectors", "components"];

export async function loadContext(root = ROOT, options: { run?: boolean } = {}): Promise<Context> {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  const { buildProgram } = (await import(path.join(root, "cli", "main.ts"))) as { buildProgram: (log: (l: string) => void, out: (l: string) => void) => Command };
  const { FORMATS } = (await import(path.join(root, "collectors", "registry.ts"))) as { FORMATS: readonly { name: string }[] };
  const quiet = () => {};
  return {
    root,
    scripts: pkg.scripts ?? {},
    program: buildProgram(quiet, quiet),
    formats: FORMATS.map((f) => f.name),
    routes: loadRoutes(root),
    envRead: loadEnvRead(root, PRODUCT_DIRS),
    envReadAnywhere: loadEnvRead(root, [...PRODUCT_DIRS, "bench", "tests"]),
    run: options.run ?? true,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown

interface Block {
  lang: string;
  /** 1-based line of the block's first content line. */
  line: number;
  lines: string[];
}

interface Span {
  text: string;
  line: number;
}

/** Fenced blocks, and the prose outside them (fenced lines blanked so line numbers stay). */
export function splitMarkdown(text: string): { blocks: Block[]; prose: string[] } {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  const prose: string[] = [];
  let open: { fence: string; block: Block } | null = null;
  lines.forEach((line, i) => {
    if (open) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
        blocks.push(open.block);
        open = null;
      } else open.block.lines.push(line);
      prose.push("");
      return;
    }
    const start = /^\s*(`{3,}|~{3,})\s*([^\s`{]*)/.exec(line);
    if (start) {
      open = { fence: start[1]!, block: { lang: start[2]!.toLowerCase(), line: i + 2, lines: [] } };
      prose.push("");
      return;
    }
    prose.push(line);
  });
  if (open) blocks.push((open as { block: Block }).block);
  return { blocks, prose };
}

/** Inline code spans of the prose (a span may wrap onto the next line, as in CommonMark). */
function inlineSpans(prose: string[]): Span[] {
  const spans: Span[] = [];
  const text = prose.join("\n");
  const starts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  for (const m of text.matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)) {
    if (m[2]!.includes("\n\n")) continue;
    spans.push({ text: m[2]!.replace(/\n/g, " ").trim(), line: lineOf(m.index!) });
  }
  return spans;
}

/** Prose with inline code removed, for link extraction. */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (s) => " ".repeat(s.length));
}

// ---------------------------------------------------------------------------------------------------------------
// Shell

/** Splits a shell line into commands of words: quotes, escapes, comments, &&, ||, ;, | and &. */
export function shellCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" ) {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        word += line[j];
        j++;
      }
      inWord = true;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === "<" && !inWord && line.indexOf(">", i) > i) {
      // a <placeholder> in a synopsis, which may hold | (as in <file|->): one word
      const end = line.indexOf(">", i);
      word += line.slice(i, end + 1);
      inWord = true;
      i = end;
    } else if (c === "#" && !inWord) {
      break;
    } else if (/\s/.test(c)) {
      endWord();
    } else if (c === "&" || c === "|" || c === ";") {
      if (line[i + 1] === c) i++;
      endCommand();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** The command lines of a block: every line of a shell block, the `$ ` lines of a console or untagged block. */
function commandLines(block: Block): { text: string; line: number }[] {
  const shell = ["sh", "bash", "shell", "zsh"].includes(block.lang);
  const prompted = block.lang === "console" || block.lang === "" || block.lang === "text";
  if (!shell && !prompted) return [];
  const out: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | null = null;
  block.lines.forEach((raw, i) => {
    let text = raw;
    if (!pending) {
      if (prompted) {
        const m = /^\s*\$\s+(.*)$/.exec(raw);
        if (!m) return;
        text = m[1]!;
      }
      pending = { text: "", line: block.line + i };
    }
    if (/\\\s*$/.test(text)) {
      pending.text += `${text.replace(/\\\s*$/, "")} `;
      return;
    }
    pending.text += text;
    out.push(pending);
    pending = null;
  });
  if (pending) out.push(pending);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

interface Checker {
  ctx: Context;
  file: string;
  report: FileReport;
  problem(line: number, message: string): void;
  checked(): void;
}

const isPlaceholder = (w: string) => /[<>…$*]|^\.\.\.$/.test(w) || /^[A-Z][A-Z_]*$/.test(w);
const unbracket = (w: string) => w.replace(/^\[+/, "").replace(/\]+$/, "");

function checkEnvName(c: Checker, line: number, name: string): void {
  c.checked();
  if (!c.ctx.envRead.has(name)) c.problem(line, `${name}: no code in lib/, app/, cli/ or scripts/ reads this variable`);
}

/** Words of one command; returns after stripping leading VAR=value assignments (checked). */
function stripAssignments(c: Checker, line: number, words: string[]): string[] {
  let i = 0;
  if (words[0] === "export" || words[0] === "env") i = 1;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) {
    const name = words[i]!.slice(0, words[i]!.indexOf("="));
    if (name.startsWith("DUPSCOPE_")) checkEnvName(c, line, name);
    i++;
  }
  return words.slice(i);
}

function findSub(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((s) => s.name() === name || s.aliases().includes(name));
}

function findOption(cmd: Command, flag: string): Option | undefined {
  for (let at: Command | null = cmd; at; at = at.parent) {
    const found = at.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

/** `dupscope …` words (after the program name); returns the command they name. */
function checkDupscope(c: Checker, line: number, args: string[], shown: string[]): Command | undefined {
  c.checked();
  let cmd = c.ctx.program;
  const names: string[] = [];
  const words = args.map(unbracket).filter((w) => w !== "");
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--help" || w === "-h") return cmd;
    if (w.startsWith("-")) break;
    if (cmd.commands.length === 0) break;
    if (isPlaceholder(w)) return undefined; // `dupscope …`
    const sub = findSub(cmd, w);
    if (!sub) {
      c.problem(line, `dupscope ${[...names, w].join(" ")}: no such command (${cmd.commands.map((s) => s.name()).join(", ")})`);
      return undefined;
    }
    cmd = sub;
    names.push(w);
  }
  if (cmd.commands.length > 0 && !words.slice(i).some((w) => w === "--help" || w === "-h")) {
    if (names.length === 0 && words.length === 0) return undefined; // a bare `dupscope` in prose
    c.problem(line, `dupscope ${names.join(" ")}: a subcommand is missing (${cmd.commands.map((s) => s.name()).join(", ")})`);
    return undefined;
  }
  const label = `dupscope ${names.join(" ")}`;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") break;
    if (!/^--?[A-Za-z]/.test(w)) continue;
    const [flag, inlineValue] = w.includes("=") ? [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)] : [w, undefined];
    if (flag === "--help" || flag === "-h") continue;
    const option = findOption(cmd, flag);
    if (!option) {
      c.problem(line, `${label}: no option ${flag} (it has ${cmd.options.map((o) => o.long).join(", ") || "none"})`);
      continue;
    }
    const takesValue = option.required || option.optional;
    const value = inlineValue ?? (takesValue ? words[i + 1] : undefined);
    if (takesValue && inlineValue === undefined) i++;
    if (option.long === "--format" && value !== undefined && !isPlaceholder(value)) {
      if (value !== "auto" && !c.ctx.formats.includes(value)) c.problem(line, `${label} --format ${value}: not a registered format (auto, ${c.ctx.formats.join(", ")})`);
    }
  }
  if (c.ctx.run) runExample(c, line, names, args, shown);
  return cmd;
}

/** Runs the cheap, side-effect-free examples for real through bin/dupscope.mjs. */
function runExample(c: Checker, line: number, names: string[], args: string[], shown: string[]): void {
  const words = args.map(unbracket).filter((w) => w !== "");
  const key = names.join(" ");
  let runArgs: string[] | null = null;
  if (key === "formats" && words.length === 1) runArgs = words;
  // never with --apply: that would run the commands against this machine's broker
  if (key === "rabbitmq setup") runArgs = words.filter((w) => w !== "--apply");
  if (key === "explain") {
    const file = words.slice(1).find((w) => !w.startsWith("-"));
    if (file && !isPlaceholder(file) && existsSync(path.join(c.ctx.root, file)) && statSync(path.join(c.ctx.root, file)).isFile()) runArgs = words;
  }
  if (!runArgs) return;
  c.report.ran++;
  const result = spawnSync(process.execPath, [path.join(c.ctx.root, "bin", "dupscope.mjs"), ...runArgs], {
    cwd: c.ctx.root,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  const shownAs = `dupscope ${runArgs.join(" ")}`;
  if (result.status !== 0) {
    c.problem(line, `${shownAs} exited ${result.status ?? result.signal}: ${(result.stderr || result.stdout).trim().split("\n")[0]}`);
    return;
  }
  if (key === "formats") {
    const listed = result.stdout.trim().split("\n").map((l) => l.split(/\s+/)[0]);
    if (listed.join() !== c.ctx.formats.join()) c.problem(line, `${shownAs} lists ${listed.join(", ")}, the registry has ${c.ctx.formats.join(", ")}`);
  }
  if (key === "rabbitmq setup") {
    // The block shows the commands it prints: they must be the same.
    const printed = result.stdout.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#")).map((l) => l.trim());
    const manual = shown.filter((l) => /^(rabbitmq-plugins|rabbitmqctl)\b/.test(l));
    for (const m of manual) if (!printed.includes(m)) c.problem(line, `${shownAs} does not print "${m}" (it prints: ${printed.join("; ")})`);
    if (manual.length > 0) for (const p of printed) if (!manual.includes(p)) c.problem(line, `${shownAs} prints "${p}", which the block does not show`);
  }
}

/** Source of a script file and of the files it imports (one level), to tell whether it reads an option. */
function scriptSource(root: string, file: string): string {
  const full = path.join(root, file);
  if (!existsSync(full)) return "";
  const source = readFileSync(full, "utf8");
  const imported = [...source.matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)].map((m) => path.resolve(path.dirname(full), m[1]!));
  return [source, ...imported.filter((f) => existsSync(f)).map((f) => readFileSync(f, "utf8"))].join("\n");
}

function checkScriptOptions(c: Checker, line: number, label: string, file: string, args: string[]): void {
  const source = scriptSource(c.ctx.root, file);
  if (source === "") return;
  for (const raw of args) {
    const w = unbracket(raw);
    const m = /^--([A-Za-z][\w-]*)/.exec(w);
    if (!m) continue;
    const name = m[1]!;
    const esc = name.replace(/[-]/g, "\\-");
    const reads = new RegExp(`--${esc}\\b|["'\`]${esc}["'\`]|[{,\\s]["']?${esc}["']?\\s*:`).test(source);
    c.checked();
    if (!reads) c.problem(line, `${label}: ${file} reads no option --${name}`);
  }
}

/** The file a package.json script runs (`tsx FILE`, `node FILE`), if it is that simple. */
function scriptFile(command: string): string | undefined {
  const m = /(?:^|\s)(?:tsx|node)\s+(?:--[\w-]+(?:=\S+)?\s+)*([\w./-]+\.(?:ts|mjs|js|cjs))\b/.exec(command);
  return m?.[1];
}

function checkNpm(c: Checker, line: number, args: string[], shown: string[]): Command | undefined {
  const [sub, ...rest] = args;
  if (sub === undefined) return undefined;
  if (["install", "i", "ci", "help", "view", "ls", "exec", "install-scripts"].includes(sub)) return undefined;
  let script: string | undefined;
  let after: string[] = [];
  if (sub === "run" || sub === "run-script") {
    script = rest[0];
    const dd = rest.indexOf("--");
    const ddBracket = rest.findIndex((w) => unbracket(w) === "--");
    const at = dd >= 0 ? dd : ddBracket;
    after = at >= 0 ? rest.slice(at + 1) : [];
  } else if (["test", "t", "start", "stop", "restart"].includes(sub)) {
    script = sub === "t" ? "test" : sub;
    const dd = rest.indexOf("--");
    after = dd >= 0 ? rest.slice(dd + 1) : [];
  } else return undefined;
  if (script === undefined || isPlaceholder(script)) return undefined;
  c.checked();
  const command = c.ctx.scripts[script];
  if (command === undefined) {
    c.problem(line, `npm run ${script}: no such script in package.json`);
    return undefined;
  }
  if (script === "dupscope") return checkDupscope(c, line, after, shown);
  const file = scriptFile(command);
  if (file) checkScriptOptions(c, line, `npm run ${script}`, file, after);
  return undefined;
}

function checkCurl(c: Checker, line: number, args: string[]): void {
  let method: string | undefined;
  let data = false;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === "-X" || w === "--request") method = args[++i]?.toUpperCase();
    else if (/^-X[A-Z]+$/.test(w)) method = w.slice(2);
    else if (w === "-I" || w === "--head") method ??= "HEAD";
    else if (/^(-d|--data|--data-binary|--data-raw|--data-urlencode|--json|-F|--form)$/.test(w)) {
      data = true;
      i++;
    } else if (/^(-H|--header|-u|--user|-o|--output|-b|--cookie|-c|--cookie-jar|-A|--user-agent|-e|--referer|-w|--write-out|-m|--max-time)$/.test(w)) i++;
    else if (ROUTE_PATH.test(w)) url = w;
  }
  if (!url) return;
  checkRoute(c, line, method ?? (data ? "POST" : "GET"), url, `curl ${url}`);
}

/** Paths the docs name routes by: the HTTP API (/api/…) and OTLP/HTTP (/v1/…, e.g. /v1/traces). */
const ROUTE_PATH = /\/(?:api|v1)\//;

function checkRoute(c: Checker, line: number, method: string, url: string, label: string, shownAs?: string): void {
  c.checked();
  const p = url.slice(url.search(ROUTE_PATH)).replace(/[?#].*$/, "").replace(/\/+$/, "");
  const segments = p.split("/").filter(Boolean);
  const matches = c.ctx.routes.filter((r) => {
    const catchAll = r.segments.findIndex((s) => /^\[\[?\.\.\./.test(s));
    if (catchAll >= 0 ? segments.length < catchAll : r.segments.length !== segments.length) return false;
    return r.segments.every((s, i) => (/^\[/.test(s) ? true : s === segments[i]));
  });
  // a literal segment beats a [param] one, as in Next.js
  matches.sort((a, b) => b.segments.filter((s) => !s.startsWith("[")).length - a.segments.filter((s) => !s.startsWith("[")).length);
  const route = matches[0];
  if (!route) {
    c.problem(line, `${label}: no route app${p}/route.ts`);
    return;
  }
  if (!route.methods.has(method)) c.problem(line, `${shownAs ?? `${method} ${p}`}: ${route.file} exports no ${method} (it has ${[...route.methods].filter((m) => m !== "OPTIONS" && m !== "HEAD").join(", ")})`);
}

/** Checks one command; returns the dupscope command it runs, if it runs one. */
function checkCommand(c: Checker, line: number, rawWords: string[], shown: string[]): Command | undefined {
  const words = stripAssignments(c, line, rawWords);
  const [head, ...args] = words;
  if (head === undefined) return undefined;
  if (head === "dupscope") return checkDupscope(c, line, args, shown);
  if (head === "npm") return checkNpm(c, line, args, shown);
  if (head === "curl") checkCurl(c, line, args);
  if (head === "npx") {
    const rest = args.filter((w) => !/^(--yes|-y|--no|--no-install|--quiet|-q)$/.test(w));
    const bin = rest[0];
    if (bin === undefined || isPlaceholder(bin)) return undefined;
    if (bin === "dupscope") return checkDupscope(c, line, rest.slice(1), shown);
    c.checked();
    if (!existsSync(path.join(c.ctx.root, "node_modules", ".bin", bin))) c.problem(line, `npx ${bin}: not installed (node_modules/.bin/${bin}); npx would download it`);
    else if (bin === "tsx") checkNodeFile(c, line, `npx tsx`, rest.slice(1));
  }
  if (head === "node" || head === "tsx") checkNodeFile(c, line, head, args);
  return undefined;
}

function checkNodeFile(c: Checker, line: number, label: string, args: string[]): void {
  const at = args.findIndex((w) => !w.startsWith("-"));
  const file = args[at];
  if (file === undefined || !/\.(ts|mjs|js|cjs|tsx)$/.test(file) || isPlaceholder(file)) return;
  c.checked();
  if (!existsSync(path.join(c.ctx.root, file))) {
    c.problem(line, `${label} ${file}: no such file`);
    return;
  }
  checkScriptOptions(c, line, `${label} ${file}`, file, args.slice(at + 1));
}

/** Options a comment names (`# the same; --json, --lang zh-CN`) must be options of the command it comments on. */
function checkCommentOptions(c: Checker, line: number, cmd: Command, comment: string): void {
  for (const m of comment.matchAll(/(?:^|[\s,;(])(--[a-z][\w-]*)/g)) {
    c.checked();
    if (m[1] !== "--help" && !findOption(cmd, m[1]!)) c.problem(line, `dupscope ${cmd.name()}: no option ${m[1]} (named in the comment)`);
  }
}

function checkShellBlock(c: Checker, block: Block): void {
  const lines = commandLines(block);
  const shown = lines.map((l) => l.text.replace(/\s+#.*$/, "").trim());
  // the dupscope command of the last command line, which indented comment lines below it go on describing
  let commented: Command | undefined;
  for (const { text, line } of lines) {
    const commentOnly = /^\s+#/.test(text);
    if (commentOnly) {
      if (commented) checkCommentOptions(c, line, commented, text.replace(/^\s+#/, ""));
      continue;
    }
    commented = undefined;
    for (const words of shellCommands(text)) commented = checkCommand(c, line, words, shown) ?? commented;
    const comment = /\s#\s(.*)$/.exec(text)?.[1];
    if (commented && comment) checkCommentOptions(c, line, commented, comment);
  }
}

function checkJson(c: Checker, block: Block): void {
  c.checked();
  const text = block.lines.join("\n");
  try {
    JSON.parse(text);
    return;
  } catch (whole) {
    // NDJSON: one value per line
    const nonEmpty = block.lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== "");
    if (nonEmpty.length > 1) {
      const bad = nonEmpty.filter(({ l }) => {
        try {
          JSON.parse(l);
          return false;
        } catch {
          return true;
        }
      });
      if (bad.length === 0) return;
      if (bad.length < nonEmpty.length) {
        for (const { l, i } of bad) {
          try {
            JSON.parse(l);
          } catch (e) {
            c.problem(block.line + i, `json: ${(e as Error).message}`);
          }
        }
        return;
      }
    }
    const message = (whole as Error).message;
    const pos = /position (\d+)/.exec(message);
    const offsetLine = pos ? text.slice(0, Number(pos[1])).split("\n").length - 1 : 0;
    c.problem(block.line + offsetLine, `json does not parse: ${message}`);
  }
}

function checkYaml(c: Checker, block: Block): void {
  c.checked();
  try {
    parseYaml(block.lines.join("\n"));
  } catch (e) {
    const linePos = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line ?? 1;
    c.problem(block.line + linePos - 1, `yaml does not parse: ${(e as Error).message.split("\n")[0]}`);
  }
}

const DEDUP_FIELDS = new Set(Object.keys(dedupLogV1Schema.shape));
const DEDUP_VALUES: Record<string, readonly string[]> = { layer: DEDUP_LAYERS, decision: DEDUP_DECISIONS };

/**
 * Java and XML examples of writing the dedup log through a logging framework (logback, log4j2, slf4j's MDC) cannot
 * be compiled here without those libraries; what they must get right is the record: every field they name through
 * kv(…), MDC.put(…), includeMdcKeyName or fieldName is one of dedup log v1's (a misspelt one leaves a required
 * field out and every line refused), and every layer or decision they write is one the collector reads. XML must be
 * well formed besides.
 */
function checkDedupLogBlock(c: Checker, block: Block): void {
  const text = block.lines.join("\n");
  if (!/dedup/i.test(text)) return;
  block.lines.forEach((line, i) => {
    const at = block.line + i;
    const names = [
      ...line.matchAll(/\bkv\(\s*"([^"]+)"/g),
      ...line.matchAll(/\bMDC\.put\(\s*"([^"]+)"/g),
      ...line.matchAll(/<(?:includeMdcKeyName|fieldName)>([^<]+)</g),
    ].map((m) => m[1]!);
    for (const name of names) {
      c.checked();
      if (!DEDUP_FIELDS.has(name)) c.problem(at, `"${name}" is no dedup log v1 field (${[...DEDUP_FIELDS].join(", ")})`);
    }
    for (const m of line.matchAll(/\bkv\(\s*"(layer|decision)"\s*,\s*"([^"]+)"\s*\)/g)) {
      c.checked();
      if (!DEDUP_VALUES[m[1]!]!.includes(m[2]!)) c.problem(at, `${m[1]} "${m[2]}" is not one of ${DEDUP_VALUES[m[1]!]!.join(", ")}`);
    }
  });
  if (block.lang === "xml") checkXmlTags(c, block);
}

/** Tags open and close in order (comments, declarations and self-closing tags aside): enough to catch a broken paste. */
function checkXmlTags(c: Checker, block: Block): void {
  c.checked();
  // Comments are blanked, not removed, so positions still give lines; a tag's attributes may span lines.
  const text = block.lines.join("\n").replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, (m) => m.replace(/[^\n]/g, " "));
  const lineAt = (index: number) => block.line + (text.slice(0, index).match(/\n/g)?.length ?? 0);
  const open: { name: string; line: number }[] = [];
  for (const m of text.matchAll(/<(\/?)([A-Za-z_][\w.:-]*)[^<>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    const line = lineAt(m.index);
    if (!closing) {
      open.push({ name: name!, line });
      continue;
    }
    const at = open.map((o) => o.name).lastIndexOf(name!);
    // A close of an outer element: the ones inside it were left open. A close of nothing open: a stray tag.
    if (at >= 0) for (const left of open.splice(at).slice(1)) c.problem(left.line, `<${left.name}> is never closed`);
    else c.problem(line, `</${name}> closes ${open.at(-1) ? `<${open.at(-1)!.name}> (line ${open.at(-1)!.line})` : "nothing"}`);
  }
  for (const left of open) c.problem(left.line, `<${left.name}> is never closed`);
}

const RESOLVE_EXT = ["", ".ts", ".tsx", ".mjs", ".js", "/index.ts", "/index.tsx", "/index.js"];

function resolveRepoImport(c: Checker, spec: string): string | undefined {
  const docDir = path.dirname(path.join(c.ctx.root, c.file));
  const bases = spec.startsWith("@/")
    ? [path.join(c.ctx.root, spec.slice(2))]
    : spec.startsWith("/")
      ? [path.join(c.ctx.root, spec)]
      : // relative to the doc's folder, or to the repository root where the commands are run
        [path.resolve(docDir, spec), path.resolve(c.ctx.root, spec)];
  for (const base of bases) {
    if (!base.startsWith(c.ctx.root + path.sep)) continue;
    for (const ext of RESOLVE_EXT) {
      const f = base + ext;
      if (existsSync(f) && statSync(f).isFile()) return f;
    }
  }
  return undefined;
}

function exportsName(file: string, name: string, seen = new Set<string>()): boolean | "unknown" {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  const esc = name.replace(/\$/g, "\\$");
  if (new RegExp(`export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:function\\s*\\*?|const|let|var|class|interface|type|enum|abstract\\s+class)\\s+${esc}\\b`).test(source)) return true;
  for (const m of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    const names = m[1]!.split(",").map((s) => s.trim().split(/\s+as\s+/).pop()!.replace(/^type\s+/, ""));
    if (names.includes(name)) return true;
  }
  if (/export\s+\*\s+from/.test(source)) return "unknown";
  return false;
}

function checkImports(c: Checker, block: Block): void {
  const text = block.lines.join("\n");
  const importRe = /(?:import|export)\s+(type\s+)?([\s\S]*?)\s*from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(importRe)) {
    const spec = (m[3] ?? m[4] ?? m[5])!;
    const line = block.line + text.slice(0, m.index).split("\n").length - 1;
    if (!(spec.startsWith(".") || spec.startsWith("@/") || spec.startsWith("/"))) {
      // a package: the repo's own dependencies or Node's builtins are fine; anything else belongs to the reader
      if (spec.startsWith("node:") && !builtinModules.includes(spec.slice(5))) c.problem(line, `import "${spec}": no such Node.js builtin`);
      continue;
    }
    c.checked();
    const file = resolveRepoImport(c, spec);
    if (!file) {
      c.problem(line, `import "${spec}": no such file in the repository`);
      continue;
    }
    const clause = m[2];
    const named = clause ? /\{([^}]*)\}/.exec(clause)?.[1] : undefined;
    if (!named) continue;
    for (const part of named.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim();
      if (!name) continue;
      if (exportsName(file, name) === false) c.problem(line, `import { ${name} } from "${spec}": ${path.relative(c.ctx.root, file)} exports no ${name}`);
    }
  }
}

function checkEnvBlock(c: Checker, block: Block): void {
  block.lines.forEach((l, i) => {
    const m = /^\s*(?:export\s+)?(DUPSCOPE_[A-Z0-9_]+)\s*=/.exec(l);
    if (m) checkEnvName(c, block.line + i, m[1]!);
  });
}

const OUTSIDE = [/(^|[\s("'`[])\/work\//, /\.\.\/shared\b/, /(^|[^\w-])shared\/reference\b/];

/** GitHub's heading anchors of a markdown text (and explicit <a id|name>). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of splitMarkdown(text).prose) {
    for (const m of line.matchAll(/<a\s+(?:id|name)=["']([^"']+)["']/g)) anchors.add(m[1]!);
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const words = h[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = counts.get(words) ?? 0;
    counts.set(words, n + 1);
    anchors.add(n === 0 ? words : `${words}-${n}`);
  }
  return anchors;
}

function checkLinks(c: Checker, prose: string[]): void {
  prose.forEach((raw, i) => {
    const line = withoutInlineCode(raw);
    const targets = [...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]!);
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // URLs, mail
      c.checked();
      const anchor = target.includes("#") ? decodeURIComponent(target.slice(target.indexOf("#") + 1)) : "";
      if (target.startsWith("#")) {
        if (!anchorsOf(prose.join("\n")).has(anchor)) c.problem(i + 1, `link ${target}: ${c.file} has no heading for this anchor`);
        continue;
      }
      const filePart = decodeURIComponent(target.replace(/[#?].*$/, ""));
      if (filePart.startsWith("/")) {
        c.problem(i + 1, `link ${target}: an absolute path; link relative to ${c.file}`);
        continue;
      }
      const resolved = path.resolve(path.dirname(path.join(c.ctx.root, c.file)), filePart);
      if (resolved !== c.ctx.root && !resolved.startsWith(c.ctx.root + path.sep)) {
        c.problem(i + 1, `link ${target}: outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) c.problem(i + 1, `link ${target}: ${path.relative(c.ctx.root, resolved)} does not exist`);
      else if (anchor && resolved.endsWith(".md") && !anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
        c.problem(i + 1, `link ${target}: ${path.relative(c.ctx.root, resolved)} has no heading for this anchor`);
      }
    }
  });
}

function checkOutsidePaths(c: Checker, lines: string[]): void {
  c.checked();
  lines.forEach((l, i) => {
    for (const re of OUTSIDE) {
      if (re.test(l)) c.problem(i + 1, `cites a path outside the repository: ${l.trim().slice(0, 100)}`);
    }
  });
}

function checkProse(c: Checker, prose: string[]): void {
  for (const span of inlineSpans(prose)) {
    const t = span.text;
    if (/^(npm (run|run-script|test|t|start)\b|npx \S|dupscope\s\S|curl\s)/.test(t)) {
      for (const words of shellCommands(t)) checkCommand(c, span.line, words, []);
    }
    if (/^(export\s+)?DUPSCOPE_[A-Z0-9_]+=/.test(t)) stripAssignments(c, span.line, shellCommands(t)[0] ?? []);
  }
  // a repository path in inline code (`lib/store/migrate.ts`, `collectors/`) exists
  const topDirs = readdirSync(c.ctx.root, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== "node_modules" && d.name !== ".git").map((d) => d.name);
  for (const span of inlineSpans(prose)) {
    const m = /^([\w.-]+)\/[^\s]*$/.exec(span.text);
    if (!m || !topDirs.includes(m[1]!) || /[<>{}*…$|]/.test(span.text)) continue;
    const p = span.text.replace(/[#:].*$/, "");
    c.checked();
    if (!existsSync(path.join(c.ctx.root, p)) && !existsSync(path.resolve(path.dirname(path.join(c.ctx.root, c.file)), p))) {
      c.problem(span.line, `${span.text}: no such file or folder in the repository`);
    }
  }
  // `METHOD /api/…` and `METHOD /v1/…` in prose and tables
  prose.forEach((l, i) => {
    for (const m of l.matchAll(/\b(GET|HEAD|POST|PUT|PATCH|DELETE) +(\/(?:api|v1)\/[^\s`)|,;\\]*)/g)) {
      const p = m[2]!.replace(/\{[^}/]*\}/g, "x").replace(/…$/, "");
      if (p.endsWith("/")) continue;
      checkRoute(c, i + 1, m[1]!, p, `${m[1]} ${m[2]}`, `${m[1]} ${m[2]}`);
    }
    // every DUPSCOPE_* variable the prose names is one the code reads
    for (const m of l.matchAll(/\bDUPSCOPE_[A-Z0-9_]*[A-Z0-9]\b/g)) checkEnvName(c, i + 1, m[0]);
  });
  // configuration tables: a first column headed "variable" names variables that some code reads
  for (let i = 0; i < prose.length; i++) {
    if (!/^\|\s*variables?\s*\|/i.test(prose[i]!)) continue;
    for (let j = i + 2; j < prose.length && prose[j]!.trim().startsWith("|"); j++) {
      const first = prose[j]!.split("|")[1] ?? "";
      for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) {
        c.checked();
        if (!c.ctx.envReadAnywhere.has(m[1]!)) c.problem(j + 1, `${m[1]}: no code (tests and benchmarks included) reads this variable`);
      }
    }
  }
  // format tables: a header cell "format (`--format`)" lists exactly the registered formats
  for (let i = 0; i < prose.length; i++) {
    if (!/^\|\s*[^|]*`--format`[^|]*\|/.test(prose[i]!)) continue;
    const listed: { name: string; line: number }[] = [];
    for (let j = i + 2; j < prose.length && prose[j]!.trim().startsWith("|"); j++) {
      const first = prose[j]!.split("|")[1] ?? "";
      const name = /`([\w-]+)`/.exec(first)?.[1];
      if (name) listed.push({ name, line: j + 1 });
    }
    c.checked();
    for (const { name, line } of listed) if (!c.ctx.formats.includes(name)) c.problem(line, `format table: ${name} is not a registered format`);
    const missing = c.ctx.formats.filter((f) => !listed.some((l) => l.name === f));
    if (missing.length > 0) c.problem(i + 1, `format table: misses ${missing.join(", ")}`);
  }
}

export function checkMarkdown(ctx: Context, file: string, text: string): FileReport {
  const report: FileReport = { file, blocks: 0, checks: 0, ran: 0, problems: [] };
  const c: Checker = {
    ctx,
    file,
    report,
    problem: (line, message) => report.problems.push({ file, line, message }),
    checked: () => void report.checks++,
  };
  const { blocks, prose } = splitMarkdown(text);
  report.blocks = blocks.length;
  for (const block of blocks) {
    const lang = block.lang;
    if (["sh", "bash", "shell", "zsh", "console", "", "text"].includes(lang)) checkShellBlock(c, block);
    if (lang === "json" || lang === "ndjson" || lang === "jsonl") checkJson(c, block);
    if (lang === "yaml" || lang === "yml") checkYaml(c, block);
    if (["ts", "typescript", "tsx", "js", "javascript", "mjs"].includes(lang)) checkImports(c, block);
    if (["env", "dotenv", "sh", "bash", "shell", "zsh", "ini", "properties"].includes(lang)) checkEnvBlock(c, block);
    if (["java", "kotlin", "xml"].includes(lang)) checkDedupLogBlock(c, block);
  }
  checkLinks(c, prose);
  checkOutsidePaths(c, text.split("\n"));
  checkProse(c, prose);
  // one problem per line and message
  const seen = new Set<string>();
  report.problems = report.problems.filter((p) => {
    const k = `${p.line}\0${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  report.problems.sort((a, b) => a.line - b.line);
  return report;
}

export async function checkDocs(options: { root?: string; files?: string[]; run?: boolean } = {}): Promise<FileReport[]> {
  const root = options.root ?? ROOT;
  const ctx = await loadContext(root, { run: options.run ?? true });
  const files = (options.files ?? docFiles(root)).map((f) => path.relative(root, path.resolve(root, f)).split(path.sep).join("/"));
  return files.map((file) => checkMarkdown(ctx, file, readFileSync(path.join(root, file), "utf8")));
}

export function formatReports(reports: FileReport[]): string[] {
  const lines: string[] = [];
  const width = Math.max(...reports.map((r) => r.file.length));
  for (const r of reports) {
    const what = `${r.blocks} block${r.blocks === 1 ? "" : "s"}, ${r.checks} check${r.checks === 1 ? "" : "s"}${r.ran > 0 ? `, ${r.ran} run` : ""}`;
    lines.push(`${r.file.padEnd(width)}  ${r.problems.length === 0 ? "ok    " : "FAILED"}  ${what}`);
  }
  const problems = reports.flatMap((r) => r.problems);
  if (problems.length > 0) {
    lines.push("");
    for (const p of problems) lines.push(`${p.file}:${p.line}: ${p.message}`);
  }
  const failed = reports.filter((r) => r.problems.length > 0).length;
  lines.push("");
  lines.push(
    problems.length === 0
      ? `docs:check: ${reports.length} files, ${reports.reduce((n, r) => n + r.checks, 0)} checks, all pass`
      : `docs:check: ${problems.length} problem${problems.length === 1 ? "" : "s"} in ${failed} of ${reports.length} files`,
  );
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  const reports = await checkDocs(files.length > 0 ? { files } : {});
  for (const line of formatReports(reports)) console.log(line);
  process.exitCode = reports.some((r) => r.problems.length > 0) ? 1 : 0;
}
