import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { acquireDataDirLock, lockPathFor, StoreLockedError } from "../../../lib/store/data-dir-lock.ts";

const dataDirIn = () => path.join(mkdtempSync(path.join(tmpdir(), "dupscope-lock-")), "data");

describe("embedded store lock", () => {
  it("refuses a second process while the first is alive, naming its pid", async () => {
    const dataDir = dataDirIn();
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(lockPathFor(dataDir), JSON.stringify({ pid: sleeper.pid, host: hostname() }));
      assert.throws(() => acquireDataDirLock(dataDir), (e: unknown) => e instanceof StoreLockedError && e.message.includes(`process ${sleeper.pid}`));
    } finally {
      sleeper.kill();
    }
  });

  it("takes over a lock left by a process that is gone, and removes it on release", async () => {
    const dataDir = dataDirIn();
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.on("exit", resolve));
    writeFileSync(lockPathFor(dataDir), JSON.stringify({ pid: gone.pid, host: hostname() }));
    const release = acquireDataDirLock(dataDir);
    assert.ok(existsSync(lockPathFor(dataDir)));
    release();
    assert.ok(!existsSync(lockPathFor(dataDir)));
  });
});
