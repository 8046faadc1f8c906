import { lineShape, relevanceAnchor } from "../../collectors/codecs/relevance.ts";
import { canonicalInstance } from "../events/instance.ts";

/**
 * Skipped lines that carry a relevance anchor (collectors/codecs/relevance.ts), counted for one input and kept as a
 * few distinct shapes: what the ingest summary prints and the store keeps per source, so a wording no template reads
 * is seen rather than lost in "skipped".
 */

export interface UnrecognisedShape {
  shape: string;
  /** The stem that made the line relevant (`rebalanc`, `commit`, …). */
  anchor: string;
  count: number;
  /** The line number of its last occurrence in the input: where `dupscope explain` can look. */
  lastLine: number;
  /** Epoch ms when the ingest last met it. */
  lastSeen: number;
}

export interface UnrecognisedReport {
  source: string;
  format: string;
  /** The instance the input was ingested as (`--instance`), if any. */
  instance: string | null;
  /** Relevant skipped lines, all of them, including those whose shape was not kept. */
  count: number;
  shapes: UnrecognisedShape[];
  /** Groups of the events the same input did produce: which verdicts these lines could have informed. */
  groups: string[];
}

/** Shapes kept per source: a sample to recognise the wordings by, not a copy of the log. */
export const MAX_SHAPES = 20;
const MAX_GROUPS = 20;

export class UnrecognisedTally {
  private count = 0;
  private shapes = new Map<string, UnrecognisedShape>();
  private groups = new Set<string>();

  constructor(
    private readonly source: string,
    private readonly format: string,
    instance: string | null = null,
    private readonly maxShapes = MAX_SHAPES,
  ) {
    // As the events name it, so a key's "no client log for instance …" finds the lines its log skipped.
    this.instance = instance === null ? null : canonicalInstance(instance).canonical;
  }

  private readonly instance: string | null;

  /** A line the parser skipped: counted and sampled when it carries an anchor. */
  skipped(text: string, lineNo: number, now = Date.now()): void {
    const anchor = relevanceAnchor(text);
    if (anchor === undefined) return;
    this.count++;
    const shape = lineShape(text);
    const known = this.shapes.get(shape);
    if (known) {
      known.count++;
      known.lastLine = lineNo;
      known.lastSeen = now;
    } else if (this.shapes.size < this.maxShapes) {
      this.shapes.set(shape, { shape, anchor, count: 1, lastLine: lineNo, lastSeen: now });
    }
  }

  /** A group the input's events named. */
  sawGroup(group: string | null): void {
    // An event the store will refuse (a NUL in its group) must not take the report down with it.
    if (group !== null && this.groups.size < MAX_GROUPS && group.length <= 255 && !/[\u0000-\u001f]/.test(group)) this.groups.add(group);
  }

  /** What was counted since the last drain, or undefined when nothing was; the tally starts again empty. */
  drain(): UnrecognisedReport | undefined {
    if (this.count === 0) return undefined;
    const report: UnrecognisedReport = {
      source: this.source,
      format: this.format,
      instance: this.instance,
      count: this.count,
      shapes: [...this.shapes.values()].sort((a, b) => b.count - a.count),
      groups: [...this.groups],
    };
    this.count = 0;
    this.shapes = new Map();
    return report;
  }
}

/** Two reports of one input, as the summary prints them: counts added, shapes merged. */
export function mergeReports(a: UnrecognisedReport | undefined, b: UnrecognisedReport | undefined): UnrecognisedReport | undefined {
  if (!a || !b) return a ?? b;
  const shapes = new Map(a.shapes.map((s) => [s.shape, { ...s }]));
  for (const s of b.shapes) {
    const known = shapes.get(s.shape);
    if (known) {
      known.count += s.count;
      known.lastLine = Math.max(known.lastLine, s.lastLine);
      known.lastSeen = Math.max(known.lastSeen, s.lastSeen);
    } else if (shapes.size < MAX_SHAPES) {
      shapes.set(s.shape, { ...s });
    }
  }
  return { ...a, count: a.count + b.count, shapes: [...shapes.values()].sort((x, y) => y.count - x.count), groups: [...new Set([...a.groups, ...b.groups])].slice(0, MAX_GROUPS) };
}
