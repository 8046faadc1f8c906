import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/**
 * PGlite has no inter-process lock, and two processes on one data directory lose acknowledged writes or corrupt
 * it. This lock file (pid + host) lets exactly one process open the embedded store and tells a second one who
 * holds it. A lock left by a process that no longer runs is taken over.
 */

export class StoreLockedError extends Error {}

interface LockOwner {
  pid: number;
  host: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lockPath, "utf8")) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string" ? { pid: owner.pid, host: owner.host } : undefined;
  } catch {
    return undefined;
  }
}

export function lockPathFor(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
}

/** Takes the lock or throws StoreLockedError; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = lockPathFor(dataDir);
  mkdirSync(path.dirname(lockPath), { recursive: true });
  const me: LockOwner = { pid: process.pid, host: hostname() };

  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = readOwner(lockPath);
    if (owner && owner.host === me.host && owner.pid !== me.pid && isAlive(owner.pid)) {
      throw new StoreLockedError(
        `the embedded store ${dataDir} is in use by process ${owner.pid} (lock ${lockPath}). ` +
          "Only one process can open it: stop that process, send data to its HTTP API, or set DATABASE_URL to share a PostgreSQL store.",
      );
    }
    if (owner && owner.host !== me.host) {
      throw new StoreLockedError(`the embedded store ${dataDir} is locked by host ${owner.host} (pid ${owner.pid}); remove ${lockPath} only if that host no longer uses it`);
    }
    // Stale (dead owner, our own pid from an earlier run, or unreadable): take it over.
    try {
      unlinkSync(lockPath);
    } catch {
      // Someone else removed it first; retry the exclusive create.
    }
  }
  throw new StoreLockedError(`could not take the lock ${lockPath} for the embedded store ${dataDir}`);
}
