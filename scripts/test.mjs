// `npm test`: every test file under tests/ (unit, contract, integration, e2e), in Node's own runner through tsx.
// The files are listed here rather than by a glob in package.json because an empty glob makes `node --test`
// pass with zero tests; this runner fails instead when it finds or runs none.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildIsFresh } from "./build-freshness.mjs";
import { CITUS_TARBALL, citusExpected, citusProblem, citusUrl, redactUrl } from "./citus-cluster.mjs";
import { buildSync } from "./next.mjs";

const SUITES = { unit: ["tests/unit", "tests/contract"], integration: ["tests/integration"], e2e: ["tests/e2e"] };
const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in SUITES)) {
    console.error(`unknown suite "${name}"; use one of: ${Object.keys(SUITES).join(", ")}`);
    process.exit(2);
  }
}
const suites = wanted.length > 0 ? wanted : Object.keys(SUITES);

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "node_modules" || name === "testdata") return [];
    if (statSync(full).isDirectory()) return testFiles(full);
    return /\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

const files = suites.flatMap((suite) => SUITES[suite].flatMap(testFiles)).sort();
if (files.length === 0) {
  console.error(`no test files found for ${suites.join(", ")}`);
  process.exit(1);
}

// What `npm run setup:test` installs and starts: as root it runs when something is missing, saying what; otherwise
// one line names the command, rather than suites failing one by one.
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const onPath = (tool) => (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && existsSync(path.join(dir, tool)));
const anyFileSays = (text) => files.some((f) => readFileSync(f, "utf8").includes(text));
const needsJavac = anyFileSays("javac") && !onPath("javac");
const citusProblemNow = anyFileSays("citus-cluster.mjs") && citusExpected() ? await citusProblem() : undefined;
const missing = [
  ...(files.some((f) => f.startsWith("tests/e2e")) && !existsSync(chromium) ? [`Debian's Chromium (${chromium}) for the browser tests`] : []),
  ...(anyFileSays("promtool") && !onPath("promtool") ? ["promtool (Debian's prometheus) for the metrics tests"] : []),
  ...(needsJavac ? ["javac (Debian's openjdk-17-jdk-headless) for the Java emitter test"] : []),
  ...(anyFileSays("helpers/alertmanager") && !onPath("prometheus-alertmanager") ? ["Debian's prometheus-alertmanager for the Alertmanager test"] : []),
  ...(citusProblemNow ? [`the Citus test cluster (${citusProblemNow})`] : []),
];
if (missing.length > 0) {
  if (process.getuid?.() !== 0) {
    const instead = needsJavac ? "" : ", or npm run test:unit, which needs none of it";
    console.error(`missing ${missing.join(" and ")}: run sudo npm run setup:test${instead}`);
    process.exit(1);
  }
  console.log(`missing ${missing.join(" and ")}: running npm run setup:test, which installs and starts what is missing…`);
  const setup = spawnSync("bash", [fileURLToPath(new URL("setup-test.sh", import.meta.url))], { stdio: "inherit" });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
}

if (suites.includes("integration") || suites.includes("e2e")) {
  const pg = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  console.log(pg ? `PostgreSQL integration tests: ${redactUrl(pg)}` : "PostgreSQL integration tests: not configured (set TEST_DATABASE_URL); PGlite only");
  if (anyFileSays("citus-cluster.mjs")) {
    console.log(citusExpected() ? `Citus cluster tests: ${redactUrl(citusUrl())}` : `Citus cluster tests: not set up (${CITUS_TARBALL} is missing; set TEST_CITUS_URL to a coordinator with two workers)`);
  }
  if (!buildIsFresh()) {
    console.log("building the app for the HTTP tests…");
    buildSync();
  }
}

const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", ...files], {
  stdio: ["ignore", "pipe", "inherit"],
  // The fixtures carry fixed dates (the simulator's epoch, recorded field lines from years back) that the default
  // 7-day retention of raw events would refuse as expired once they age; the retention tests set their own.
  env: { DUPSCOPE_RETENTION_EVENTS: "3650d", ...process.env, NODE_ENV: "test", NEXT_TELEMETRY_DISABLED: "1" },
});
let tail = "";
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on("exit", (code) => {
  const ran = Number(/ℹ tests (\d+)/.exec(tail)?.[1] ?? 0);
  if (code === 0 && ran === 0) {
    console.error("the test run executed no test: failing on purpose");
    process.exit(1);
  }
  process.exit(code ?? 1);
});
