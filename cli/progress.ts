import cliProgress from "cli-progress";
import { formatDuration } from "../lib/format/duration.ts";
import type { IngestProgress, IngestSummary } from "../lib/ingest/pipeline.ts";

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/**
 * A progress bar on a terminal (bytes of the file when its size is known, a running counter otherwise) and
 * nothing when stderr is a pipe or a log file, where a redrawn line is noise.
 */
export function progressReporter(label: string, totalBytes: number | undefined, enabled: boolean) {
  if (!enabled) return { update: (_p: IngestProgress) => {}, stop: () => {} };
  const started = Date.now();
  const known = totalBytes !== undefined && totalBytes > 0;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} ${known ? "{bar} {percentage}% " : ""}| {lines} lines | {rate} lines/s | {mb} MB | {events} events | {bad} bad`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(known ? totalBytes : 1, 0, { lines: 0, rate: 0, mb: "0.0", events: 0, bad: 0 });
  return {
    update(p: IngestProgress) {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      bar.update(known ? p.bytes : 0, { lines: p.lines, rate: Math.round(p.lines / seconds), mb: mb(p.bytes), events: p.events, bad: p.rejected });
    },
    stop: () => bar.stop(),
  };
}

export function formatSummary(label: string, s: IngestSummary): string {
  const seconds = Math.max(s.elapsedMs / 1000, 0.001);
  const lines = [
    `${label}: ${s.lines} lines (${mb(s.bytes)} MB) in ${formatDuration(s.elapsedMs)}, ${Math.round(s.lines / seconds)} lines/s`,
    `  events ${s.events}: ${s.accepted} stored, ${s.duplicates} already stored; ${s.rejected} rejected, ${s.skipped} lines matched no template`,
  ];
  for (const r of s.rejections.slice(0, 20)) lines.push(`  line ${r.line}: ${r.code}: ${r.reason}`);
  if (s.rejected > 20) lines.push(`  … ${s.rejected - 20} more rejected (use --json for the first ${s.rejections.length})`);
  const missed = s.unrecognised;
  if (missed) {
    lines.push(`  ${missed.count} skipped lines look relevant but were not recognised; their shapes (dupscope explain --format ${missed.format} <file> shows each line):`);
    for (const shape of missed.shapes.slice(0, 5)) lines.push(`    ${String(shape.count).padStart(6)} × ${shape.shape} (last at line ${shape.lastLine})`);
    if (missed.shapes.length > 5) lines.push(`    … ${missed.shapes.length - 5} more shapes (GET /api/v1/ingest/unrecognised, or the Ingest page)`);
  }
  return lines.join("\n");
}
