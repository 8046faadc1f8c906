import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { followFile } from "../../../lib/ingest/follow.ts";
import { readLines } from "../../../lib/ingest/line-reader.ts";

async function takeLines(iterator: AsyncIterator<{ text?: string }>, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const { value, done } = await iterator.next();
    if (done) break;
    out.push(value.text ?? "?");
  }
  return out;
}

describe("following a file like tail -F", () => {
  it("reads what is there, then appended lines, across a rename-and-recreate rotation and a truncation", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-follow-"));
    const file = path.join(dir, "app.log");
    writeFileSync(file, "one\ntwo\n");
    const abort = new AbortController();
    const lines = readLines(followFile(file, { pollMs: 10, signal: abort.signal }))[Symbol.asyncIterator]() as AsyncIterator<{ text?: string }>;
    assert.deepEqual(await takeLines(lines, 2), ["one", "two"]);
    appendFileSync(file, "three\nfour-without-newline");
    assert.deepEqual(await takeLines(lines, 1), ["three"]);
    renameSync(file, `${file}.1`);
    writeFileSync(file, "five\n");
    assert.deepEqual(await takeLines(lines, 2), ["four-without-newline", "five"]);
    writeFileSync(file, "six\n");
    assert.deepEqual(await takeLines(lines, 1), ["six"]);
    abort.abort();
    assert.equal((await lines.next()).done, true);
  });

  it("waits for a file that does not exist yet", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-follow-"));
    const file = path.join(dir, "later.log");
    const abort = new AbortController();
    const lines = readLines(followFile(file, { pollMs: 10, signal: abort.signal }))[Symbol.asyncIterator]() as AsyncIterator<{ text?: string }>;
    setTimeout(() => writeFileSync(file, "hello\n"), 50);
    assert.deepEqual(await takeLines(lines, 1), ["hello"]);
    abort.abort();
  });
});
