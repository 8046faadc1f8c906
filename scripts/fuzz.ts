// `npm run fuzz [-- --minutes N]`: the ingest endpoints under hostile input (tests/helpers/fuzz-properties.ts) for N minutes
// (default 10), split between the embedded store and, when TEST_DATABASE_URL names one, PostgreSQL. Prints how many
// cases ran and every failure; exit 1 on a failure. CI runs the same properties for ~25 s each (tests/integration/fuzz.test.ts).
import { spawnSync } from "node:child_process";
import { startServer } from "../tests/helpers/server.ts";
import { backends } from "../tests/helpers/stores.ts";
import { assertFor, eventsProperty, formatProperty, type Target } from "../tests/helpers/fuzz-properties.ts";

const at = process.argv.indexOf("--minutes");
const minutes = at >= 0 ? Number(process.argv[at + 1]) : 10;
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error("usage: npm run fuzz -- [--minutes N]");
  process.exit(2);
}
// The same freshness check `npm test` makes before its HTTP tests: build only when the sources changed.
const build = spawnSync(process.execPath, ["--input-type=module", "-e", 'const { buildIsFresh } = await import("./scripts/build-freshness.mjs"); if (!buildIsFresh()) (await import("./scripts/next.mjs")).buildSync();'], { stdio: "inherit" });
if (build.status !== 0) process.exit(1);

const TOKEN = "fuzz-token";
const properties: [string, (target: Target, seconds: number) => Promise<number>][] = [
  ["POST /api/v1/events", (target, s) => assertFor(eventsProperty(target), s)],
  ["POST /api/v1/ingest/{format}", (target, s) => assertFor(formatProperty(target), s)],
];
const seconds = (minutes * 60) / (backends.length * properties.length);
let total = 0;
let failures = 0;
for (const backend of backends) {
  const created = await backend.create();
  const server = await startServer({ ...created.env, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "0" });
  try {
    for (const [name, property] of properties) {
      const started = Date.now();
      try {
        const cases = await property({ url: server.url, token: TOKEN }, seconds);
        total += cases;
        console.log(`${backend.name.padEnd(8)} ${name.padEnd(30)} ${cases} cases in ${((Date.now() - started) / 1000).toFixed(0)} s, 0 failures`);
      } catch (error) {
        failures++;
        console.log(`${backend.name.padEnd(8)} ${name.padEnd(30)} FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await server.stop();
    await created.dispose();
  }
}
console.log(`${total} cases, ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
