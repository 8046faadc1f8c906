import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../../..");
const DEPCRUISE = path.join(ROOT, "node_modules/.bin/depcruise");
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");

async function cruise(cwd: string, paths: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ["--config", CONFIG, "--output-type", "err", ...paths], { cwd });
    return { ok: true, output: stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** A throwaway tree in the project's layout, cruised with the project's rules. */
async function cruiseTree(files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "dupscope-layers-"));
  try {
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true, moduleResolution: "bundler", module: "esnext" } }));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const { output } = await cruise(dir, [...new Set(Object.keys(files).map((f) => f.split("/")[0]!))]);
    return output;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The paths `npm run lint:deps` cruises: what follows its options in package.json. */
function lintedPaths(): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const words = scripts["lint:deps"]!.split(/\s+/).slice(1);
  const paths: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.startsWith("--")) i++;
    else paths.push(words[i]!);
  }
  return paths;
}

describe("the import rules", () => {
  it("hold for the whole project (npm run lint:deps)", async () => {
    const paths = lintedPaths();
    assert.ok(paths.includes("lib") && paths.includes("tests"), `lint:deps cruises ${paths.join(" ")}`);
    const { ok, output } = await cruise(ROOT, paths);
    assert.ok(ok, output);
    assert.match(output, /no dependency violations found/);
  });

  it("fail an import from a lower layer to a higher one", async () => {
    const output = await cruiseTree({
      "lib/queries/key.ts": 'import { ApiError } from "../api/errors.ts";\nexport const e = ApiError;\n',
      "lib/api/errors.ts": "export class ApiError extends Error {}\n",
    });
    assert.match(output, /no-upward-from-data-access: lib\/queries\/key\.ts → lib\/api\/errors\.ts/);
  });

  it("fail lib/ importing app/ or components/", async () => {
    const output = await cruiseTree({
      "lib/views/key-page.ts": 'import { Timeline } from "../../components/Timeline.tsx";\nexport const t = Timeline;\n',
      "components/Timeline.tsx": "export const Timeline = 1;\n",
    });
    assert.match(output, /lib-not-ui: lib\/views\/key-page\.ts → components\/Timeline\.tsx/);
  });

  it("fail lib/diagnosis importing anything but lib/events", async () => {
    const output = await cruiseTree({
      "lib/diagnosis/rule.ts": 'import { readFileSync } from "node:fs";\nimport { t } from "../timeline/scale.ts";\nexport const r = [readFileSync, t];\n',
      "lib/timeline/scale.ts": "export const t = 1;\n",
    });
    assert.match(output, /diagnosis-pure: lib\/diagnosis\/rule\.ts → lib\/timeline\/scale\.ts/);
    assert.match(output, /diagnosis-pure: lib\/diagnosis\/rule\.ts → (node:)?fs/);
  });

  it("fail any import cycle, even inside one layer", async () => {
    const output = await cruiseTree({
      "lib/simulator/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "lib/simulator/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
    });
    assert.match(output, /no-circular/);
  });

  it("fail a new lib/ folder that no layer names", async () => {
    const output = await cruiseTree({
      "lib/reports/summary.ts": 'import { e } from "../events/model.ts";\nexport const s = e;\n',
      "lib/events/model.ts": "export const e = 1;\n",
    });
    assert.match(output, /every-module-in-a-layer: lib\/reports\/summary\.ts/);
  });
});

describe("the tests' layout", () => {
  /** Every .ts and .tsx file under a directory, relative to the root. */
  function tsFiles(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return tsFiles(rel);
      return /\.tsx?$/.test(entry.name) ? [rel] : [];
    });
  }

  it("keeps suites under tests/<layer>/ and every helper in tests/helpers/", () => {
    const misplaced = tsFiles("tests").filter((f) => !f.endsWith(".test.ts") && !f.startsWith("tests/helpers/") && !f.startsWith("tests/fixtures/"));
    assert.deepEqual(misplaced, [], "a module under tests/ that is not a suite belongs in tests/helpers/");
    const beside = ["app", "components", "lib", "collectors", "cli"].flatMap(tsFiles).filter((f) => /\.test\.tsx?$/.test(f));
    assert.deepEqual(beside, [], "suites live under tests/, not beside the code");
  });
});
