import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { orderStory, toNdjson } from "../helpers/events.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

const ROOT = path.join(import.meta.dirname, "..", "..");

function runDemo(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts", ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

// One backend is enough: what is tested is the script's conversation with the server, not the store.
const backend = backends[backends.length - 1]!;

describe(`npm run demo -- --server, against a server on ${backend.name}`, () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;

  before(async () => {
    const created = await backend.create();
    dispose = created.dispose;
    server = await startServer(created.env);
  });
  after(async () => {
    await server?.stop();
    await dispose?.();
  });

  const demoState = async () => (await (await fetch(`${server.url}/api/v1/demo`)).json()) as { storeEmpty: boolean };

  it("loads a day into a server whose store is empty", async () => {
    assert.equal((await demoState()).storeEmpty, true);
    const run = await runDemo(["--server", server.url, "--scale", "0.05", "--seed", "3"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /events stored/);
    assert.equal((await demoState()).storeEmpty, false);
  });

  it("refuses a server whose store holds events before sending anything", async () => {
    const ingest = await fetch(`${server.url}/api/v1/events`, { method: "POST", body: toNdjson(orderStory("REAL-ORDER")), headers: { "content-type": "application/x-ndjson" } });
    assert.equal(ingest.status, 200);
    const run = await runDemo(["--server", server.url, "--scale", "0.05", "--seed", "4"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /already holds events: the demo day goes only into an empty store/);
    assert.doesNotMatch(run.stderr, /loading a simulated day/, "it asked before it sent anything");
  });
});
