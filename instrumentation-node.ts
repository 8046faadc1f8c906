import { startAlerting } from "./lib/alerts/worker.ts";
import { logger } from "./lib/log.ts";
import { diagnosisIntervalMs, startDiagnosisWorker } from "./lib/diagnosis-queue/worker.ts";
import { getStore } from "./lib/store/index.ts";

/**
 * Opens the store and applies migrations before the first request, then starts the worker that keeps stored
 * verdicts current and the one that evaluates alert rules. If the store cannot be opened, Next.js would keep running and answer every route with 500;
 * a dashboard without its store is useless, so exit with the reason instead.
 */
export async function openStoreAtStartup(): Promise<void> {
  if (process.env.DUPSCOPE_PASSWORD && !process.env.DUPSCOPE_SESSION_SECRET) {
    logger.warn(
      "DUPSCOPE_PASSWORD is set without DUPSCOPE_SESSION_SECRET: session cookies are signed with a key derived from the password, so anyone who copies a cookie can test password guesses offline, without the login's throttle. Set DUPSCOPE_SESSION_SECRET to a long random value.",
    );
  }
  try {
    const store = await getStore();
    const interval = diagnosisIntervalMs();
    if (interval > 0) startDiagnosisWorker(store.driver, interval);
    startAlerting(store.driver);
  } catch (error) {
    logger.fatal({ err: error }, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
