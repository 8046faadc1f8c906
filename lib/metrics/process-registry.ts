import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * prom-client's process metrics (CPU, memory, event loop lag, GC) in one registry per process. They cannot be
 * registered twice, and Next.js may load this module once per bundle, so the registry lives on globalThis.
 */

/** Gauges that prom-client names like counters; `promtool check metrics` rejects that, so they are left out. */
const MISNAMED_GAUGES = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];
const KEY = Symbol.for("dupscope.metrics.process");
type Holder = { [KEY]?: Registry };

export function processRegistry(): Registry {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const name of MISNAMED_GAUGES) registry.removeSingleMetric(name);
    holder[KEY] = registry;
  }
  return holder[KEY];
}
