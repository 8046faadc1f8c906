import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { isSpanScenario, runSpanSimulation, SPAN_SCENARIOS } from "./otel/run.ts";
import { runSimulation, UnknownScenarioError, type SimulateOptions, type SimulationResult } from "./run.ts";

/**
 * The simulator's entry: runs one simulation and writes its files (data, truth.json, manifest.json) into `out`. The
 * RocketMQ 4 cluster plays its scenarios; the Kafka and RocketMQ 5 causes (`commit_failed`, `invisible_timeout`, and
 * `otel` for all of them) come from the span simulator, which is what those clusters show.
 */
export async function simulate(options: SimulateOptions & { out: string }): Promise<SimulationResult> {
  const result = run(options);
  await mkdir(options.out, { recursive: true });
  for (const file of result.files) {
    await mkdir(path.dirname(path.join(options.out, file.path)), { recursive: true });
    await writeFile(path.join(options.out, file.path), file.text, "utf8");
  }
  return result;
}

function run(options: SimulateOptions): SimulationResult {
  const { scenario } = options;
  if (isSpanScenario(scenario)) {
    return runSpanSimulation({ keys: options.keys, seed: options.seed, scenario, skewMs: options.skewMs, ...(options.startAt === undefined ? {} : { startAt: options.startAt }) });
  }
  try {
    return runSimulation(options);
  } catch (error) {
    throw error instanceof UnknownScenarioError ? new UnknownScenarioError(scenario, SPAN_SCENARIOS) : error;
  }
}
