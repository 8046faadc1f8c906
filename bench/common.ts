import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Rng } from "../lib/simulator/random.ts";

/**
 * What the benchmark scripts share: their options, number formatting, the machine's load, seeded sampling, the
 * admin connection that creates and drops their databases, and the CLI run they time.
 */

const args = process.argv.slice(2);

// The benches' stores hold simulated history from fixed dates (the simulator's epoch), which the 7-day default
// retention of raw events would refuse once it ages; the servers and CLIs they start inherit this. bench:soak sets
// its own retention.
process.env.DUPSCOPE_RETENTION_EVENTS ??= "3650d";

/** `--name value` from the command line, else the fallback. */
export function arg(name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}

export function flag(name: string): boolean {
  return args.includes(`--${name}`);
}

export const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** Printed beside every figure: other work on the machine's few cores moves them. */
export const loadAverage = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Up to `count` of `pool`, uniformly and reproducibly (a partial Fisher–Yates shuffle; `pool` is reordered). */
export function sampleUniform(rng: Rng, pool: string[], count: number): string[] {
  const picked = Math.min(count, pool.length);
  for (let i = 0; i < picked; i++) {
    const j = rng.int(i, pool.length - 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, picked);
}

/** One statement on a fresh connection to the admin database (CREATE/DROP DATABASE cannot run in a pool's transaction). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export interface CliSummary {
  lines: number;
  events: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** The pipeline's own clock: the run without the process's start and the store's opening. */
  elapsedMs: number;
  maxRssKb: number;
}

/** `dupscope <args> --json --no-progress`: its summary (the first, when it prints one per file) and wall time. */
export function runCli(args: string[]): Promise<{ summary: CliSummary; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // The bin itself, not `node bin/…`: its shebang's Node flags are part of the CLI a user runs.
    const child = spawn(path.join(import.meta.dirname, "..", "bin", "dupscope.mjs"), [...args, "--json", "--no-progress"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`dupscope exited with ${code}`));
      const summaries = JSON.parse(out) as CliSummary | CliSummary[];
      resolve({ summary: Array.isArray(summaries) ? summaries[0]! : summaries, ms });
    });
  });
}
