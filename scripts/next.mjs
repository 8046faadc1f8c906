// Runs the Next.js CLI with telemetry off: these machines have no route to its host, and nobody asked for it.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");
export const nextEnv = (extra = {}) => ({ ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra });

export function buildSync() {
  const result = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: nextEnv() });
  if (result.status !== 0) {
    console.error("next build failed; see the output above.");
    process.exit(result.status ?? 1);
  }
}

export function startServer(args, env = {}, stdio = "inherit") {
  return spawn(process.execPath, [nextBin, "start", ...args], { stdio, env: nextEnv(env) });
}
