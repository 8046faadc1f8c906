import { ConflictError } from "../errors.ts";
import { logger } from "../log.ts";
import { pendingDiagnoses, storeState } from "../queries/overview.ts";
import { driverSink } from "../ingest/driver-sink.ts";
import type { SqlDriver } from "../store/driver.ts";
import { loadDemoDay, type DemoProgress } from "./load.ts";

/**
 * The demo load started from the home page, run inside the server: one at a time per process, its progress kept
 * where the status endpoint can read it. It lives on globalThis because Next.js bundles each route separately.
 */

export type DemoJob =
  | { state: "idle" }
  | { state: "loading"; startedAt: number; progress: DemoProgress | null }
  | { state: "done"; startedAt: number; finishedAt: number; accepted: number }
  | { state: "failed"; startedAt: number; error: string };

const KEY = Symbol.for("dupscope.demo");
type Holder = { [KEY]?: DemoJob };

export function demoJob(): DemoJob {
  return (globalThis as Holder)[KEY] ?? { state: "idle" };
}

function set(job: DemoJob): void {
  (globalThis as Holder)[KEY] = job;
}

/** Starts loading unless a load is running; returns at once. The diagnosis worker picks the events up as they land. */
export function startDemoJob(driver: SqlDriver, now = Date.now()): DemoJob {
  const current = demoJob();
  if (current.state === "loading") return current;
  const startedAt = Date.now();
  set({ state: "loading", startedAt, progress: null });
  const log = logger.child({ component: "demo" });
  loadDemoDay({ now, sink: driverSink(driver), onProgress: (progress) => set({ state: "loading", startedAt, progress }) }).then(
    (result) => {
      log.info({ events: result.accepted, ms: result.elapsedMs }, "demo day loaded");
      set({ state: "done", startedAt, finishedAt: Date.now(), accepted: result.accepted });
    },
    (error: unknown) => {
      log.error({ err: error }, "demo load failed");
      set({ state: "failed", startedAt, error: error instanceof Error ? error.message : String(error) });
    },
  );
  return demoJob();
}

export interface DemoStatus {
  job: DemoJob;
  /** Keys still waiting for diagnosis. */
  diagnosisQueue: number;
  storeEmpty: boolean;
}

export async function demoStatus(driver: SqlDriver): Promise<DemoStatus> {
  const [queued, state] = await Promise.all([pendingDiagnoses(driver), storeState(driver)]);
  return { job: demoJob(), diagnosisQueue: queued, storeEmpty: !state.hasEvents };
}

/** Demo data is only mixed into an empty store: a store holding events refuses it. */
export async function startDemoIntoEmptyStore(driver: SqlDriver): Promise<DemoJob> {
  if (demoJob().state === "loading") return demoJob();
  if ((await storeState(driver)).hasEvents) throw new ConflictError("the store already holds events: demo data is only loaded into an empty store");
  return startDemoJob(driver);
}
