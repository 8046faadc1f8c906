import { liveChannel } from "../live/channel.ts";
import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import { dispatchDue } from "./dispatcher.ts";
import { RESEND_MS } from "./channels/alertmanager.ts";
import { evaluateRules } from "./evaluator.ts";
import { resendFiring } from "./resend.ts";
import { alertSettings, type AlertSettings } from "./settings.ts";

/**
 * The server's alerting loop: rules are evaluated every `intervalMs`, and the outbox is checked every second so a
 * new notification leaves at once and retries leave on time; firing alerts go to Alertmanager channels again every
 * minute (resend.ts). Rounds run one after another, never overlapping. A round that moves an alert says so on the
 * live channel (lib/live/channel.ts), so the alerts page updates without a reload.
 */

const DISPATCH_TICK_MS = 1000;

export interface AlertingHandle {
  stop(): Promise<void>;
}

export function startAlerting(driver: SqlDriver, settings: AlertSettings = alertSettings()): AlertingHandle | undefined {
  if (settings.intervalMs === 0) return undefined;
  const log = logger.child({ component: "alerts" });
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  let dispatchQueued = false;
  const enqueue = (what: string, job: () => Promise<unknown>) => {
    chain = chain.then(async () => {
      if (stopped) return;
      try {
        await job();
      } catch (error) {
        log.error({ err: error }, `alert ${what} failed; will retry`);
      }
    });
  };
  // Open alerts pages hear of a state change at once, through the same live channel as the overview's feed.
  const evaluate = () =>
    enqueue("evaluation", async () => {
      const outcomes = await evaluateRules(driver);
      if (outcomes.some((o) => o.changed)) liveChannel().publish({ type: "alerts", at: Date.now() });
    });
  // A slow round must not leave a backlog of identical dispatch ticks behind it.
  const dispatch = () => {
    if (dispatchQueued) return;
    dispatchQueued = true;
    enqueue("dispatch", () => {
      dispatchQueued = false;
      return dispatchDue(driver, settings);
    });
  };
  const timers = [
    setInterval(() => {
      evaluate();
      dispatch();
    }, settings.intervalMs),
    setInterval(dispatch, Math.min(DISPATCH_TICK_MS, settings.intervalMs)),
    setInterval(() => enqueue("resend to Alertmanager", () => resendFiring(driver, settings)), RESEND_MS),
  ];
  for (const timer of timers) timer.unref();
  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await chain;
    },
  };
}
