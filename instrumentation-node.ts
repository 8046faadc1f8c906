import { startAlerting, type AlertingHandle } from "./lib/alerts/worker.ts";
import { listenForTraces, otlpPortFromEnv } from "./lib/api/otlp-port.ts";
import { serverPatterns } from "./lib/ingest/patterns-file.ts";
import { logger } from "./lib/log.ts";
import type { PeriodicHandle } from "./lib/periodic.ts";
import { diagnosisIntervalMs, diagnosisLoops, startDiagnosisWorker } from "./lib/diagnosis-queue/worker.ts";
import { probeJobAtStartup, startProbeJob, type ProbeJobHandle } from "./lib/probe/job.ts";
import { retentionIntervalMs, startRetentionJob, type RetentionJobHandle } from "./lib/retention/job.ts";
import { retentionFromEnv } from "./lib/store/retention-config.ts";
import { getStore } from "./lib/store/index.ts";
import { lead } from "./lib/store/leadership.ts";
import { startVacuumJob } from "./lib/store/vacuum-job.ts";

/**
 * Opens the store and applies migrations before the first request, then starts the worker that keeps stored
 * verdicts current and, in the one server that leads (lib/store/leadership.ts), the one that evaluates alert
 * rules, the one that runs the business-table probes (DUPSCOPE_PROBES_FILE, docs/probe.md#server), the retention
 * job (docs/deploy.md#retention) and, where autovacuum does not run, the vacuum job (lib/store/vacuum-job.ts). If
 * the store cannot be opened, Next.js would keep running and answer every route with 500; a dashboard without its
 * store is useless, so exit with the reason instead.
 */
export async function openStoreAtStartup(): Promise<void> {
  if (process.env.DUPSCOPE_PASSWORD && !process.env.DUPSCOPE_SESSION_SECRET) {
    logger.warn(
      "DUPSCOPE_PASSWORD is set without DUPSCOPE_SESSION_SECRET: session cookies are signed with a key derived from the password, so anyone who copies a cookie can test password guesses offline, without the login's throttle. Set DUPSCOPE_SESSION_SECRET to a long random value.",
    );
  }
  try {
    // Read before the store opens, so a bad setting stops the server with its reason, not each ingest with a 500.
    const retention = retentionFromEnv();
    const retentionEvery = retentionIntervalMs();
    const diagnosisEvery = diagnosisIntervalMs();
    const diagnosisLoopCount = diagnosisLoops();
    const otlpPort = otlpPortFromEnv();
    const patterns = serverPatterns();
    if (patterns.length > 0) logger.info({ patterns: patterns.map((p) => p.name) }, `${patterns.length} patterns of DUPSCOPE_PATTERNS loaded`);
    const store = await getStore();
    // Every server takes OTLP on its own port too when asked: a load balancer spreads exporters as it does the rest.
    if (otlpPort !== null) {
      await listenForTraces(otlpPort, getStore);
      logger.info({ port: otlpPort }, `OTLP/HTTP receiver listening on port ${otlpPort} (POST /v1/traces)`);
    }
    if (diagnosisEvery > 0) startDiagnosisWorker(store.driver, diagnosisEvery, diagnosisLoopCount);
    // Alerts are evaluated and sent by one server at a time, so N servers send each notification once.
    let alerting: AlertingHandle | undefined;
    lead(store.driver, "alerts", (leading) => {
      if (leading) alerting = startAlerting(store.driver);
      else void alerting?.stop();
    });
    // Probes query the application's databases: one server at a time, so N servers do not multiply the load or
    // probe a key N times. A lock of its own rather than the alerts' one: the two jobs fail and take over apart,
    // and a slow probe run never delays an alert. A bad probes file disables the job, logged, not the server.
    const probes = probeJobAtStartup();
    if (probes !== null) {
      let probing: ProbeJobHandle | undefined;
      lead(store.driver, "probes", (leading) => {
        if (leading) probing = startProbeJob(store.driver, probes.prepared, probes.intervalMs);
        else void probing?.stop();
      });
    }
    // Dropping partitions and deleting expired rows once is enough, and two runs would contend for the same locks.
    // The vacuum job (where autovacuum does not run) follows the same leader: it cleans up after those deletes.
    let retaining: RetentionJobHandle | undefined;
    let vacuuming: PeriodicHandle | undefined;
    lead(store.driver, "retention", (leading) => {
      if (leading) {
        retaining = startRetentionJob(store.driver, retention, retentionEvery);
        vacuuming = startVacuumJob(store.driver);
      } else {
        void retaining?.stop();
        void vacuuming?.stop();
      }
    });
  } catch (error) {
    logger.fatal({ err: error }, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
