import { startInstance } from "./model/membership.ts";
import { Sim } from "./model/sim.ts";
import { Planner } from "./planner.ts";
import { Rng } from "./random.ts";
import { ALL, findScenario, scenarioNames, SCENARIOS, type Scenario } from "./scenarios.ts";
import { GROUPS, type GroupSpec } from "./topology.ts";
import { label, type DuplicateTruth, type LostTruth, type NormalRetryTruth } from "./truth.ts";
import { renderFiles, type SimFile } from "./writers/files.ts";

/** One simulation, pure: options in, file contents and truth out. simulate.ts writes them to a directory. */

export interface SimulateOptions {
  /** A scenario name, or "all". */
  scenario: string;
  /** Business keys to generate. */
  keys: number;
  seed: number;
  /** Largest clock skew of a host, either way (default 200 ms). */
  skewMs?: number;
  /**
   * True time (epoch ms) the cluster starts, default SIM_EPOCH. With `firstKey`, lets a caller build a large data
   * set from bounded runs laid end to end: same seed, same story, shifted in time.
   */
  startAt?: number;
  /** Number of the first business key (default 1): runs given disjoint ranges have disjoint keys. */
  firstKey?: number;
  /**
   * Spread the keys' first sends over at least this long (default 10 min, or longer at 15 keys/s): a demo day of
   * steady traffic instead of a burst. Episodes of faults still follow each other from the start.
   */
  spanMs?: number;
}

export const DEFAULT_SKEW_MS = 200;

export interface FileEntry {
  format: string;
  instance?: string;
  lines: number;
}

export interface Truth {
  seed: number;
  scenarios: string[];
  keys: number;
  skewMs: number;
  duplicates: DuplicateTruth[];
  lost: LostTruth[];
  normalRetries: NormalRetryTruth[];
  files: Record<string, FileEntry>;
}

export interface Manifest {
  seed: number;
  scenario: string;
  files: ({ path: string } & FileEntry)[];
}

export interface SimulationResult {
  /** Data files, then truth.json and manifest.json. */
  files: SimFile[];
  truth: Truth;
  manifest: Manifest;
}

export class UnknownScenarioError extends Error {
  /** `others`: the names another simulator answers to (lib/simulate.ts adds the span simulator's). */
  constructor(name: string, others: readonly string[] = []) {
    super(`unknown scenario "${name}"; one of: all, ${[...scenarioNames(), ...others].join(", ")}`);
  }
}

function resolveScenario(name: string): Scenario {
  const scenario = name === ALL.name ? ALL : findScenario(name);
  if (!scenario) throw new UnknownScenarioError(name);
  return scenario;
}

/** The scenario's groups and every other group consuming the same topics (they receive the same messages). */
function groupsFor(scenario: Scenario): GroupSpec[] {
  const topics = new Set(GROUPS.filter((g) => scenario.groups.includes(g.name)).map((g) => g.topic));
  return GROUPS.filter((g) => topics.has(g.topic));
}

/** Instances and producers start in the first seconds; traffic begins a minute in. */
function startCluster(sim: Sim): void {
  for (const group of sim.groups.values()) {
    for (let i = 0; i < group.spec.instances; i++) startInstance(sim, group, sim.epoch + sim.rng.int(0, 3000));
  }
  for (const processes of sim.producers.values()) {
    for (const producer of processes) {
      const at = sim.epoch + sim.rng.int(0, 2000);
      sim.clientLine(producer, at, { type: "factory_start", clientId: producer.clientId });
      sim.clientLine(producer, at + 1, { type: "producer_start", group: producer.group });
    }
  }
}

/** What truth.json and manifest.json say of a data file. */
export function fileEntry(file: SimFile): FileEntry {
  return { format: file.format, ...(file.instance === undefined ? {} : { instance: file.instance }), lines: file.lines };
}

export function jsonFile(path: string, value: unknown): SimFile {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  return { path, format: "json", lines: text.split("\n").length - 1, text };
}

export function runSimulation(options: SimulateOptions): SimulationResult {
  const scenario = resolveScenario(options.scenario);
  const skewMs = options.skewMs ?? DEFAULT_SKEW_MS;
  const sim = new Sim({ seed: options.seed, skewMs, groups: groupsFor(scenario), ...(options.startAt === undefined ? {} : { startAt: options.startAt }) });
  startCluster(sim);
  const planner = new Planner(sim, new Rng(options.seed).fork("plan"), options.keys, options.firstKey, options.spanMs);
  scenario.plan(planner, options.keys);
  sim.run();

  const labels = label(sim.deliveries, (group) => sim.group(group).spec.dedupLog);
  const data = renderFiles(sim.out);
  const scenarios = scenario === ALL ? SCENARIOS.map((s) => s.name) : [scenario.name];
  const truth: Truth = {
    seed: options.seed,
    scenarios,
    keys: planner.keys,
    skewMs,
    ...labels,
    files: Object.fromEntries(data.map((f) => [f.path, fileEntry(f)])),
  };
  const manifest: Manifest = { seed: options.seed, scenario: scenario.name, files: data.map((f) => ({ path: f.path, ...fileEntry(f) })) };
  return { files: [...data, jsonFile("truth.json", truth), jsonFile("manifest.json", manifest)], truth, manifest };
}
