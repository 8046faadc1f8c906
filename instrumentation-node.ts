import { startAlerting, type AlertingHandle } from "./lib/alerts/worker.ts";
import { logger } from "./lib/log.ts";
import { diagnosisIntervalMs, startDiagnosisWorker } from "./lib/diagnosis-queue/worker.ts";
import { getStore } from "./lib/store/index.ts";
import { lead } from "./lib/store/leadership.ts";

/**
 * Opens the store and applies migrations before the first request, then starts the worker that keeps stored
 * verdicts current and, in the one server that leads (lib/store/leadership.ts), the one that evaluates alert
 * rules. If the store cannot be opened, Next.js would keep running and answer every route with 500; a dashboard
 * without its store is useless, so exit with the reason instead.
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
    // Alerts are evaluated and sent by one server at a time, so N servers send each notification once.
    let alerting: AlertingHandle | undefined;
    lead(store.driver, "alerts", (leading) => {
      if (leading) alerting = startAlerting(store.driver);
      else void alerting?.stop();
    });
  } catch (error) {
    logger.fatal({ err: error }, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
