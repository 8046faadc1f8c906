import os from "node:os";
import type { Rng } from "../lib/simulator/random.ts";

/** What the benchmark scripts share: their options, number formatting, the machine's load and seeded sampling. */

const args = process.argv.slice(2);

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
