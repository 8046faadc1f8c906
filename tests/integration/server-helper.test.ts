import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { backends } from "../helpers/stores.ts";

const HELPER = fileURLToPath(new URL("../helpers/server.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A zombie counts as gone: it has exited, and only waits for whatever adopted it to reap it. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * The benches and tests start real servers through tests/helpers/server.ts. One killed before it could stop its server
 * left it running: a bench's orphaned server went on diagnosing, and took CPU from, the next run on the same database.
 */
describe("a server started by startServer", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "dupscope-orphan-"));
  let dispose: (() => Promise<void>) | undefined;
  after(async () => {
    await dispose?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("exits when the process that started it is killed with SIGKILL", async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    const script = path.join(dir, "starter.mts");
    writeFileSync(
      script,
      `import { startServer } from ${JSON.stringify(HELPER)};\n` +
        `const server = await startServer(${JSON.stringify(created.env)});\n` +
        `console.log(JSON.stringify({ pid: server.pid, url: server.url }));\n` +
        `setInterval(() => {}, 1000);\n`,
    );
    const starter = spawn(process.execPath, ["--import", "tsx", script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    starter.stderr!.on("data", (d) => (output += d));
    const started = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
      starter.stdout!.on("data", (d) => {
        output += d;
        const line = output.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve(JSON.parse(line) as { pid: number; url: string });
      });
      starter.once("exit", (code) => reject(new Error(`the starter exited with ${code} before its server was up:\n${output}`)));
    });
    assert.equal((await fetch(`${started.url}/api/health`)).ok, true);

    starter.kill("SIGKILL");
    const deadline = Date.now() + 20_000;
    while (alive(started.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const orphaned = alive(started.pid);
    if (orphaned) process.kill(started.pid, "SIGKILL");
    assert.equal(orphaned, false, `server ${started.pid} still ran 20 s after the process that started it was killed`);
  });
});
