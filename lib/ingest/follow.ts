import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { Readable } from "node:stream";

/**
 * `tail -F` as a byte stream: reads the file to its end, then keeps polling for appended bytes, and when the path
 * is rotated (a new inode appears, or the file shrinks after truncation) finishes the old file and continues
 * from the start of the new one. Polling rather than fs.watch because watch misses events on network and overlay
 * file systems, and a 250 ms poll is far below any diagnosis window. Backpressure comes for free: nothing is read
 * until the consumer asks for more.
 */
export function followFile(path: string, options: { fromOffset?: number; pollMs?: number; signal?: AbortSignal } = {}): Readable {
  const pollMs = options.pollMs ?? 250;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let fd: number | undefined;
  let inode = 0;
  let position = options.fromOffset ?? 0;
  let lastByte = 0x0a;

  const open = (): boolean => {
    try {
      fd = openSync(path, "r");
    } catch {
      return false;
    }
    inode = fstatSync(fd).ino;
    return true;
  };

  const rotated = (): boolean => {
    try {
      const current = statSync(path);
      return current.ino !== inode || current.size < position;
    } catch {
      return false;
    }
  };

  const readMore = (): Buffer | undefined => {
    if (fd === undefined) return undefined;
    const n = readSync(fd, chunk, 0, chunk.length, position);
    if (n === 0) return undefined;
    position += n;
    lastByte = chunk[n - 1]!;
    return Buffer.from(chunk.subarray(0, n));
  };

  return new Readable({
    read() {
      const attempt = () => {
        if (options.signal?.aborted) return this.push(null);
        if (fd === undefined && !open()) return void setTimeout(attempt, pollMs);
        const data = readMore();
        if (data) return void this.push(data);
        if (rotated()) {
          closeSync(fd!);
          fd = undefined;
          position = 0;
          // A last line cut off by the rotation must not glue onto the new file's first line.
          if (lastByte !== 0x0a) {
            lastByte = 0x0a;
            return void this.push(Buffer.from("\n"));
          }
          return attempt();
        }
        setTimeout(attempt, pollMs);
      };
      attempt();
    },
    destroy(error, callback) {
      if (fd !== undefined) closeSync(fd);
      callback(error);
    },
  });
}
