import { Readable } from "node:stream";
import { findFormat } from "../../collectors/registry.ts";
import type { LineParser, LineResult, ParseContext } from "../../collectors/types.ts";
import { readLines } from "../ingest/line-reader.ts";
import { runIngest } from "../ingest/pipeline.ts";
import type { EventSink } from "../ingest/sink.ts";
import { runSimulation, type Truth } from "../simulator/run.ts";
import { demoDay, type DemoDayOptions } from "./day.ts";

/**
 * Loads the demo day into a sink: each run is simulated in memory, and every file its manifest lists goes through
 * the same registry parser and ingest pipeline as `dupscope ingest` (the script sends to a server over HTTP, the
 * server's demo button writes to its own store). Events after `now` are dropped: in the story they have not
 * happened yet (a DLQ resend planned for tonight).
 */

export interface DemoProgress {
  run: number;
  runs: number;
  file: string;
  fileInRun: number;
  filesInRun: number;
  /** Events stored so far over the whole day. */
  accepted: number;
  rejected: number;
}

export interface DemoResult {
  runs: { name: string; keys: number; truth: Truth }[];
  files: number;
  lines: number;
  accepted: number;
  alreadyStored: number;
  rejected: number;
  /** Events left out because they lie after `now`. */
  future: number;
  elapsedMs: number;
}

export interface LoadDemoOptions extends DemoDayOptions {
  sink: EventSink;
  onProgress?: (progress: DemoProgress) => void;
}

export async function loadDemoDay(options: LoadDemoOptions): Promise<DemoResult> {
  const started = Date.now();
  const plan = demoDay(options);
  const result: DemoResult = { runs: [], files: 0, lines: 0, accepted: 0, alreadyStored: 0, rejected: 0, future: 0, elapsedMs: 0 };
  for (const [runIndex, run] of plan.entries()) {
    // Simulating blocks for a second or so; let waiting requests through first when this runs inside the server.
    await new Promise((resolve) => setImmediate(resolve));
    const sim = runSimulation(run);
    const texts = new Map(sim.files.map((f) => [f.path, f.text]));
    for (const [fileIndex, entry] of sim.manifest.files.entries()) {
      const format = findFormat(entry.format);
      const text = texts.get(entry.path);
      if (!format || text === undefined) throw new Error(`the simulator listed ${entry.path} (${entry.format}) but did not write it`);
      const ctx: ParseContext = { source: `${format.name}:demo/${run.name}/${entry.path}`, ...(entry.instance ? { instance: entry.instance } : {}) };
      const progress = (accepted: number, rejected: number) =>
        options.onProgress?.({
          run: runIndex + 1,
          runs: plan.length,
          file: `${run.name}/${entry.path}`,
          fileInRun: fileIndex + 1,
          filesInRun: sim.manifest.files.length,
          accepted: result.accepted + accepted,
          rejected: result.rejected + rejected,
        });
      // The simulator's day may run past now; events from the future would be refused later, so they are counted here.
      const pastOnly = (parser: LineParser): LineParser => {
        const keep = (parsed: LineResult): LineResult => {
          const past = parsed.events.filter((e) => e.ts <= options.now);
          result.future += parsed.events.length - past.length;
          return { ...parsed, events: past };
        };
        return { line: (line, lineNo) => keep(parser.line(line, lineNo)), end: () => keep(parser.end()) };
      };
      const summary = await runIngest({
        lines: readLines(Readable.from([Buffer.from(text, "utf8")])),
        parser: pastOnly(format.open(ctx)),
        sink: options.sink,
        onProgress: (p) => progress(p.accepted, p.rejected),
      });
      result.files++;
      result.lines += summary.lines;
      result.accepted += summary.accepted;
      result.alreadyStored += summary.duplicates;
      result.rejected += summary.rejected;
    }
    result.runs.push({ name: run.name, keys: run.keys, truth: sim.truth });
  }
  result.elapsedMs = Date.now() - started;
  return result;
}
