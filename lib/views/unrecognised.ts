import { readUnrecognised, type UnrecognisedSourceRow } from "../store/unrecognised.ts";
import type { SqlDriver } from "../store/driver.ts";

export type { UnrecognisedSourceRow };

export interface UnrecognisedLines {
  /** Relevant lines skipped over every source listed. */
  total: number;
  sources: UnrecognisedSourceRow[];
}

/**
 * GET /api/v1/ingest/unrecognised and the ingest page: per source, the skipped lines that looked relevant (a
 * rebalance, a commit, an ack, an offset…), when they were last seen and a few of their shapes.
 */
export async function unrecognisedLines(driver: SqlDriver): Promise<UnrecognisedLines> {
  const sources = await readUnrecognised(driver);
  return { total: sources.reduce((n, s) => n + s.count, 0), sources };
}

/** The file a source names (`<format>:<path>`), for the `dupscope explain` command the page offers. */
export function sourceFile(source: string, format: string): string | null {
  const prefix = `${format}:`;
  if (!source.startsWith(prefix)) return null;
  const file = source.slice(prefix.length);
  return file === "" || file === "http" ? null : file;
}
