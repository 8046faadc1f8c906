/**
 * A background job's loop: `run` every `intervalMs`, one run at a time (a slow run delays the next instead of
 * overlapping it), optionally once at the start. `stop` ends the loop and waits for the run in progress; `run`
 * receives a check it can call between steps to end early. Errors are `run`'s to catch and log: one that escapes
 * would only end that run.
 */

export interface PeriodicHandle {
  stop(): Promise<void>;
}

export function runEvery(intervalMs: number, run: (stopped: () => boolean) => Promise<void>, options: { immediately?: boolean } = {}): PeriodicHandle {
  let stopped = false;
  const isStopped = () => stopped;
  const tick = () => (stopped ? Promise.resolve() : run(isStopped).catch(() => {}));
  let running: Promise<void> = options.immediately ? tick() : Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
