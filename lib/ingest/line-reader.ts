import type { Readable } from "node:stream";
import { MAX_LINE_BYTES } from "../../collectors/types.ts";

/**
 * Splits a byte stream into lines without ever holding more than one line (bounded by MAX_LINE_BYTES) plus one
 * chunk in memory, so a 1 GB log costs the same memory as a 1 MB one. Every line carries the byte offset just
 * past its newline: a checkpoint at that offset resumes exactly after the line.
 */

export type RawLine =
  | { lineNo: number; endOffset: number; bytes: number; text: string }
  | { lineNo: number; endOffset: number; bytes: number; problem: "too_long" | "encoding" };

const NEWLINE = 0x0a;

export async function* readLines(stream: Readable, startOffset = 0, startLine = 0, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<RawLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overflow = false;
  let offset = startOffset;
  let lineNo = startLine;

  const finish = (bytes: number): RawLine => {
    lineNo++;
    offset += bytes;
    if (overflow) return { lineNo, endOffset: offset, bytes, problem: "too_long" };
    const buffer = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    const end = buffer.length > 0 && buffer[buffer.length - 1] === 0x0d ? buffer.length - 1 : buffer.length;
    try {
      return { lineNo, endOffset: offset, bytes, text: decoder.decode(buffer.subarray(0, end)) };
    } catch {
      return { lineNo, endOffset: offset, bytes, problem: "encoding" };
    }
  };

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (!overflow) {
        if (pendingBytes + piece.length > maxLineBytes) {
          overflow = true;
          pending = [];
        } else if (piece.length > 0) {
          pending.push(piece);
        }
      }
      pendingBytes += piece.length;
      if (newline === -1) break;
      yield finish(pendingBytes + 1);
      pending = [];
      pendingBytes = 0;
      overflow = false;
      start = newline + 1;
    }
  }
  if (pendingBytes > 0) yield finish(pendingBytes);
}
