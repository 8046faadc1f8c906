import { findFormat } from "../../collectors/registry.ts";
import type { LineResult, ParseIssue } from "../../collectors/types.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import type { SimulationResult } from "../../lib/simulator/run.ts";

export interface ParsedSimulation {
  result: SimulationResult;
  events: NormalizedEvent[];
  issues: (ParseIssue & { file: string })[];
  formats: Set<string>;
}

/** Every file a simulation wrote, through its registry parser line by line, as `dupscope ingest` reads it. */
export function parseSimulation(result: SimulationResult): ParsedSimulation {
  const parsed: ParsedSimulation = { result, events: [], issues: [], formats: new Set() };
  for (const entry of result.manifest.files) {
    const file = result.files.find((f) => f.path === entry.path);
    const format = findFormat(entry.format);
    if (file === undefined || format === undefined) throw new Error(`${entry.path}: ${file === undefined ? "not written" : `unknown format ${entry.format}`}`);
    parsed.formats.add(entry.format);
    const ctx = { source: `${entry.format}:${entry.path}`, ...(entry.instance ? { instance: entry.instance } : {}) };
    const lines = file.text.split("\n");
    lines.pop();
    const parser = format.open(ctx);
    const take = (outcome: LineResult) => {
      parsed.events.push(...outcome.events);
      if (outcome.issue) parsed.issues.push({ ...outcome.issue, file: entry.path });
    };
    lines.forEach((line, i) => take(parser.line(line, i + 1)));
    take(parser.end());
  }
  return parsed;
}
