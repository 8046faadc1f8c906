import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";

const require = createRequire(import.meta.url);

export interface RunningServer {
  url: string;
  pid: number;
  output: () => string;
  stop(): Promise<void>;
  /** Kills the process without a chance to clean up (SIGKILL): what a crash or an OOM kill does. */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Makes the server exit once this process is gone: see the file. */
const EXIT_WITH_PARENT = require.resolve("./exit-with-parent.cjs");

/**
 * Starts the built app (`next start`) as a real server process; scripts/test.mjs builds it first. `nodeArgs` go to
 * node before the script (a bench's `--cpu-prof`, which NODE_OPTIONS refuses). The server exits when this process
 * does, even when this one is killed.
 */
export async function startServer(env: Record<string, string>, fixedPort?: number, nodeArgs: string[] = []): Promise<RunningServer & { port: number }> {
  const port = fixedPort ?? (await freePort());
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, "--require", EXIT_WITH_PARENT, require.resolve("next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", LOG_LEVEL: "warn", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not become healthy within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid!,
    port,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
