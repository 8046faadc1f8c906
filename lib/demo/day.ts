import type { SimulateOptions } from "../simulator/run.ts";

/**
 * The demo's simulated day: consecutive simulator runs of the realistic mix (`all`), each standing for a few hours
 * of steady traffic that opens with its incidents (rebalance storms, crashes, a broker and a Redis restart), laid
 * end to end so the last one reaches the present. Runs must not overlap: two runs' consumers would share hosts
 * and groups, and each would read as the other's rebalances and restarts.
 */

const HOUR = 3_600_000;

export interface DemoDayOptions {
  /** The end of the day (epoch ms); events later than this have not happened yet and are not loaded. */
  now: number;
  hours?: number;
  runs?: number;
  /** Scales every run's keys (the e2e tests load a smaller day). */
  scale?: number;
  seed?: number;
}

/** Keys per run, uneven on purpose: traffic and incident sizes vary through a day. */
const RUN_KEYS = [520, 380, 440, 700, 560, 420, 640, 760];

export function demoDay(options: DemoDayOptions): (SimulateOptions & { name: string })[] {
  const hours = options.hours ?? 24;
  const runs = options.runs ?? RUN_KEYS.length;
  const runMs = (hours * HOUR) / runs;
  const start = options.now - hours * HOUR;
  let firstKey = 1;
  return Array.from({ length: runs }, (_, i) => {
    const keys = Math.max(20, Math.round(RUN_KEYS[i % RUN_KEYS.length]! * (options.scale ?? 1)));
    const run = {
      name: `run-${String(i + 1).padStart(2, "0")}`,
      scenario: "all",
      keys,
      seed: (options.seed ?? 20261130) + i,
      startAt: Math.round(start + i * runMs),
      firstKey,
      // The simulator starts traffic a minute after the cluster; the keys fill the rest of the run's slot.
      spanMs: Math.round(runMs - 2 * 60_000),
    };
    firstKey += keys;
    return run;
  });
}
