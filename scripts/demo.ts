// `npm run demo [-- --server URL --token T --scale N --seed S]`: loads a simulated day of a realistic incident mix
// (lib/demo/day.ts) into a running dupscope server, through the same parsers, pipeline and HTTP sink as
// `dupscope ingest`. The server's diagnosis worker then fills in the verdicts within a minute or so.
import { parseArgs } from "node:util";
import { loadDemoDay } from "../lib/demo/load.ts";
import { httpSink } from "../lib/ingest/http-sink.ts";
import { DEFAULT_RETRY } from "../lib/ingest/sink.ts";

const { values } = parseArgs({
  options: {
    server: { type: "string", default: process.env.DUPSCOPE_SERVER ?? "http://localhost:3000" },
    token: { type: "string", default: process.env.DUPSCOPE_INGEST_TOKEN },
    scale: { type: "string", default: "1" },
    seed: { type: "string" },
  },
});

const scale = Number(values.scale);
if (!(scale > 0)) {
  console.error("--scale must be a positive number (1 = the full demo day)");
  process.exit(2);
}
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isSafeInteger(seed)) {
  console.error("--seed must be a whole number");
  process.exit(2);
}

const sink = httpSink(values.server, {
  ...(values.token ? { token: values.token } : {}),
  retry: { ...DEFAULT_RETRY, giveUpAfterMs: 30_000, onRetry: (n, delay, error) => console.error(`retry ${n} in ${Math.round(delay)} ms: ${error instanceof Error ? error.message : String(error)}`) },
});
const tty = Boolean(process.stderr.isTTY);
let lastRun = 0;
console.error(`loading a simulated day into ${values.server}…`);
try {
  const result = await loadDemoDay({
    now: Date.now(),
    scale,
    ...(seed === undefined ? {} : { seed }),
    sink,
    onProgress: (p) => {
      const line = `run ${p.run}/${p.runs}, file ${p.fileInRun}/${p.filesInRun} (${p.file}): ${p.accepted.toLocaleString("en-US")} events stored`;
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
      else if (p.run !== lastRun) console.error(line);
      lastRun = p.run;
    },
  });
  if (tty) process.stderr.write("\n");
  const keys = result.runs.reduce((n, r) => n + r.keys, 0);
  const duplicates = result.runs.reduce((n, r) => n + r.truth.duplicates.length, 0);
  console.error(
    `done in ${(result.elapsedMs / 1000).toFixed(1)} s: ${result.runs.length} runs, ${result.files} files, ${result.lines.toLocaleString("en-US")} lines, ` +
      `${result.accepted.toLocaleString("en-US")} events stored (${result.alreadyStored.toLocaleString("en-US")} already there), ${result.rejected} rejected; ` +
      `${keys.toLocaleString("en-US")} keys, ${duplicates.toLocaleString("en-US")} duplicates planned.`,
  );
  console.error(`the server diagnoses them in the background; open ${values.server}`);
} catch (error) {
  if (tty) process.stderr.write("\n");
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
} finally {
  await sink.close();
}
