import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { runSimulation, type SimulateOptions, type SimulationResult } from "./run.ts";

/** The simulator's entry: runs one simulation and writes its files (data, truth.json, manifest.json) into `out`. */
export async function simulate(options: SimulateOptions & { out: string }): Promise<SimulationResult> {
  const result = runSimulation(options);
  await mkdir(options.out, { recursive: true });
  for (const file of result.files) await writeFile(path.join(options.out, file.path), file.text, "utf8");
  return result;
}
