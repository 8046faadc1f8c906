import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import fc from "fast-check";
import { readLines, type RawLine } from "../../../lib/ingest/line-reader.ts";

async function collect(chunks: (string | Buffer)[], maxLineBytes?: number): Promise<RawLine[]> {
  const lines: RawLine[] = [];
  for await (const line of readLines(Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))), 0, 0, maxLineBytes)) lines.push(line);
  return lines;
}

describe("streaming line reader", () => {
  it("numbers lines, strips CRLF and reports the byte offset after each line", async () => {
    const lines = await collect(["a\r\nbé", "c\n\nlast"]);
    assert.deepEqual(lines, [
      { lineNo: 1, endOffset: 3, bytes: 3, text: "a" },
      { lineNo: 2, endOffset: 8, bytes: 5, text: "béc" },
      { lineNo: 3, endOffset: 9, bytes: 1, text: "" },
      { lineNo: 4, endOffset: 13, bytes: 4, text: "last" },
    ]);
  });

  it("rejects bytes that are not UTF-8 on their own line and carries on", async () => {
    const lines = await collect([Buffer.from([0x6f, 0x6b, 0x0a, 0xff, 0xfe, 0x0a, 0x6f, 0x6b, 0x0a])]);
    assert.deepEqual(lines.map((l) => ("text" in l ? l.text : l.problem)), ["ok", "encoding", "ok"]);
  });

  it("rejects a line over the limit without holding it in memory, and keeps counting offsets", async () => {
    const huge = "x".repeat(64 * 1024);
    const lines = await collect(["short\n", huge, huge, "\nafter\n"], 100 * 1024);
    assert.deepEqual(lines.map((l) => ("text" in l ? l.text : l.problem)), ["short", "too_long", "after"]);
    assert.equal(lines[1]!.endOffset, 6 + 2 * huge.length + 1);
  });

  it("splits any text into the same lines whatever the chunk boundaries", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { maxLength: 12 }), fc.integer({ min: 1, max: 7 }), async (parts, size) => {
        const text = parts.join("\n");
        const bytes = Buffer.from(text);
        const chunks: Buffer[] = [];
        for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
        const lines = await collect(chunks);
        const expected = text === "" ? [] : text.split("\n").map((l) => l.replace(/\r$/, ""));
        if (text.endsWith("\n")) expected.pop();
        assert.deepEqual(lines.map((l) => ("text" in l ? l.text : l.problem)), expected);
        assert.equal(lines.at(-1)?.endOffset ?? 0, bytes.length);
      }),
    );
  });
});
