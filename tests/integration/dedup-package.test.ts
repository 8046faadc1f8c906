import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { runCli } from "../helpers/cli.ts";
import { startServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * @dupscope/dedup as an application gets it: `npm pack` in packages/dedup, `npm install ./<tarball>` with no flags
 * into an empty project, then a consumer script that imports the package writes a dedup log, which
 * `dupscope ingest --format dedup-log` stores (into a server on PGlite, and straight into PostgreSQL when
 * TEST_DATABASE_URL names one) with no line rejected.
 *
 * npm runs with a cache of its own and a registry nobody listens on: the install must need no network, as it does
 * for a package without dependencies, and must not depend on this machine's npm cache or configuration.
 */

const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, "..", "..");
const PACKAGE = path.join(ROOT, "packages", "dedup");
const ONE_MB = 1024 * 1024;

/** This process's environment without npm's own variables (`npm test` sets npm_config_*, npm_package_*, …). */
function npmEnv(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: "" };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  return { ...env, npm_config_cache: cache, npm_config_registry: "http://127.0.0.1:9/" };
}

function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(path.join(e.parentPath, e.name)).size, 0);
}

/** A Kafka consumer's dedup layer as an application writes it with the package, a Map standing in for Redis. */
const CONSUMER = `
import { createDedupLog, DedupLogError, DedupLogUsageError } from "@dupscope/dedup";

const markers = new Map();
const redis = {
  set: async (key, value) => (markers.has(key) ? null : (markers.set(key, value), "OK")),
  del: async (key) => Number(markers.delete(key)),
};
const file = process.argv[2];
const pods = ["10.8.5.9@311", "10.8.5.10@412"].map((instance) =>
  createDedupLog({ group: "points-award", broker: "kafka", instance, topic: "order-paid", write: file }),
);

for (const [i, orderId] of ["ORD-20261130-110600", "ORD-20261130-110601"].entries()) {
  // The first pod awards the points; the second gets the record again after a rebalance and meets the marker.
  for (const pod of pods) {
    const d = pod.delivery({ bizKey: orderId, queueId: "order-paid-3", queueOffset: 1884213 + i });
    const marker = await d.redisMarker(redis, { key: "points:" + orderId, ttlMs: 86400000 });
    if (marker.hit) continue;
    await d.run(async () => {});
  }
}
// A run whose effect fails: failed, the marker released, the error thrown again for the client to retry.
const retry = pods[0].delivery({ bizKey: "ORD-20261130-110602", queueId: "order-paid-3", queueOffset: 1884215 });
await retry.redisMarker(redis, { key: "points:ORD-20261130-110602", ttlMs: 86400000 });
await retry.run(async () => { throw new Error("ledger down"); }).catch(() => {});

// What the package refuses from plain JavaScript: no broker, and executed after a hit.
try {
  createDedupLog({ group: "points-award", write: file });
  process.exit(3);
} catch (error) {
  if (!(error instanceof DedupLogError)) throw error;
}
const skipped = pods[1].delivery({ bizKey: "ORD-20261130-110600" });
await skipped.redisMarker(redis, { key: "points:ORD-20261130-110600", ttlMs: 86400000 });
try {
  skipped.executed();
  process.exit(4);
} catch (error) {
  if (!(error instanceof DedupLogUsageError)) throw error;
}
for (const pod of pods) pod.close();
`;

describe("@dupscope/dedup, packed and installed as an application does", () => {
  let dir = "";
  let app = "";
  let packed: { filename: string; files: { path: string }[] };
  let installOutput = "";
  let logFile = "";

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "dupscope-dedup-install-"));
    const env = npmEnv(path.join(dir, "npm-cache"));
    const pack = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: PACKAGE, env });
    const [result] = JSON.parse(pack.stdout) as (typeof packed)[];
    assert.ok(result, pack.stdout);
    packed = result;

    app = path.join(dir, "points-service");
    mkdirSync(app);
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "points-service", private: true, type: "module" }, null, 2));
    copyFileSync(path.join(dir, packed.filename), path.join(app, packed.filename));
    const install = await run("npm", ["install", `./${packed.filename}`], { cwd: app, env });
    installOutput = install.stdout;

    writeFileSync(path.join(app, "consumer.mjs"), CONSUMER);
    logFile = path.join(app, "logs", "dedup.log");
    await run(process.execPath, ["consumer.mjs", logFile], { cwd: app, env });
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("packs its build, README and package.json, nothing else", () => {
    const files = packed.files.map((f) => f.path).sort();
    assert.deepEqual(
      files.filter((f) => !f.startsWith("dist/")),
      ["README.md", "package.json"],
    );
    const built = files.filter((f) => f.startsWith("dist/"));
    assert.ok(built.includes("dist/index.js") && built.includes("dist/index.d.ts"), built.join(", "));
    assert.ok(built.every((f) => /^dist\/[\w-]+\.(js|d\.ts)$/.test(f)), built.join(", "));
  });

  it("installs with a plain npm install ./<tarball>: one package added, node_modules under 1 MB", () => {
    assert.match(installOutput, /\badded 1 package\b/);
    const lock = JSON.parse(readFileSync(path.join(app, "node_modules", ".package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
    assert.deepEqual(Object.keys(lock.packages), ["node_modules/@dupscope/dedup"]);
    assert.deepEqual(readdirSync(path.join(app, "node_modules")).sort(), [".package-lock.json", "@dupscope"]);
    const size = sizeOf(path.join(app, "node_modules"));
    assert.ok(size < ONE_MB, `node_modules holds ${size} bytes`);
    const manifest = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.dependencies), ["@dupscope/dedup"]);
  });

  it("writes, from plain JavaScript, the lines of the consumer's decisions and nothing of what it refused", () => {
    const lines = readFileSync(logFile, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => `${String(l.bizKey)} ${String(l.instance)} ${String(l.layer)} ${String(l.decision)}`),
      [
        "ORD-20261130-110600 10.8.5.9@311 redis pass",
        "ORD-20261130-110600 10.8.5.9@311 redis executed",
        "ORD-20261130-110600 10.8.5.10@412 redis hit",
        "ORD-20261130-110601 10.8.5.9@311 redis pass",
        "ORD-20261130-110601 10.8.5.9@311 redis executed",
        "ORD-20261130-110601 10.8.5.10@412 redis hit",
        "ORD-20261130-110602 10.8.5.9@311 redis pass",
        "ORD-20261130-110602 10.8.5.9@311 redis failed",
        "ORD-20261130-110602 10.8.5.9@311 redis released",
        "ORD-20261130-110600 10.8.5.10@412 redis hit",
      ],
    );
    assert.ok(lines.every((l) => l.broker === "kafka" && l.group === "points-award"));
  });

  for (const backend of backends) {
    it(`is stored by dupscope ingest --format dedup-log with no line rejected (${backend.name})`, async () => {
      const created = await backend.create();
      const server = backend.name === "pglite" ? await startServer(created.env) : null;
      try {
        const target = server ? ["--server", server.url] : ["--database", created.env.DATABASE_URL!];
        const result = await runCli(["ingest", "--format", "dedup-log", ...target, "--json", logFile]);
        assert.equal(result.code, 0, result.stderr);
        const summary = JSON.parse(result.stdout) as { lines: number; events: number; accepted: number; rejected: number };
        assert.deepEqual(
          { lines: summary.lines, events: summary.events, accepted: summary.accepted, rejected: summary.rejected },
          { lines: 10, events: 10, accepted: 10, rejected: 0 },
        );
      } finally {
        await server?.stop();
        await created.dispose();
      }
    });
  }
});
