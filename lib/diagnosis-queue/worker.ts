import { liveChannel } from "../live/channel.ts";
import { logger } from "../log.ts";
import { runEvery, type PeriodicHandle } from "../periodic.ts";
import type { SqlDriver } from "../store/driver.ts";
import { diagnosisLeaseMs, processQueueStep, vacuumQueueTables, WORKER_ID } from "./queue.ts";

/**
 * The server's background loop that keeps stored verdicts current: every `intervalMs` it drains the diagnosis
 * queue in steps (yielding between them, so requests are served during a large backlog). Errors are logged and
 * the keys go back on the queue; the next tick tries again. Every server runs one or more: claims (queue.ts) keep
 * them off each other's keys.
 */

/**
 * Keys per step. Each step pays a few statements whatever its size (claim, load, save, release), so larger steps
 * diagnose more keys per second: on a 2-core machine 200 keys took ~90 ms and 1000 ~260 ms (2,200 vs 3,900
 * keys/s). 1000 keys still yield to requests four times a second.
 */
export const STEP_KEYS = 1000;

/**
 * How long keys queued by a rebalance or lifecycle line wait, so that the lines of the next seconds add nothing
 * (queue.ts, markSettleMs). Verdicts that such a line changes are stored this much later; the key page diagnoses
 * on read and is never late.
 */
const MARK_SETTLE_MS = 10_000;

/** How often a worker with keys to diagnose vacuums the queue's tables (queue.ts, vacuumQueueTables). */
const QUEUE_VACUUM_MS = 10_000;

export type WorkerHandle = PeriodicHandle;

export function diagnosisIntervalMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.DUPSCOPE_DIAGNOSIS_INTERVAL_MS?.trim();
  if (!raw) return 2000;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`DUPSCOPE_DIAGNOSIS_INTERVAL_MS must be a whole number of ms (0 disables), got "${raw}"`);
  return value;
}

/**
 * Step loops per server (DUPSCOPE_DIAGNOSIS_LOOPS). A loop waits on PostgreSQL for about half of each step (claim,
 * load, save) and runs on the event loop for the rest, so a second loop uses what one leaves idle: at 17,500
 * events/s on two cores, one loop fell behind and two kept up, while the same server's key pages answered 2–3× slower
 * (docs/performance-log.md#pool-indexes-msgid-indexes-two-loops). For servers that only diagnose; one is the default.
 */
export function diagnosisLoops(env: Record<string, string | undefined> = process.env): number {
  const raw = env.DUPSCOPE_DIAGNOSIS_LOOPS?.trim();
  if (!raw) return 1;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1 || value > 8) throw new Error(`DUPSCOPE_DIAGNOSIS_LOOPS must be a whole number from 1 to 8, got "${raw}"`);
  return value;
}

/** `loops` step loops, each claiming as a worker of its own: their claims keep them off each other's keys. */
export function startDiagnosisWorker(driver: SqlDriver, intervalMs: number, loops = 1): WorkerHandle {
  const handles = Array.from({ length: loops }, (_, i) => startLoop(driver, intervalMs, loops === 1 ? WORKER_ID : `${WORKER_ID}/${i + 1}`));
  return {
    async stop() {
      await Promise.all(handles.map((h) => h.stop()));
    },
  };
}

function startLoop(driver: SqlDriver, intervalMs: number, worker: string): WorkerHandle {
  const log = logger.child({ component: "diagnosis", worker });
  const leaseMs = diagnosisLeaseMs();
  let vacuumedAt = Date.now();
  const tick = async (stopped: () => boolean) => {
    let diagnosed = 0;
    const started = Date.now();
    try {
      for (;;) {
        if (stopped()) return;
        const step = await processQueueStep(driver, { leaseMs, batch: STEP_KEYS, markSettleMs: MARK_SETTLE_MS, worker });
        // Keys the fold settled as delivered once count as diagnosed: their rows are written.
        const keys = step.keysDiagnosed + step.keysSettled;
        diagnosed += keys;
        if (step.keysDiagnosed === 0 && step.marksExpanded === 0 && step.journalFolded === 0) break;
        // Only a step that did something left dead rows.
        if (Date.now() - vacuumedAt >= QUEUE_VACUUM_MS) {
          vacuumedAt = Date.now();
          await vacuumQueueTables(driver).catch((error: unknown) => log.warn({ err: error }, "vacuum of the diagnosis queue's tables failed; will retry"));
        }
        // Open dashboards hear of each step, not only the end of a long backlog.
        if (keys > 0) liveChannel().publish({ type: "diagnosed", keys, at: Date.now() });
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (diagnosed > 0) log.info({ keys: diagnosed, ms: Date.now() - started }, "diagnosed keys");
    } catch (error) {
      log.error({ err: error }, "diagnosis step failed; will retry");
    }
  };
  return runEvery(intervalMs, tick);
}
