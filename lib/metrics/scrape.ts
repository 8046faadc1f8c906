import { Registry } from "prom-client";
import type { SqlDriver } from "../store/driver.ts";
import { metricsSettleMs } from "./config.ts";
import { countSettledVerdicts } from "./count-verdicts.ts";
import { storedRegistry } from "./exposition.ts";
import { processRegistry } from "./process-registry.ts";
import { readStoredMetrics } from "./stored.ts";

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** GET /api/metrics: counts newly settled verdicts, then renders the stored counters and the process metrics. */
export async function scrapeMetrics(driver: SqlDriver, now = Date.now()): Promise<string> {
  await countSettledVerdicts(driver, metricsSettleMs());
  const stored = await readStoredMetrics(driver);
  return Registry.merge([processRegistry(), storedRegistry(stored, now)]).metrics();
}
