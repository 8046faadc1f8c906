import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
// @ts-expect-error: plain JavaScript, run before any TypeScript loader exists
import { buildBundle, currentBundle } from "../../../bin/load-cli.mjs";

const ROOT = path.join(import.meta.dirname, "..", "..", "..");
const BIN = path.join(ROOT, "bin", "dupscope.mjs");
const cache = mkdtempSync(path.join(tmpdir(), "dupscope-cli-cache-"));
after(() => rmSync(cache, { recursive: true, force: true }));

interface Manifest {
  node: string;
  dir: string;
  inputs: Record<string, [number, number]>;
}
const manifestPath = path.join(cache, "manifest.json");
const readManifest = () => JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;

describe("bin/load-cli.mjs: the CLI's bundle", () => {
  it("is used while its sources are as they were, and not once one of them changed", async () => {
    const entry = (await buildBundle(cache)) as string;
    assert.equal(currentBundle(cache), entry);
    const manifest = readManifest();
    for (const file of ["cli/main.ts", "cli/ingest.ts", "lib/ingest/pipeline.ts", "collectors/registry.ts", "tsconfig.json"]) {
      assert.ok(manifest.inputs[file], `${file} is not among the bundle's inputs`);
    }
    // A source saved since: its mtime no longer matches.
    const edited = structuredClone(manifest);
    edited.inputs["lib/ingest/pipeline.ts"]![0] += 1;
    writeFileSync(manifestPath, JSON.stringify(edited));
    assert.equal(currentBundle(cache), null);
    // A source the bundle read is gone (renamed, deleted).
    const gone = structuredClone(manifest);
    gone.inputs["lib/ingest/no-such-file.ts"] = [0, 0];
    writeFileSync(manifestPath, JSON.stringify(gone));
    assert.equal(currentBundle(cache), null);
    // Another Node version compiled against other built-ins.
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, node: "v0.0.0" }));
    assert.equal(currentBundle(cache), null);
    writeFileSync(manifestPath, JSON.stringify(manifest));
    assert.equal(currentBundle(cache), entry);
  });

  it("answers as the sources run through tsx do", () => {
    const run = (mode: string, args: string[]) => execFileSync(BIN, args, { encoding: "utf8", env: { ...process.env, DUPSCOPE_CLI_BUNDLE: mode } });
    for (const args of [["--help"], ["ingest", "--help"], ["explain", "--help"], ["rabbitmq", "--help"]]) {
      assert.equal(run("on", args), run("off", args), args.join(" "));
    }
    const fixture = path.join(ROOT, "tests", "fixtures", "rebalance-story");
    for (const file of ["trace.ndjson", "client-10.0.0.5.log", "dedup.log"]) {
      const explain = ["explain", "--json", path.join(fixture, file)];
      assert.equal(run("on", explain), run("off", explain), file);
    }
  });
});
