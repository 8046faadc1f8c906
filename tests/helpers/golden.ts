import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The golden-file harness of the collector tests. Fixtures and their goldens live in collectors/<name>/testdata/:
 * `<stem>.log` or `<stem>.ndjson` is the input, `<stem>.golden.json` the expected `ParseResult`, written as
 * `JSON.stringify(result, null, 2)` plus a newline. With UPDATE_GOLDEN=1 the golden is rewritten from the current
 * output before the comparison (which then passes): read the diff before keeping it, a changed golden is a changed
 * parser output.
 *
 *   UPDATE_GOLDEN=1 node --import tsx --test tests/unit/collectors/<name>.test.ts
 */

const COLLECTORS = path.join(import.meta.dirname, "..", "..", "collectors");

/** `<stem>.golden.json` for the fixture `<stem>.log` / `<stem>.ndjson`, the naming tests/contract/collectors.test.ts checks. */
export function goldenNameOf(fixture: string): string {
  return `${fixture.replace(/\.(log|ndjson)$/, "")}.golden.json`;
}

/**
 * Compares `actual` with the JSON golden file at `golden`; UPDATE_GOLDEN=1 rewrites the file from `actual` first.
 * The comparison is on the parsed JSON, so `actual` must survive JSON (no undefined values the golden should hold).
 */
export function assertGoldenFile(golden: string, actual: unknown): void {
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, `${JSON.stringify(actual, null, 2)}\n`);
  assert.ok(existsSync(golden), `${golden} is missing; run with UPDATE_GOLDEN=1`);
  assert.deepEqual(actual, JSON.parse(readFileSync(golden, "utf8")));
}

export interface CollectorTestdata {
  /** Absolute path of collectors/<name>/testdata. */
  readonly dir: string;
  /** Absolute path of a file in it. */
  path(file: string): string;
  /** A fixture's text. */
  read(fixture: string): string;
  /** The fixtures whose names end with `extension` (".log", ".ndjson"), in directory order. */
  fixtures(extension: string): string[];
  /** Compares `actual` with the fixture's golden file, beside it (see assertGoldenFile). */
  assertGolden(fixture: string, actual: unknown): void;
}

/** The testdata folder of the collector in collectors/<name>/. */
export function collectorTestdata(name: string): CollectorTestdata {
  const dir = path.join(COLLECTORS, name, "testdata");
  const at = (file: string) => path.join(dir, file);
  return {
    dir,
    path: at,
    read: (fixture) => readFileSync(at(fixture), "utf8"),
    fixtures: (extension) => readdirSync(dir).filter((file) => file.endsWith(extension)),
    assertGolden: (fixture, actual) => assertGoldenFile(at(goldenNameOf(fixture)), actual),
  };
}
