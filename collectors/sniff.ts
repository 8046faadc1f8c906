import { FORMATS, type CollectorFormat } from "./registry.ts";
import { lineOfEvent } from "./types.ts";

/**
 * `--format auto`: which format a file is, told from its first lines. Every format's parser reads them; the one
 * that turns the most lines into events wins (registry order breaks a tie). Unknown lines cost nothing, so a client
 * log whose first lines are all heartbeats still wins on its first rebalance; a file whose first lines give no
 * format an event is not guessed at.
 */

/** Lines read before deciding; a file shorter than this is decided on all of it. */
export const SNIFF_LINES = 2000;

export interface Sniffed {
  format: CollectorFormat;
  /** Lines that gave events, per format that recognised any. */
  scores: Record<string, number>;
  lines: number;
}

export function sniffFormat(lines: readonly string[]): Sniffed | undefined {
  const sample = lines.slice(0, SNIFF_LINES);
  const scores: Record<string, number> = {};
  let best: { format: CollectorFormat; score: number } | undefined;
  for (const format of FORMATS) {
    const parser = format.open({ source: "sniff", inputTime: 0 });
    const recognised = new Set<number>();
    sample.forEach((text, i) => {
      if (text.trim() === "") return;
      const result = parser.line(text, i + 1);
      result.events.forEach((_, n) => recognised.add(lineOfEvent(result, n, i + 1)));
    });
    const last = parser.end();
    last.events.forEach((_, n) => recognised.add(lineOfEvent(last, n, sample.length)));
    if (recognised.size === 0) continue;
    scores[format.name] = recognised.size;
    if (best === undefined || recognised.size > best.score) best = { format, score: recognised.size };
  }
  return best && { format: best.format, scores, lines: sample.length };
}

export class UnknownFormatError extends Error {
  constructor(what: string, lines: number) {
    super(`cannot tell the format of ${what} from its first ${lines} lines: no format finds a record it knows; name one with --format (dupscope formats lists them)`);
  }
}
