import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parse } from "../../../collectors/dedup-log/parse.ts";

/**
 * packages/dedup is @dupscope/dedup, an npm package of its own that applications install: free of dependencies,
 * built by its own script (tsconfig.build.json, JavaScript and declarations) to run on plain Node without tsx,
 * and no longer part of the dashboard's package. tests/integration/dedup-package.test.ts packs and installs it for
 * real.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const PACKAGE = path.join(ROOT, "packages", "dedup");
const SOURCE = path.join(PACKAGE, "src");
const sources = readdirSync(SOURCE).filter((f) => f.endsWith(".ts"));

interface PackageJson {
  name: string;
  version: string;
  type?: string;
  exports?: Record<string, unknown>;
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: unknown;
  peerDependencies?: unknown;
  optionalDependencies?: unknown;
  bundleDependencies?: unknown;
}

const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;

describe("@dupscope/dedup packaging", () => {
  it("is a package of its own: versioned, ESM with types, no runtime dependency, built by its own script", () => {
    const pkg = manifest(PACKAGE);
    assert.equal(pkg.name, "@dupscope/dedup");
    assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
    assert.equal(pkg.type, "module");
    assert.deepEqual(pkg.exports?.["."], { types: "./dist/index.d.ts", default: "./dist/index.js" });
    assert.deepEqual(pkg.files, ["dist"], "the build and, as npm always adds them, package.json and README.md");
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies", "bundleDependencies"] as const) {
      assert.equal(pkg[field], undefined, `${field}: an application that installs it gets one package`);
    }
    assert.equal(pkg.scripts?.build, "tsc -p tsconfig.build.json");
    assert.equal(pkg.scripts?.prepack, "npm run build", "npm pack builds it first");
    assert.match(readFileSync(path.join(PACKAGE, "README.md"), "utf8"), /^# @dupscope\/dedup/);
  });

  it("is not in the dashboard's package any more", () => {
    const root = manifest(ROOT);
    assert.deepEqual(Object.keys(root.exports ?? {}), ["./package.json"]);
    assert.equal(root.scripts?.prepack, undefined);
    assert.ok(!Object.values(root.scripts ?? {}).some((s) => s.includes("dedup")), "no root script builds the emitter");
    const out = execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const [packed] = JSON.parse(out) as { files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path);
    assert.deepEqual(files.filter((f) => f.startsWith("packages/") || f.startsWith("dist/")), []);
    assert.ok(files.includes("bin/dupscope.mjs") && files.includes("package.json"), "the scan itself works: it sees the dashboard's files");
  });

  it("imports nothing but its own files and Node's built-ins", () => {
    const seen = new Set<string>();
    for (const file of sources) {
      const text = readFileSync(path.join(SOURCE, file), "utf8");
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);
      for (const spec of specifiers) {
        seen.add(spec);
        const own = /^\.\/[\w-]+\.ts$/.test(spec) && sources.includes(spec.slice(2));
        const builtin = spec.startsWith("node:") && builtinModules.includes(spec.slice(5));
        assert.ok(own || builtin, `${file} imports "${spec}": only ./<file>.ts of this folder and node: built-ins are allowed`);
      }
    }
    // The scan itself works: it sees the imports that are there.
    for (const spec of ["./emitter.ts", "./record.ts", "./order.ts", "node:fs", "node:os"]) assert.ok(seen.has(spec), `the scan missed ${spec}`);
  });

  it("builds with its tsconfig.build.json and runs on plain Node, as ESM and through require()", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-dedup-pkg-"));
    try {
      const pkg = path.join(dir, "node_modules", "@dupscope", "dedup");
      const outDir = path.join(pkg, "dist");
      const configFile = path.join(PACKAGE, "tsconfig.build.json");
      const config = ts.getParsedCommandLineOfConfigFile(configFile, { outDir }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)) });
      assert.ok(config);
      const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
      const emitted = program.emit();
      const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
      assert.deepEqual(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")), []);
      assert.deepEqual(readdirSync(outDir).filter((f) => f.endsWith(".js")).sort(), sources.map((f) => f.replace(/\.ts$/, ".js")).sort());

      cpSync(path.join(PACKAGE, "package.json"), path.join(pkg, "package.json"));
      mkdirSync(path.join(dir, "app"));
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const app = `
        import { createDedupLog, isUniqueViolation } from "@dupscope/dedup";
        const markers = new Map();
        const redis = { set: async (k, v) => (markers.has(k) ? null : (markers.set(k, v), "OK")), del: async (k) => Number(markers.delete(k)) };
        const log = createDedupLog({ group: "points-award", broker: "kafka", instance: "10.8.3.17@23817", write: process.argv[2] });
        for (const instance of ["10.8.3.17@23817", "10.8.3.18@4410"]) {
          const d = log.delivery({ bizKey: "ORD-1", instance, queueId: "order-paid-3", queueOffset: 5 });
          const marker = await d.redisMarker(redis, { key: "points:ORD-1", ttlMs: 86400000 });
          if (marker.passed) await d.run(async () => {});
        }
        await log.delivery({ bizKey: "ORD-2" }).dbUniqueInsert(() => Promise.reject({ code: "23505" }));
        log.close();
        if (!isUniqueViolation({ errno: 1062 })) process.exit(3);
      `;
      writeFileSync(path.join(dir, "app", "consumer.mjs"), app);
      writeFileSync(path.join(dir, "app", "consumer.cjs"), `const { createDedupLog } = require("@dupscope/dedup"); if (typeof createDedupLog !== "function") process.exit(4);`);
      const logFile = path.join(dir, "logs", "dedup.log");
      // Plain Node: no tsx loader, whatever this test runner was started with.
      const env = { ...process.env, NODE_OPTIONS: "" };
      execFileSync(process.execPath, [path.join(dir, "app", "consumer.mjs"), logFile], { cwd: dir, env, stdio: "pipe" });
      execFileSync(process.execPath, [path.join(dir, "app", "consumer.cjs")], { cwd: dir, env, stdio: "pipe" });

      const result = parse(readFileSync(logFile, "utf8"), { source: "dedup-log:packaged" });
      assert.deepEqual(result.issues, []);
      assert.deepEqual(
        result.events.map((e) => `${e.bizKey} ${e.instance} ${String(e.detail.layer)} ${String(e.detail.decision)}`),
        ["ORD-1 10.8.3.17@23817 redis pass", "ORD-1 10.8.3.17@23817 redis executed", "ORD-1 10.8.3.18@4410 redis hit", "ORD-2 10.8.3.17@23817 db hit"],
      );

      // The TypeScript sources themselves are not loadable by plain Node from node_modules: that is why the build ships.
      cpSync(SOURCE, path.join(pkg, "src"), { recursive: true });
      writeFileSync(path.join(dir, "app", "raw.mjs"), `await import("@dupscope/dedup/src/index.ts");`);
      writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "@dupscope/dedup", type: "module", exports: { "./src/*": "./src/*" } }));
      assert.throws(() => execFileSync(process.execPath, [path.join(dir, "app", "raw.mjs")], { cwd: dir, env, stdio: "pipe" }), /ERR_UNKNOWN_FILE_EXTENSION|ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
