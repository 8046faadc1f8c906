import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const BIN = path.join(import.meta.dirname, "..", "..", "bin", "dupscope.mjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `dupscope` CLI as a child process, the way a user does. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, env);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Executes bin/dupscope.mjs itself, so its shebang's Node flags apply as they do for `npx dupscope`. */
export function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(BIN, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}
