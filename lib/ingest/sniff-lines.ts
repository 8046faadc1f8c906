import { SNIFF_LINES, sniffFormat, UnknownFormatError } from "../../collectors/sniff.ts";
import type { CollectorFormat } from "../../collectors/registry.ts";
import type { RawLine } from "./line-reader.ts";

/** A followed file that goes quiet for this long is decided on the lines it has. */
const QUIET_MS = 500;

/**
 * `--format auto` on a stream: holds its first lines (up to SNIFF_LINES, or until a followed file goes quiet), tells
 * the format from them, then hands back every line, the held ones first. Nothing is read twice.
 */
export async function sniffLines(lines: AsyncIterable<RawLine>, what: string): Promise<{ format: CollectorFormat; lines: AsyncIterable<RawLine> }> {
  const iterator = lines[Symbol.asyncIterator]();
  const held: RawLine[] = [];
  let pending: Promise<IteratorResult<RawLine>> | undefined;
  let ended = false;
  while (held.length < SNIFF_LINES) {
    pending ??= iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<"quiet">((resolve) => (timer = setTimeout(() => resolve("quiet"), QUIET_MS)));
    const next = await Promise.race([pending, quiet]);
    clearTimeout(timer);
    if (next === "quiet") {
      if (sniffFormat(texts(held))) break;
      continue;
    }
    pending = undefined;
    if (next.done) {
      ended = true;
      break;
    }
    held.push(next.value);
  }
  const sniffed = sniffFormat(texts(held));
  if (!sniffed) throw new UnknownFormatError(what, held.length);
  async function* replay(): AsyncGenerator<RawLine> {
    yield* held;
    if (ended) return;
    if (pending) {
      const next = await pending;
      if (next.done) return;
      yield next.value;
    }
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { format: sniffed.format, lines: replay() };
}

function texts(lines: RawLine[]): string[] {
  return lines.map((line) => ("text" in line ? line.text : ""));
}
