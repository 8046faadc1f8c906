import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where lines go: a function (given each line without its newline), a file (appended to, one write per line), or
 * a writable stream (each line and its newline in one write).
 */
export type DedupLogTarget = ((line: string) => void) | string | URL | { write(chunk: string): unknown };

export interface Sink {
  write(line: string): void;
  close(): void;
}

/**
 * A file is appended to synchronously, one write(2) per line with O_APPEND: the line is in the kernel before the
 * consumer goes on (an `executed` line survives the process being killed right after it), and processes sharing a
 * file never interleave within a line. A dedup line is a few hundred bytes, so the cost is one system call.
 */
function fileSink(file: string): Sink {
  mkdirSync(path.dirname(file), { recursive: true });
  let fd: number | null = openSync(file, "a");
  return {
    write(line) {
      if (fd === null) throw new Error(`the dedup log ${file} is closed`);
      writeSync(fd, `${line}\n`);
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

export function openSink(target: DedupLogTarget | undefined): Sink {
  if (target === undefined) return { write: (line) => void process.stdout.write(`${line}\n`), close() {} };
  if (typeof target === "function") return { write: (line) => target(line), close() {} };
  if (typeof target === "string") return fileSink(path.resolve(target));
  if (target instanceof URL) return fileSink(fileURLToPath(target));
  if (typeof target === "object" && target !== null && typeof target.write === "function") {
    return { write: (line) => void target.write(`${line}\n`), close() {} };
  }
  throw new TypeError("write must be a function, a file path or URL, or a stream with write()");
}
